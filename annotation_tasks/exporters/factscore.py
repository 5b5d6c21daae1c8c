"""The FActScore labeled schema: one line per response {input, output, topic, cat, annotations}.

Human facts carry the majority label of their counted assignments (the imported expert's label for imported
data). For responses labelled in the app, a sentence without human facts lists its labelled model facts as
its human facts, so crowd labels are not lost. Imported lines come back byte for byte (default json.dumps,
as the release wrote them).
A fact an expert adjudicated carries the adjudicated label as `label`, with `majority` (the crowd's) and
`adjudication` (its provenance) beside it; nothing else changes.

A response imported from a FActScore file keeps the file's expert facts and labels: `human-atomic-facts` are the
imported human facts labelled by the imported expert's votes only (workers never see them, and their votes never
change them), so the export of an imported file with no crowd work is the file, byte for byte. The crowd's labels
of such a response's model facts (and facts workers wrote) go to `crowd-atomic-facts` ([{text, label}], majority
of the counted votes), added after the sentence's own keys only where there are some.
Facts workers wrote count only with their assignment (rejected or unverified work writes none into an export).

The FActScore schema has no system (a released file is one system's): where the project holds more than one, each
line gets `system` (its response's) after its other keys, so the export imports back with each response under its
own system (topics repeat across systems). A line imported with a `system` writes it where the line had it; a
single-system project's export is unchanged.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.db.models import Q

from annotation_tasks.exporters.base import CHUNK, id_list, iter_chunks, level_votes, majorities
from annotation_tasks.importers.common import IMPORTED
from annotation_tasks.importers.factscore import CROWD_KEY, LINE_KEYS, SENTENCE_KEYS, SYSTEM_KEY
from annotation_tasks.models import AdjudicatedLabel, Assignment, AtomicFact, Project, Response


def dumps(obj: Any) -> str:
    return json.dumps(obj)


def export_lines(project: Project, *, chunk_size: int = CHUNK) -> Iterator[str]:
    """One JSON line (no newline) per response of the project, in response order."""
    responses = Response.objects.filter(project=project).select_related("source")
    systems = len(responses.exclude(system="").order_by().values("system").distinct()[:2])
    for chunk in iter_chunks(responses, chunk_size):
        ids = [r.pk for r in chunk]
        facts: dict[int, list[AtomicFact]] = defaultdict(list)
        written = Q(created_by_assignment__isnull=True) | Q(
            created_by_assignment__in=Assignment.objects.filter(Assignment.counted_q()))
        for fact in (AtomicFact.objects.filter(written, response_id__in=id_list(ids))
                     .order_by("response_id", "sentence_index", "order", "id")):
            facts[fact.response_id].append(fact)
        fact_ids = [f.pk for lst in facts.values() for f in lst]
        rows = level_votes("fact", fact_ids)
        experts = set(Assignment.objects.filter(pk__in=id_list({r[2] for r in rows}), worker__provider=IMPORTED)
                      .values_list("pk", flat=True)) if rows else set()
        votes = {"all": majorities(rows), "expert": majorities([r for r in rows if r[2] in experts]),
                 "crowd": majorities([r for r in rows if r[2] not in experts])}
        adjudicated = AdjudicatedLabel.of_items("fact", id_list(fact_ids))
        for response in chunk:
            yield dumps(_record(response, facts[response.pk], votes, adjudicated, with_system=systems > 1))


def _record(response: Response, facts: list[AtomicFact], votes: dict,
            adjudicated: dict[int, AdjudicatedLabel] | None = None, with_system: bool = False) -> dict[str, Any]:
    meta = response.metadata or {}
    by_sentence: dict[tuple[int, str], list[AtomicFact]] = defaultdict(list)
    for fact in facts:
        by_sentence[(fact.sentence_index, "human" if fact.kind == "human" else "model")].append(fact)
    annotations = None
    imported = "output" in (meta.get("release_keys") or ())  # a line of a FActScore file: its expert facts stand
    if not meta.get("abstained", False):
        n = max([len(response.sentences or []), *(i + 1 for i, _ in by_sentence)])
        annotations = [_sentence(i, (response.sentences or [])[i : i + 1], by_sentence, votes, adjudicated or {},
                                 imported) for i in range(n)]
    values = {
        "input": meta.get("input", response.source.question),
        "output": response.text,
        "topic": meta.get("topic", response.source.external_id),
        "cat": meta.get("cat"),
        "annotations": annotations,
    }
    extra = meta.get("release_extra", {})
    keys = meta.get("release_keys") or LINE_KEYS
    if "output" not in keys:  # the keys of another format's import (a QASem release line): not ours to copy
        keys, extra = LINE_KEYS, {}
    if response.system.strip():  # the response's own system where the line had one, else after the other keys
        values[SYSTEM_KEY] = response.system
        if with_system and SYSTEM_KEY not in keys:
            keys = [*keys, SYSTEM_KEY]
    return {k: values[k] if k in values else extra.get(k) for k in keys}


def _human_fact(fact: AtomicFact, votes: dict, adjudicated: dict[int, AdjudicatedLabel]) -> dict[str, Any]:
    majority = votes.get(("fact", fact.pk), (None, []))[0]
    adj = adjudicated.get(fact.pk)
    if adj is None:
        return {"text": fact.text, "label": majority}
    return {"text": fact.text, "label": adj.value, "majority": majority, "adjudication": adj.provenance()}


def _sentence(i: int, stored: list[dict], by_sentence: dict, votes: dict[str, dict],
              adjudicated: dict[int, AdjudicatedLabel], imported: bool = False) -> dict[str, Any]:
    sent = stored[0] if stored else {}
    model = by_sentence.get((i, "model"), [])
    human = by_sentence.get((i, "human"), [])
    crowd: list[dict[str, Any]] = []
    if imported:  # the file's expert facts, labelled by the expert alone; the crowd's labels beside them
        written = [f for f in human if f.created_by_assignment_id is not None]
        human = [f for f in human if f.created_by_assignment_id is None]
        crowd = [{"text": f.text, "label": votes["crowd"][("fact", f.pk)][0]}
                 for f in [*model, *written] if ("fact", f.pk) in votes["crowd"]]
        crowd = crowd or sent.get("crowd_facts") or []  # as an imported export recorded them
        tally = votes["expert"]
    else:
        tally = votes["all"]
        if not human and not sent.get("human_facts_null"):
            human = [f for f in model if ("fact", f.pk) in tally]
    values = {
        "text": sent.get("text", ""),
        "is-relevant": sent.get("is_relevant", True),
        # the splitter's own facts: those written in fact validation (a fix, a split's parts) are the expert's
        "model-atomic-facts": None if sent.get("model_facts_null") else [
            {"text": f.text} for f in model if f.validation != AtomicFact.Validation.WRITTEN],
        "human-atomic-facts": None
        if sent.get("human_facts_null")
        else [_human_fact(f, tally, adjudicated) for f in human],
    }
    out = {k: values.get(k) for k in sent.get("release_keys") or SENTENCE_KEYS}
    if crowd:
        out[CROWD_KEY] = crowd
    return out
