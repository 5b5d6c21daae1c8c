"""Knowledge sources for fact labels: import a corpus, retrieve passages per atomic fact, hand them out.

FActScore's annotators and its estimator judged each fact against the topic's Wikipedia page; a FActScore import
has no page (Source.text is empty), so a researcher brings the corpus: JSONL of {"title", "text"} (the format
FActScore registers knowledge sources in; a Wikipedia subset or their own documents). Here:
- import_knowledge validates the whole file (located errors, nothing written on a bad line), cuts each document
  into passages of whole sentences (PASSAGE_WORDS words) and stores them; the same file name twice is skipped.
- retrieve_for_facts ranks, per fact, the passages of its topic's document (title = the response's topic or
  source id; the whole corpus when no title matches) with BM25 on "topic fact" (FActScore's query), and records
  the top k as RetrievedPassage rows: the passages the scorers verify against (services/scoring) and that the
  annotator's reference panel should show, so both can be audited later.
- passages_for_fact gives those passages with the character offsets of the words matching the fact: the
  element's reference panel (another helper's area) marks them.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from annotation_tasks.importers.base import ImportFormatError, Where, read_jsonl, require
from annotation_tasks.models import AtomicFact, KnowledgeSource, Passage, Project, RetrievedPassage
from annotation_tasks.scoring.retrieval import (
    PASSAGE_WORDS,
    TOP_K,
    BM25Index,
    chunk_document,
    retriever_name,
)
from annotation_tasks.scoring.text import fold_title

BULK = 500
TITLE_MAX = 500


class KnowledgeError(ValueError):
    """Arguments that cannot be used (unknown project, bad passage length)."""


@dataclass(frozen=True)
class Document:
    title: str
    text: str
    line: int


def read_knowledge(path: Path) -> list[Document]:
    """Every {title, text} line of the file, checked; raises ImportFormatError at the first bad one."""
    documents: list[Document] = []
    for lineno, obj in read_jsonl(path):
        where = Where(path.name, lineno)
        title = require(obj, "title", where, str).strip()
        text = require(obj, "text", where, str)
        if not title:
            raise where.child("title").error("empty title")
        if len(title) > TITLE_MAX:
            raise where.child("title").error(f"longer than {TITLE_MAX} characters")
        if "\u0000" in text or "\u0000" in title:
            raise where.child("text").error("contains a NUL character")
        documents.append(Document(title, text, lineno))
    if not documents:
        raise ImportFormatError(path.name, None, None, "no documents in the file")
    return documents


def import_knowledge(path: str | Path, project: Project | str, name: str | None = None,
                     passage_words: int = PASSAGE_WORDS) -> tuple[KnowledgeSource, int, bool]:
    """(knowledge source, passages, created): the file's documents cut into passages, in one transaction."""
    path = Path(path)
    project = _project(project)
    if not 16 <= passage_words <= 2048:
        raise KnowledgeError(f"--passage-words must be between 16 and 2048, not {passage_words}")
    name = (name or path.stem).strip()[:200]
    existing = KnowledgeSource.objects.filter(project=project, name=name).first()
    if existing is not None:
        return existing, existing.passages.count(), False
    documents = read_knowledge(path)
    with transaction.atomic():
        source = KnowledgeSource.objects.create(project=project, name=name, file_name=path.name,
                                                passage_words=passage_words)
        rows = [
            Passage(knowledge=source, title=doc.title, text=text, order=order)
            for doc in documents
            for order, text in enumerate(chunk_document(doc.text, passage_words))
        ]
        Passage.objects.bulk_create(rows, batch_size=BULK)
    return source, len(rows), True


def _project(project: Project | str) -> Project:
    if isinstance(project, Project):
        return project
    found = Project.objects.filter(name=project).first()
    if found is None:
        raise KnowledgeError(f"no project named {project!r}")
    return found


def _topic(response_metadata: dict | None, source_external_id: str) -> str:
    topic = (response_metadata or {}).get("topic")
    return str(topic) if topic else source_external_id


def retrieve_for_facts(project: Project | str, k: int = TOP_K, topic_only: bool = False) -> dict[str, int]:
    """Rank passages for every atomic fact of the project and record the top k (replacing this retriever's
    earlier rows). A topic without a document of its title searches the whole corpus, unless topic_only (then its
    facts get no passages, as in FActScore, whose facts are only ever checked against the topic's own page).
    Returns counts: facts, with_passages, topics_matched, topics_unmatched."""
    project = _project(project)
    passages = list(Passage.objects.filter(knowledge__project=project).order_by("id").values_list("id", "title", "text"))
    counts = {"facts": 0, "with_passages": 0, "topics_matched": 0, "topics_unmatched": 0}
    if not passages:
        return counts
    by_title: dict[str, list[int]] = defaultdict(list)
    by_folded: dict[str, list[int]] = defaultdict(list)
    for position, (_, title, _) in enumerate(passages):
        by_title[title].append(position)
        by_folded[fold_title(title)].append(position)  # accents and case folded: "Sanchez" finds "Sánchez"
    facts_by_topic: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for pk, text, metadata, source_id in AtomicFact.objects.filter(response__project=project).order_by("id").values_list(
        "id", "text", "response__metadata", "response__source__external_id"
    ):
        facts_by_topic[_topic(metadata, source_id)].append((pk, text))
    retriever = retriever_name(k)
    whole: BM25Index | None = None
    for topic, facts in sorted(facts_by_topic.items()):
        positions = by_title.get(topic) or by_folded.get(fold_title(topic))
        if positions:
            counts["topics_matched"] += 1
            index = BM25Index([passages[p][2] for p in positions])
        else:
            counts["topics_unmatched"] += 1
            if topic_only:
                RetrievedPassage.objects.filter(fact_id__in=[pk for pk, _ in facts], retriever=retriever).delete()
                counts["facts"] += len(facts)
                continue
            positions = list(range(len(passages)))
            whole = whole or BM25Index([p[2] for p in passages])
            index = whole
        rows = []
        for pk, text in facts:
            hits = index.top(f"{topic} {text}", k)
            rows += [RetrievedPassage(fact_id=pk, passage_id=passages[positions[i]][0], rank=rank, score=score,
                                      retriever=retriever) for rank, (i, score) in enumerate(hits)]
            counts["facts"] += 1
            counts["with_passages"] += bool(hits)
        with transaction.atomic():
            RetrievedPassage.objects.filter(fact_id__in=[pk for pk, _ in facts], retriever=retriever).delete()
            RetrievedPassage.objects.bulk_create(rows, batch_size=BULK)
    return counts


def passages_for_fact(fact: AtomicFact | int) -> list[dict[str, Any]]:
    """The passages retrieved for a fact, best first, for the reference panel:
    [{"id", "title", "text", "rank", "score", "retriever", "matches": [[start, end], ...]}] (id: the Passage's);
    matches are the character offsets in `text` of the words that match the fact's content words (by stem). Empty when nothing
    was retrieved. The latest retriever's rows are used when several retrievers ran."""
    from annotation_tasks.protocols.factscore.evidence import (
        passages_for_facts,  # the unit payload's reader, many at once
    )

    fact = fact if isinstance(fact, AtomicFact) else AtomicFact.objects.get(pk=fact)
    return passages_for_facts({fact.pk: fact.text}).get(fact.pk, [])
