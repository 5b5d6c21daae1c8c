"""Evidence for fact labels: the knowledge passages retrieved for each atomic fact, as the worker is shown them.

services/knowledge.py imports a knowledge source and records the passages retrieved per fact (RetrievedPassage,
best first); this reads them for a unit's payload, many facts in one query, with the character offsets of the
words that match the fact (scoring.retrieval.matched_offsets, the same stemmed content words the retriever
uses), so the element's reference panel can mark them. It lives in protocols (not services) because the
payload is built here and services already import protocols.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from annotation_tasks.models import RetrievedPassage
from annotation_tasks.protocols.base import Shown
from annotation_tasks.scoring.retrieval import matched_offsets


def passages_for_facts(fact_texts: dict[int, str]) -> dict[int, list[dict[str, Any]]]:
    """{fact id: [{"id", "title", "text", "rank", "score", "retriever", "matches": [[start, end], ...]}]}, best
    first, for {fact id: fact text}; the latest retriever's rows when several ran; facts without any are absent."""
    if not fact_texts:
        return {}
    rows = RetrievedPassage.objects.filter(fact_id__in=list(fact_texts)).select_related("passage").order_by(
        "fact_id", "-created_at", "rank"
    )
    by_fact: dict[int, list[RetrievedPassage]] = defaultdict(list)
    for row in rows:
        by_fact[row.fact_id].append(row)
    out: dict[int, list[dict[str, Any]]] = {}
    for fact_id, found in by_fact.items():
        latest = found[0].retriever
        out[fact_id] = [
            {"id": r.passage_id, "title": r.passage.title, "text": r.passage.text, "rank": r.rank, "score": r.score,
             "retriever": r.retriever,
             "matches": [list(m) for m in matched_offsets(r.passage.text, fact_texts[fact_id])]}
            for r in sorted((r for r in found if r.retriever == latest), key=lambda r: r.rank)
        ]
    return out


def fact_evidence(facts: Sequence[Mapping[str, Any]], shown: Shown) -> tuple[list[dict], list[dict]]:
    """(facts with `passages: [{"id", "matches"}]`, the passages they name as [{"id", "title", "text"}] once each).

    A topic's facts mostly share its page's passages, so the texts travel once per response; the ids shown per
    fact are recorded in `shown.passages` (what the worker had as evidence for each label)."""
    found = passages_for_facts({f["id"]: f["text"] for f in facts})
    knowledge: dict[int, dict] = {}
    out = []
    for f in facts:
        passages = found.get(f["id"], [])
        for p in passages:
            knowledge.setdefault(p["id"], {"id": p["id"], "title": p["title"], "text": p["text"]})
        if passages:
            shown.passages[f["id"]] = [p["id"] for p in passages]
        out.append({**f, "passages": [{"id": p["id"], "matches": p["matches"]} for p in passages]})
    return out, list(knowledge.values())
