"""A flat per-QA JSONL for training and evaluating consistency models, with a dev/test split by source.

One line per QA: source id, response id, system, dataset, predicate, question, answer, token and character
offsets, the majority label (supported / not_supported, the analysis's tie rule), the votes in assignment
order, and the split. The split hashes the release's source id (annotation_tasks.analysis.splits.split_of),
so every response of one source, and all its QAs, land in the same half on every machine.
A QA an expert adjudicated carries the adjudicated label as `label`, with `majority` (the crowd's) and
`adjudication` (its provenance) added after the split; every other line is unchanged.

An unlabelled row (UNLABELLED) is an item nobody's counted work labels and no expert decided: `label` is null
and `votes` and `workers` are empty (its unit was not done yet, or its only work was rejected or is not yet
verified by its platform). It is written, not dropped, so the rows are the whole judged set; the dataset card
counts them per split.

A worker votes once per item: a second batch over the same sources neither serves them the same items nor stores
a second vote (services.work), unless the batch is a test-retest the researcher asked for (Batch.settings.retest);
then both votes are kept and the item's line carries `retest` ([whether vote i is the repeat], beside `workers`).
A line with votes carries `posterior`, `posterior_ci95` and `soft_label` (exporters.certainty): how sure the crowd's
aggregated label is.

`span_lines` writes the span level the same way (one line per answer span, `label` covered / not_covered), for
the dataset's `span` config.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from annotation_tasks.analysis.splits import split_of
from annotation_tasks.exporters.base import CHUNK, iter_chunks, level_votes, majorities, retest_marks, vote_workers
from annotation_tasks.exporters.certainty import certainty
from annotation_tasks.models import QA, AdjudicatedLabel, AnswerSpan, Project, Response

UNLABELLED = ("no counted vote and no expert decision: `label` is null, `votes` and `workers` are empty (not done "
              "yet, or its only work was rejected or not yet verified by its platform)")


def source_key(response: Response) -> Any:
    """The id a split is taken on: the release's raw source id when imported, else the source's external id."""
    return (response.metadata or {}).get("source_id", (response.source.metadata or {}).get("source_id", response.source.external_id))


def export_lines(project: Project, *, chunk_size: int = CHUNK, with_platform_ids: bool = False) -> Iterator[str]:
    """One JSON line (no newline) per QA, grouped by response in response order. `workers` names who cast each
    vote (workers[i] cast votes[i]) by pseudonymous id; platform ids are added only `with_platform_ids`."""
    responses = Response.objects.filter(project=project).select_related("source")
    for chunk in iter_chunks(responses, chunk_size):
        by_id = {r.pk: r for r in chunk}
        qas = list(
            QA.objects.filter(response_id__in=list(by_id))
            .exclude(validity=QA.Validity.INVALID)  # rejected by the expert step: not part of the judged set
            .select_related("predicate")
            .order_by("response_id", "order", "id")
        )
        rows = level_votes("qa", [qa.pk for qa in qas])
        votes, sure = majorities(rows), certainty(rows)  # sure: posterior, its interval, soft label per item
        who = vote_workers(rows, with_platform_ids=with_platform_ids)
        adjudicated = AdjudicatedLabel.of_items("qa", [qa.pk for qa in qas])
        retests = retest_marks(rows)
        for qa in qas:
            record = _record(by_id[qa.response_id], qa, votes, adjudicated.get(qa.pk))
            yield json.dumps({**record, **sure.get(("qa", qa.pk), {}), "workers": who.get(("qa", qa.pk), []),
                              **_retest(retests, ("qa", qa.pk))},
                             ensure_ascii=False)


def _retest(retests: dict[tuple[str, int], list[bool]], key: tuple[str, int]) -> dict[str, list[bool]]:
    """`retest` (vote i is a test-retest repeat of its worker's vote, asked for on purpose) on items that have one."""
    return {"retest": retests[key]} if key in retests else {}


def _record(response: Response, qa: QA, votes: dict, adjudicated: AdjudicatedLabel | None = None) -> dict[str, Any]:
    tokens = response.tokens or []
    ok = qa.answer_end <= len(tokens)
    majority, raw = votes.get(("qa", qa.pk), (None, []))
    key = source_key(response)
    record = {
        "source_id": str(key),
        "response_id": response.external_id,
        "system": response.system,
        "dataset": (response.metadata or {}).get("dataset"),
        "predicate": qa.predicate.text,
        "predicate_index": qa.predicate.token_index,
        "question": qa.question,
        "answer": qa.answer,
        "answer_start": qa.answer_start,
        "answer_end": qa.answer_end,
        "answer_char_start": tokens[qa.answer_start][1] if ok else None,
        "answer_char_end": tokens[qa.answer_end - 1][2] if ok else None,
        "label": majority,
        "votes": raw,
        "split": split_of(key),
    }
    if adjudicated is not None:  # the expert's label is the gold; the crowd's majority stays beside it
        record["label"] = adjudicated.value
        record["majority"] = majority
        record["adjudication"] = adjudicated.provenance()
    return record


def span_lines(project: Project, *, chunk_size: int = CHUNK, with_platform_ids: bool = False) -> Iterator[str]:
    """One JSON line (no newline) per answer span, grouped by response in response order: the span level as
    export_lines writes the QA level (majority `label`, `votes`, `workers`, split by source, adjudication)."""
    responses = Response.objects.filter(project=project).select_related("source")
    for chunk in iter_chunks(responses, chunk_size):
        by_id = {r.pk: r for r in chunk}
        spans = list(AnswerSpan.objects.filter(response_id__in=list(by_id)).order_by("response_id", "order", "start", "id"))
        ids = [s.pk for s in spans]
        rows = level_votes("span", ids)
        votes, sure = majorities(rows), certainty(rows)  # sure: posterior, its interval, soft label per item
        who = vote_workers(rows, with_platform_ids=with_platform_ids)
        adjudicated = AdjudicatedLabel.of_items("span", ids)
        links: dict[int, list[int]] = {}
        for span_id, qa_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=ids).order_by("qa_id").values_list(
                "answerspan_id", "qa_id"):
            links.setdefault(span_id, []).append(qa_id)
        retests = retest_marks(rows)
        for span in spans:
            record = _span_record(by_id[span.response_id], span, votes, adjudicated.get(span.pk), links.get(span.pk, []))
            yield json.dumps({**record, **sure.get(("span", span.pk), {}), "workers": who.get(("span", span.pk), []),
                              **_retest(retests, ("span", span.pk))},
                             ensure_ascii=False)


def _span_record(response: Response, span: AnswerSpan, votes: dict, adjudicated: AdjudicatedLabel | None,
                 qa_ids: list[int]) -> dict[str, Any]:
    tokens = response.tokens or []
    ok = span.end <= len(tokens)
    majority, raw = votes.get(("span", span.pk), (None, []))
    key = source_key(response)
    record = {
        "source_id": str(key),
        "response_id": response.external_id,
        "system": response.system,
        "dataset": (response.metadata or {}).get("dataset"),
        "span_id": span.external_id or str(span.pk),
        "text": span.text,
        "span_start": span.start,
        "span_end": span.end,
        "span_char_start": tokens[span.start][1] if ok else None,
        "span_char_end": tokens[span.end - 1][2] if ok else None,
        "qa_count": len(qa_ids),
        "label": majority,
        "votes": raw,
        "split": split_of(key),
    }
    if adjudicated is not None:
        record["label"] = adjudicated.value
        record["majority"] = majority
        record["adjudication"] = adjudicated.provenance()
    return record
