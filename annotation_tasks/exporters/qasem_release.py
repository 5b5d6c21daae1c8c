"""Gold JSONL in the QASemConsistency release schema: one line per response.

`annotations` carries the raw per-worker votes (release polarity: QA 1 = not supported, span 1 = covered) in
assignment order, only of counted work (rejected and not yet verified work is no vote), so items of one line may
carry different numbers of votes (a response split over units by the caps); with include_majority each QA and
span also gets `majority` (same polarity), and an item an expert adjudicated gets `adjudication` (the decision
and its provenance, AdjudicatedLabel.provenance()): import_qasem_release reads all of it back. Lines that came
from a release file are rebuilt from what the importer kept (key order, raw ids and types, span qaIds that no
QA has, extra keys) and serialised like the release (compact, ASCII, "/" escaped), so a release file exported
without majorities is the same bytes.
"""
from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from annotation_tasks.exporters.base import CHUNK, id_list, iter_chunks, level_votes, majorities, retest_marks
from annotation_tasks.importers.qasem_release import QA_KEYS, SPAN_KEYS
from annotation_tasks.importers.tokenize import tokenize
from annotation_tasks.models import QA, AdjudicatedLabel, AnswerSpan, Predicate, Project, Response

KIND_POS = {Predicate.Kind.VERBAL: "VERB", Predicate.Kind.NOMINAL: "NOUN", Predicate.Kind.COPULAR: "AUX"}
DEFAULT_KEYS = ["source_id", "source", "summary", "model", "datasource", "dataset", "cliff_labels", "qas", "spans"]


def dumps(obj: Any) -> str:
    """The release's own serialisation: compact separators, ASCII escapes, and "\\/" for "/"."""
    return json.dumps(obj, separators=(",", ":")).replace("/", "\\/")


class _Pred(NamedTuple):
    """A predicate's columns the release line reads (plain values: no model instance per row)."""

    id: int
    sentence_index: int
    token_index: int
    pos: str
    kind: str
    text: str

    @property
    def pk(self) -> int:
        return self.id


class _QA(NamedTuple):
    id: int
    response_id: int
    predicate_id: int
    validity: str
    metadata: dict
    external_id: str
    question: str
    answer_start: int
    answer_end: int
    answer: str

    @property
    def pk(self) -> int:
        return self.id


class _Span(NamedTuple):
    id: int
    response_id: int
    external_id: str
    start: int
    end: int

    @property
    def pk(self) -> int:
        return self.id


def export_lines(project: Project, *, include_majority: bool = True, chunk_size: int = CHUNK) -> Iterator[str]:
    """One JSON line (no newline) per response of the project, in response order."""
    responses = Response.objects.filter(project=project).select_related("source")
    for chunk in iter_chunks(responses, chunk_size):
        yield from _chunk_lines(chunk, include_majority)


def _chunk_lines(chunk: list[Response], include_majority: bool) -> Iterator[str]:
    ids = [r.pk for r in chunk]
    preds = {row[0]: _Pred(*row) for row in Predicate.objects.filter(response_id__in=id_list(ids)).order_by()
             .values_list(*_Pred._fields)}
    qas: dict[int, list[_QA]] = defaultdict(list)
    invalid: dict[int, set] = defaultdict(set)  # release ids of QAs the expert step rejected, per response
    for qa in map(_QA._make, QA.objects.filter(response_id__in=id_list(ids)).order_by("response_id", "order", "id")
                  .values_list(*_QA._fields)):
        if qa.validity == QA.Validity.INVALID:
            invalid[qa.response_id].add(qa.metadata.get("qa_id", qa.external_id or qa.pk))
        else:
            qas[qa.response_id].append(qa)
    spans: dict[int, list[_Span]] = defaultdict(list)
    for span in map(_Span._make, AnswerSpan.objects.filter(response_id__in=id_list(ids))
                    .order_by("response_id", "order", "start", "id").values_list(*_Span._fields)):
        spans[span.response_id].append(span)
    links: dict[int, set[int]] = defaultdict(set)
    # Filter child rows by their own keys (not through a join on response): the planner then uses the
    # index and a chunk's cost stays independent of the project's size.
    qa_ids = [qa.pk for lst in qas.values() for qa in lst]
    span_ids = [s.pk for lst in spans.values() for s in lst]
    for span_id, qa_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=id_list(span_ids)).values_list(
        "answerspan_id", "qa_id"
    ):
        links[span_id].add(qa_id)
    rows = level_votes("qa", qa_ids) + level_votes("span", span_ids)
    votes, retests = majorities(rows), retest_marks(rows)
    if retests:  # a test-retest repeat is marked (`retest`) and not counted twice: the majority of the first votes
        voters: dict[tuple[str, int], list[int]] = defaultdict(list)
        for r in rows:
            voters[(r[0], int(r[1]))].append(r[2])
        repeats = {(key, a) for key, marks in retests.items()
                   for a, mark in zip(sorted(voters[key]), marks, strict=True) if mark}
        firsts = majorities([r for r in rows if ((r[0], int(r[1])), r[2]) not in repeats])
        votes = {key: (firsts.get(key, (None, []))[0], raw) for key, (_m, raw) in votes.items()}
    decided = {("qa", k): v for k, v in AdjudicatedLabel.of_items("qa", id_list(qa_ids)).items()}
    decided.update({("span", k): v for k, v in AdjudicatedLabel.of_items("span", id_list(span_ids)).items()})
    for response in chunk:
        yield dumps(
            _record(response, preds, qas[response.pk], spans[response.pk], links, (votes, decided, retests),
                    include_majority,
                    invalid[response.pk])
        )


