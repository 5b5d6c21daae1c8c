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

from collections.abc import Iterator
from typing import Any, NamedTuple

from django.db.models import TextField
from django.db.models.functions import Cast

from annotation_tasks.analysis.splits import split_of
from annotation_tasks.exporters.base import chunk_votes, id_list, iter_value_chunks
from annotation_tasks.exporters.certainty import majorities_and_certainty
from annotation_tasks.exporters.jsontext import json_line, json_value
from annotation_tasks.models import QA, AdjudicatedLabel, AnswerSpan, Project, Response

UNLABELLED = ("no counted vote and no expert decision: `label` is null, `votes` and `workers` are empty (not done "
              "yet, or its only work was rejected or not yet verified by its platform)")


class _Response(NamedTuple):
    """The columns of a response the per-QA and per-span lines read (plain values: no model instance per row)."""

    pk: int
    external_id: str
    system: str
    metadata: dict | None
    tokens: list | None
    source_metadata: dict | None
    source_external_id: str


class _QA(NamedTuple):
    pk: int
    response_id: int
    question: str
    answer: str
    answer_start: int
    answer_end: int
    predicate_text: str
    predicate_index: int


RESPONSES_PER_CHUNK = 1_000  # ~3k QAs and ~9k votes a chunk: few round trips, a few MB held
RESPONSE_FIELDS = ("id", "external_id", "system", "metadata", "tokens", "source__metadata", "source__external_id")
QA_FIELDS = ("id", "response_id", "question", "answer", "answer_start", "answer_end", "predicate__text",
             "predicate__token_index")


def source_key(response: Response | _Response) -> Any:
    """The id a split is taken on: the release's raw source id when imported, else the source's external id."""
    if isinstance(response, _Response):
        source_meta, source_external = response.source_metadata, response.source_external_id
    else:
        source_meta, source_external = response.source.metadata, response.source.external_id
    return (response.metadata or {}).get("source_id", (source_meta or {}).get("source_id", source_external))


def _response_chunks(project: Project, chunk_size: int) -> Iterator[list[_Response]]:
    """The project's responses as _Response rows, a chunk at a time. The tokens come as JSON text decoded here:
    Django's JSONField converter took ~0.7 s more per pass over 10^5 responses (two passes for a dataset)."""
    responses = Response.objects.filter(project=project).annotate(tokens_text=Cast("tokens", TextField()))
    fields = tuple("tokens_text" if f == "tokens" else f for f in RESPONSE_FIELDS)
    at = fields.index("tokens_text")
    loads = json_value
    for rows in iter_value_chunks(responses, fields, chunk_size):
        yield [_Response(*row[:at], loads(row[at]) if row[at] is not None else None, *row[at + 1:]) for row in rows]


def export_lines(project: Project, *, chunk_size: int = RESPONSES_PER_CHUNK,
                 with_platform_ids: bool = False) -> Iterator[str]:
    """export_records as compact JSON lines (no newline; base.json_line)."""
    for record in export_records(project, chunk_size=chunk_size, with_platform_ids=with_platform_ids):
        yield json_line(record)


class _Shared(NamedTuple):
    """What every line of one response repeats: its leading fields and its split, computed once per response."""

    source_id: str
    response_id: str
    system: str
    dataset: Any
    split: str
    tokens: list


def _shared(response: _Response) -> _Shared:
    key = source_key(response)
    return _Shared(str(key), response.external_id, response.system, (response.metadata or {}).get("dataset"),
                   split_of(key), response.tokens or [])