def _qa_polarity(label: str | None) -> int | None:
    return None if label is None else int(label == "not_supported")


def _span_polarity(label: str | None) -> int | None:
    return None if label is None else int(label == "covered")


def _record(
    response: Response,
    preds: dict[int, _Pred],
    qas: list[_QA],
    spans: list[_Span],
    links: dict[int, set[int]],
    votes: tuple[dict, dict, dict],
    include_majority: bool,
    invalid: set,
) -> dict[str, Any]:
    """The release line of one response; QAs marked invalid by the expert step are left out. `votes`: the
    majorities and the adjudicated labels, by (level, item id)."""
    meta = response.metadata or {}
    source = response.source
    tokens = [t[0] for t in response.tokens]
    shape = meta.get("summary_shape") or ("sentences" if response.sentences else "flat")
    if shape == "sentences" and response.sentences:
        summary: list = [tokens[s["start"] : s["end"]] for s in response.sentences]
    else:
        summary = tokens
    source_tokens = source.tokens if source.tokens is not None else [t[0] for t in tokenize(source.text)]
    qa_release_id = {qa.pk: qa.metadata.get("qa_id", qa.external_id or qa.pk) for qa in qas}
    values: dict[str, Any] = {
        "source_id": meta.get("source_id", (source.metadata or {}).get("source_id", source.external_id)),
        "source": source_tokens,
        "summary": summary,
        "model": meta.get("model", response.system),
        "qas": [_qa(qa, preds[qa.predicate_id], votes, include_majority) for qa in qas],
        "spans": [_span(s, meta.get("spans", {}), links, qa_release_id, votes, include_majority, invalid) for s in spans],
    }
    extra = meta.get("release_extra", {})
    keys = meta.get("release_keys") or []
    if "summary" not in keys:  # not imported from a release (or from another format, e.g. FActScore's keys)
        keys, extra = [k for k in DEFAULT_KEYS if k in values or k in meta], {}
    out = {}
    for key in keys:
        if key in values:
            out[key] = values[key]
        elif key in meta:
            out[key] = meta[key]
        elif key in extra:
            out[key] = extra[key]
    return out


def _in_release_order(values: dict[str, Any], meta: dict, default_keys: Sequence[str], raw: list) -> dict[str, Any]:
    """A QA or span record in the release's own key order (`default_keys` when not imported from a release),
    with `annotations` added when there are votes; a key we have no value for comes from the imported metadata."""
    keys = list(meta.get("release_keys") or default_keys)
    if raw and "annotations" not in keys:
        keys.append("annotations")
    return {k: values[k] if k in values else meta.get(k) for k in keys}


def _derived(out: dict[str, Any], key: tuple[str, int], votes: tuple[dict, dict, dict], include_majority: bool,
             polarity: Any) -> dict[str, Any]:
    """`majority` (on request), `adjudication` (when an expert decided) and `retest` (vote i is a test-retest
    repeat, on items that have one) after the record's own keys."""
    if include_majority:
        out["majority"] = polarity(votes[0].get(key, (None, []))[0])
    if key in votes[2]:
        out["retest"] = votes[2][key]
    if key in votes[1]:
        out["adjudication"] = votes[1][key].provenance()
    return out


def _qa(qa: _QA, pred: _Pred, votes: tuple[dict, dict, dict], include_majority: bool) -> dict[str, Any]:
    meta = qa.metadata or {}
    _majority, raw = votes[0].get(("qa", qa.pk), (None, []))
    values: dict[str, Any] = {
        "qa_id": meta.get("qa_id", qa.external_id or qa.pk),
        "sent_id": pred.sentence_index,
        "predicate_idx": pred.token_index,
        "predicate_pos": pred.pos or KIND_POS.get(pred.kind, "VERB"),
        "predicate": pred.text,
        "question": qa.question,
        "answer_idx": f"{qa.answer_start}-{qa.answer_end}",
        "answer": qa.answer,
        "annotations": [_qa_polarity(v) for v in raw],
    }
    return _derived(_in_release_order(values, meta, QA_KEYS, raw), ("qa", qa.pk), votes, include_majority,
                    _qa_polarity)


def _span(
    span: _Span,
    span_meta: dict[str, Any],
    links: dict[int, set[int]],
    qa_release_id: dict[int, Any],
    votes: tuple[dict, dict, dict],
    include_majority: bool,
    invalid: set,
) -> dict[str, Any]:
    meta = span_meta.get(span.external_id, {}) if span.external_id else {}
    _majority, raw = votes[0].get(("span", span.pk), (None, []))
    linked = [qa_release_id[pk] for pk in qa_release_id if pk in links.get(span.pk, ())]  # in QA order
    kept = meta.get("qaIds")
    # The release's qaIds (own order, ids no QA has) stand while the links they describe are unchanged.
    known = set(qa_release_id.values())
    if kept is None or {x for x in kept if x in known} != set(linked) or any(x in invalid for x in kept):
        kept = linked
    values: dict[str, Any] = {
        "id": meta.get("id", span.external_id or span.pk),
        "start": span.start,
        "end": span.end,
        "qaIds": kept,
        "annotations": [_span_polarity(v) for v in raw],
    }
    return _derived(_in_release_order(values, meta, SPAN_KEYS, raw), ("span", span.pk), votes, include_majority,
                    _span_polarity)