def export_records(project: Project, *, chunk_size: int = RESPONSES_PER_CHUNK,
                   with_platform_ids: bool = False) -> Iterator[dict[str, Any]]:
    """One record per QA, grouped by response in response order. `workers` names who cast each
    vote (workers[i] cast votes[i]) by pseudonymous id; platform ids are added only `with_platform_ids`.
    Rows are read as plain values a chunk of responses at a time, with a fixed number of queries per chunk
    (responses, QAs, labels, their assignments, adjudications), and each record is one dict literal in the
    format's key order (what _record plus the certainty, workers and retest fields give)."""
    for chunk in _response_chunks(project, chunk_size):
        shared = {r.pk: _shared(r) for r in chunk}
        qas = [_QA(*row) for row in
               QA.objects.filter(response_id__in=id_list(shared))
               .exclude(validity=QA.Validity.INVALID)  # rejected by the expert step: not part of the judged set
               .order_by("response_id", "order", "id").values_list(*QA_FIELDS)]
        got = chunk_votes("qa", [qa.pk for qa in qas], with_platform_ids=with_platform_ids)
        votes, sure = majorities_and_certainty(got.rows)  # sure: posterior, its interval, soft label per item
        who, retests = got.workers, got.retests
        adjudicated = AdjudicatedLabel.of_items("qa", id_list(qa.pk for qa in qas))
        for qa in qas:
            key = ("qa", qa.pk)
            r = shared[qa.response_id]
            ok = qa.answer_end <= len(r.tokens)
            majority, raw = votes.get(key, (None, []))
            record = {
                "source_id": r.source_id, "response_id": r.response_id, "system": r.system, "dataset": r.dataset,
                "predicate": qa.predicate_text, "predicate_index": qa.predicate_index, "question": qa.question,
                "answer": qa.answer, "answer_start": qa.answer_start, "answer_end": qa.answer_end,
                "answer_char_start": r.tokens[qa.answer_start][1] if ok else None,
                "answer_char_end": r.tokens[qa.answer_end - 1][2] if ok else None,
                "label": majority, "votes": raw, "split": r.split,
            }
            decided = adjudicated.get(qa.pk)
            if decided is not None:  # the expert's label is the gold; the crowd's majority stays beside it
                record["label"] = decided.value
                record["majority"] = majority
                record["adjudication"] = decided.provenance()
            fields = sure.get(key)
            if fields:
                record.update(fields)
            record["workers"] = who.get(key, [])
            if key in retests:
                record["retest"] = retests[key]
            yield record


def _retest(retests: dict[tuple[str, int], list[bool]], key: tuple[str, int]) -> dict[str, list[bool]]:
    """`retest` (vote i is a test-retest repeat of its worker's vote, asked for on purpose) on items that have one."""
    return {"retest": retests[key]} if key in retests else {}


def _record(response: _Response, qa: _QA, votes: dict, adjudicated: AdjudicatedLabel | None = None,
            key: Any = None) -> dict[str, Any]:
    tokens = response.tokens or []
    ok = qa.answer_end <= len(tokens)
    majority, raw = votes.get(("qa", qa.pk), (None, []))
    key = source_key(response) if key is None else key
    record = {
        "source_id": str(key),
        "response_id": response.external_id,
        "system": response.system,
        "dataset": (response.metadata or {}).get("dataset"),
        "predicate": qa.predicate_text,
        "predicate_index": qa.predicate_index,
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


def span_lines(project: Project, *, chunk_size: int = RESPONSES_PER_CHUNK,
               with_platform_ids: bool = False) -> Iterator[str]:
    """span_records as compact JSON lines (no newline; base.json_line)."""
    for record in span_records(project, chunk_size=chunk_size, with_platform_ids=with_platform_ids):
        yield json_line(record)


def span_records(project: Project, *, chunk_size: int = RESPONSES_PER_CHUNK,
                 with_platform_ids: bool = False) -> Iterator[dict[str, Any]]:
    """One record per answer span, grouped by response in response order: the span level as
    export_lines writes the QA level (majority `label`, `votes`, `workers`, split by source, adjudication)."""
    for chunk in _response_chunks(project, chunk_size):
        by_id = {r.pk: r for r in chunk}
        spans = [_Span(*row) for row in AnswerSpan.objects.filter(response_id__in=id_list(by_id))
                 .order_by("response_id", "order", "start", "id").values_list(*SPAN_FIELDS)]
        ids = [s.pk for s in spans]
        got = chunk_votes("span", ids, with_platform_ids=with_platform_ids)
        votes, sure = majorities_and_certainty(got.rows)  # sure: posterior, its interval, soft label per item
        who, retests = got.workers, got.retests
        adjudicated = AdjudicatedLabel.of_items("span", id_list(ids))
        links: dict[int, list[int]] = {}
        for span_id, qa_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=id_list(ids)).order_by("qa_id").values_list(
                "answerspan_id", "qa_id"):
            links.setdefault(span_id, []).append(qa_id)
        keys = {pk: source_key(r) for pk, r in by_id.items()}
        for span in spans:
            record = _span_record(by_id[span.response_id], span, votes, adjudicated.get(span.pk), links.get(span.pk, []),
                                  keys[span.response_id])
            key = ("span", span.pk)
            yield {**record, **sure.get(key, {}), "workers": who.get(key, []), **_retest(retests, key)}


class _Span(NamedTuple):
    pk: int
    response_id: int
    external_id: str
    text: str
    start: int
    end: int


SPAN_FIELDS = ("id", "response_id", "external_id", "text", "start", "end")


def _span_record(response: _Response, span: _Span, votes: dict, adjudicated: AdjudicatedLabel | None,
                 qa_ids: list[int], key: Any = None) -> dict[str, Any]:
    tokens = response.tokens or []
    ok = span.end <= len(tokens)
    majority, raw = votes.get(("span", span.pk), (None, []))
    key = source_key(response) if key is None else key
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
