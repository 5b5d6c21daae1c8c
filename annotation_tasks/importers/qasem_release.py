"""QASemConsistency release format (one JSON object per line) → sources, responses, QAs, spans, labels.

Representation (the analysis relies on it):
- Source.external_id = str(source_id); when one source_id carries different token lists on different
  lines (the verifiability subset retrieves evidence per response), later variants get
  f"{source_id}#{sha1(tokens)[:12]}" so every source keeps its own text. Source.metadata["source_id"] keeps
  the raw id (and its JSON type) for export and for the split by source.
- One Response per line: external_id f"{source_id}:{model}", system = model, text = tokens joined by spaces.
- Everything else a line holds (dataset, datasource, cliff_labels, unknown keys, key order, the raw span
  qaIds including ids no QA has) goes to metadata, so export restores the line byte for byte.
- Labels: one Unit per source, one Assignment per anonymous worker position k (as many as the item with the
  most votes): vote k of every QA and span is position k's. Items may carry fewer votes than others (a rejected
  assignment, a response split over two units by the unit caps, work not yet verified: the app's own exports
  look like that), so uneven vote counts are read as they are. Polarity is converted here, at the edge: QA
  annotation 0 = supported, span annotation 1 = covered.
- `majority` (written by our export) is derived, never stored; `adjudication` (our export's expert decision)
  becomes an AdjudicatedLabel (importers/adjudications.py), so export then import loses nothing.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation_tasks.importers import adjudications
from annotation_tasks.importers.base import ErrorCollector, Where, check_str_list, check_type, read_jsonl, require
from annotation_tasks.importers.common import (
    BULK,
    IMPORTED,
    ImportResult,
    existing_response_ids,
    import_batch,
    imported_workers,
    offsets_for,
    sources_by_external_id,
    start_import,
)
from annotation_tasks.models import (
    QA,
    AdjudicatedLabel,
    AnswerSpan,
    Assignment,
    Predicate,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    UnitResponse,
)
from annotation_tasks.models.projects import Protocol

PROTOCOL = [Protocol.SPAN_COVERAGE.value, Protocol.QA_SUPPORT.value]
LINE_KEYS = ("source_id", "source", "summary", "model", "qas", "spans")
META_KEYS = ("dataset", "datasource", "cliff_labels")  # kept under their own names in Response.metadata
_PER_ITEM_MODEL = re.compile(r"^[0-9a-f]{64}-(?P<system>.+?)(?:_\d+)?$")


def system_of(model: str) -> str:
    """The generating system of a release line.

    The verifiability part names its model per item ("<sha256 of the query>-perplexity_1846"); grouping by that
    would give one "system" per response, so the system is the engine name inside it. The raw value stays in
    Response.metadata["model"] for the round trip.
    """
    match = _PER_ITEM_MODEL.match(model)
    return match.group("system") if match else model
QA_KEYS = (
    "qa_id", "sent_id", "predicate_idx", "predicate_pos", "predicate", "question", "answer_idx", "answer", "annotations"
)
SPAN_KEYS = ("id", "start", "end", "qaIds", "annotations")
DERIVED_KEYS = ("majority", "adjudication")  # written by our export after `annotations`; read, never kept as extras
QA_LABELS = ("supported", "not_supported")
SPAN_LABELS = ("covered", "not_covered")
POS_KIND = {"VERB": Predicate.Kind.VERBAL, "NOUN": Predicate.Kind.NOMINAL, "AUX": Predicate.Kind.COPULAR}
ANSWER_IDX = re.compile(r"^(\d+)-(\d+)$")
WORKER_PREFIX = "qasem-release"


@dataclass
class QARecord:
    qa_id: int | str
    sent_id: int
    predicate_idx: int
    predicate_pos: str
    predicate: str
    question: str
    answer_start: int
    answer_end: int
    answer: str
    annotations: list[int] | None
    keys: list[str]
    extra: dict[str, Any]
    adjudication: adjudications.Decision | None = None


@dataclass
class SpanRecord:
    id: int | str
    start: int
    end: int
    qa_ids: list
    annotations: list[int] | None
    keys: list[str]
    extra: dict[str, Any]
    adjudication: adjudications.Decision | None = None


@dataclass
class LineRecord:
    line: int
    source_id: int | str
    source_tokens: list[str]
    sentences: list[list[str]]
    shape: str  # "sentences" or "flat"
    model: str
    keys: list[str]
    meta: dict[str, Any]
    extra: dict[str, Any]
    qas: list[QARecord] = field(default_factory=list)
    spans: list[SpanRecord] = field(default_factory=list)

    @property
    def sid(self) -> str:
        return str(self.source_id)

    @property
    def response_external_id(self) -> str:
        return f"{self.sid}:{self.model}"

    @property
    def n_tokens(self) -> int:
        return sum(len(s) for s in self.sentences)


# ---------------------------------------------------------------- read + validate


CHUNK_LINES = 200
"""Lines parsed and written at a time: a release of thousands of lines (each line's QAs, spans and votes as
Python objects, then as model rows) held whole took 737 MB for 4,144 lines (issue 25); a chunk is all an
import holds now."""


@dataclass
class Release:
    """A validated release file, read again a chunk of lines at a time to write (`chunks`): the records are not
    kept. `votes` is what writing needs to know of the whole file before its first chunk: per source (id,
    token digest), each line's response id and its most votes on an item (the unit's worker positions)."""

    path: Path
    lines: int = 0
    votes: dict[tuple[str, str], list[tuple[str, int]]] = field(default_factory=dict)

    def __len__(self) -> int:
        return self.lines

    def chunks(self, size: int | None = None) -> Iterator[list[LineRecord]]:
        """The records again, `size` lines at a time (the file was validated: it parses as it did)."""
        chunk: list[LineRecord] = []
        for lineno, obj in read_jsonl(self.path):
            chunk.append(parse_line(obj, Where(self.path.name, lineno)))
            if len(chunk) >= (size or CHUNK_LINES):
                yield chunk
                chunk = []
        if chunk:
            yield chunk


def _source_key(rec: LineRecord) -> tuple[str, str]:
    return rec.sid, _digest(rec.source_tokens)


def _most_votes(rec: LineRecord) -> int:
    return max([0, *(len(q.annotations or []) for q in rec.qas), *(len(s.annotations or []) for s in rec.spans)])


def read(path: Path) -> Release:
    """Validate every line of the file in one streaming pass, keeping only what writing needs (Release.votes);
    raises ImportErrors listing every bad line (the first MAX_ERRORS), each located by file, line and field."""
    release = Release(path)
    seen: dict[str, int] = {}
    errors = ErrorCollector()
    for lineno, obj in read_jsonl(path, errors):
        with errors.line():
            rec = parse_line(obj, Where(path.name, lineno))
            if rec.response_external_id in seen:
                raise Where(path.name, lineno, "model").error(
                    f"response {rec.response_external_id!r} (source_id + model) already on line "
                    f"{seen[rec.response_external_id]}"
                )
            seen[rec.response_external_id] = lineno
            release.votes.setdefault(_source_key(rec), []).append((rec.response_external_id, _most_votes(rec)))
            release.lines += 1
    errors.check()
    return release


def parse_line(obj: Any, where: Where) -> LineRecord:
    """One release line → LineRecord, checking every index against the summary's tokens."""
    check_type(obj, where, dict)
    source_id = require(obj, "source_id", where, int, str)
    source = check_str_list(require(obj, "source", where, list), where.child("source"))
    summary = require(obj, "summary", where, list)
    if summary and all(isinstance(s, list) for s in summary):
        sentences = [check_str_list(s, where.child("summary").child(i)) for i, s in enumerate(summary)]
        shape = "sentences"
    else:
        sentences = [check_str_list(summary, where.child("summary"))]
        shape = "flat"
    model = require(obj, "model", where, str)
    if not model:
        raise where.child("model").error("empty model name")
    _bounded(model, 200, where.child("model"))
    if len(f"{source_id}:{model}") > 255 - 13:  # room for a "#<digest>" source variant
        raise where.child("source_id").error("source_id and model together are longer than 242 characters")
    meta = {k: obj[k] for k in META_KEYS if k in obj}
    for k in ("dataset", "datasource"):
        if k in meta:
            check_type(meta[k], where.child(k), str)
    extra = {k: v for k, v in obj.items() if k not in LINE_KEYS and k not in META_KEYS}
    rec = LineRecord(
        line=where.line or 0,
        source_id=source_id,
        source_tokens=source,
        sentences=sentences,
        shape=shape,
        model=model,
        keys=list(obj.keys()),
        meta=meta,
        extra=extra,
    )
    n_tok = rec.n_tokens
    qa_ids: set = set()
    for i, qa in enumerate(require(obj, "qas", where, list)):
        q = _parse_qa(qa, where.child("qas").child(i), n_tok, len(sentences) if shape == "sentences" else 0)
        if q.qa_id in qa_ids:
            raise where.child("qas").child(i).child("qa_id").error(f"duplicate qa_id {q.qa_id!r}")
        qa_ids.add(q.qa_id)
        rec.qas.append(q)
    _check_predicates(rec, where)
    span_ids: set = set()
    for i, span in enumerate(require(obj, "spans", where, list)):
        s = _parse_span(span, where.child("spans").child(i), n_tok)
        if s.id in span_ids:
            raise where.child("spans").child(i).child("id").error(f"duplicate span id {s.id!r}")
        span_ids.add(s.id)
        rec.spans.append(s)
    return rec


def _kept_keys(obj: dict) -> list[str]:
    """The record's keys in file order, less what our export derives (kept keys are written back as they were)."""
    return [k for k in obj if k not in DERIVED_KEYS]


def _adjudication(obj: dict, where: Where, labels: tuple[str, ...]) -> adjudications.Decision | None:
    if obj.get("adjudication") is None:
        return None
    return adjudications.parse(obj["adjudication"], where.child("adjudication"), labels)


def _parse_qa(qa: Any, where: Where, n_tok: int, n_sent: int) -> QARecord:
    check_type(qa, where, dict)
    qa_id = require(qa, "qa_id", where, int, str)
    sent_id = require(qa, "sent_id", where, int)
    # A flat summary (verifiability) has no sentence list, yet its sent_ids count the text's sentences.
    if sent_id < 0 or (n_sent and sent_id >= n_sent):
        raise where.child("sent_id").error(f"sentence index {sent_id} out of range (summary has {n_sent} sentences)")
    pidx = require(qa, "predicate_idx", where, int)
    if not 0 <= pidx < n_tok:
        raise where.child("predicate_idx").error(f"token index {pidx} out of range (summary has {n_tok} tokens)")
    pos = require(qa, "predicate_pos", where, str)
    if pos not in POS_KIND:
        raise where.child("predicate_pos").error(f"unknown label {pos!r} (expected one of {', '.join(POS_KIND)})")
    answer_idx = require(qa, "answer_idx", where, str)
    m = ANSWER_IDX.match(answer_idx)
    if not m or f"{int(m[1])}-{int(m[2])}" != answer_idx:
        raise where.child("answer_idx").error(f"expected 'start-end' token indices, got {answer_idx!r}")
    start, end = int(m[1]), int(m[2])
    if not start < end <= n_tok:
        raise where.child("answer_idx").error(
            f"token index out of range: {answer_idx} (need start < end <= {n_tok}, the summary's token count)"
        )
    return QARecord(
        qa_id=qa_id,
        sent_id=sent_id,
        predicate_idx=pidx,
        predicate_pos=pos,
        predicate=_bounded(require(qa, "predicate", where, str), 200, where.child("predicate")),
        question=_bounded(require(qa, "question", where, str), 500, where.child("question")),
        answer_start=start,
        answer_end=end,
        answer=_bounded(require(qa, "answer", where, str), 1000, where.child("answer")),
        annotations=_parse_votes(qa, where, "QA annotations are 0 = supported, 1 = not supported"),
        keys=_kept_keys(qa),
        extra={k: v for k, v in qa.items() if k not in QA_KEYS and k not in DERIVED_KEYS},
        adjudication=_adjudication(qa, where, QA_LABELS),
    )


def _parse_span(span: Any, where: Where, n_tok: int) -> SpanRecord:
    check_type(span, where, dict)
    span_id = require(span, "id", where, int, str)
    start = require(span, "start", where, int)
    end = require(span, "end", where, int)
    if not 0 <= start < end <= n_tok:
        raise where.child("end" if end > n_tok or end <= start else "start").error(
            f"token index out of range: {start}-{end} (need 0 <= start < end <= {n_tok}, the summary's token count)"
        )
    qa_ids = require(span, "qaIds", where, list)
    for i, x in enumerate(qa_ids):
        check_type(x, where.child("qaIds").child(i), int, str)
    return SpanRecord(
        id=span_id,
        start=start,
        end=end,
        qa_ids=qa_ids,
        annotations=_parse_votes(span, where, "span annotations are 1 = covered, 0 = not covered"),
        keys=_kept_keys(span),
        extra={k: v for k, v in span.items() if k not in SPAN_KEYS and k not in DERIVED_KEYS},
        adjudication=_adjudication(span, where, SPAN_LABELS),
    )


def _parse_votes(obj: dict, where: Where, polarity: str) -> list[int] | None:
    """The per-worker votes; absent means the item is not labelled yet (e.g. demo content)."""
    if "annotations" not in obj:
        return None
    votes = check_type(obj["annotations"], where.child("annotations"), list)
    for k, v in enumerate(votes):
        check_type(v, where.child("annotations").child(k), int)
        if v not in (0, 1):
            raise where.child("annotations").child(k).error(f"unknown label {v!r} ({polarity})")
    return votes


def _bounded(value: str, limit: int, where: Where) -> str:
    if len(value) > limit:
        raise where.error(f"longer than {limit} characters")
    return value


def _check_predicates(rec: LineRecord, where: Where) -> None:
    """QAs of one predicate token must agree on its text, POS and sentence (one Predicate row each)."""
    first: dict[int, tuple[int, tuple]] = {}
    for i, q in enumerate(rec.qas):
        sig = (q.predicate, q.predicate_pos, q.sent_id)
        if q.predicate_idx in first and first[q.predicate_idx][1] != sig:
            j = first[q.predicate_idx][0]
            raise where.child("qas").child(i).error(
                f"predicate at token {q.predicate_idx} disagrees with qas[{j}] (predicate, predicate_pos, sent_id)"
            )
        first.setdefault(q.predicate_idx, (i, sig))


# ---------------------------------------------------------------- write


def _digest(tokens: list[str]) -> str:
    return hashlib.sha1(json.dumps(tokens, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]


def _resolve_sources(project: Project, records: list[LineRecord]) -> tuple[dict[tuple[str, str], Source], list[Source]]:
    """Map (source_id, token digest) → Source, reusing rows already in the project; returns new rows unsaved."""
    keys = {(r.sid, _digest(r.source_tokens)): r for r in records}
    candidates = {sid for sid, _ in keys} | {f"{sid}#{d}" for sid, d in keys}
    db = sources_by_external_id(project, candidates)
    resolved: dict[tuple[str, str], Source] = {}
    new: list[Source] = []
    claimed: set[str] = set()
    for (sid, digest), rec in keys.items():
        plain, alt = sid, f"{sid}#{digest}"
        if plain in db and db[plain].tokens == rec.source_tokens:
            resolved[(sid, digest)] = db[plain]
            continue
        if alt in db:
            resolved[(sid, digest)] = db[alt]
            continue
        ext = plain if plain not in db and plain not in claimed else alt
        claimed.add(ext)
        source = Source(
            project=project,
            external_id=ext,
            text=" ".join(rec.source_tokens),
            tokens=rec.source_tokens,
            metadata={"source_id": rec.source_id},
        )
        resolved[(sid, digest)] = source
        new.append(source)
    return resolved, new


@dataclass
class _Units:
    """The import batch's units as chunks write them: one unit per source of the file (its lines in any chunk),
    with as many approved assignments as its lines' most votes (known for the whole file before the first
    chunk: Release.votes), so a chunked import writes the rows a whole-file import wrote."""

    workers: dict[tuple[str, str], int]  # source key → worker positions; sources without votes get no unit
    batch: Any = None
    # ids only: a Unit row would keep its Source, with every token of the reference, alive to the end
    unit_of: dict[tuple[str, str], int] = field(default_factory=dict)
    slots: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    positions: dict[tuple[str, str], int] = field(default_factory=dict)


def write(project: Project, records: Release | list[LineRecord], file_name: str) -> ImportResult:
    """Create every row of the records not yet in the project, a chunk of lines at a time (a Release is parsed
    again chunk by chunk). Call inside transaction.atomic(): a failure in any chunk rolls back every chunk."""
    release = records if isinstance(records, Release) else None
    votes = release.votes if release is not None else _votes_of(records)
    existing = existing_response_ids(project, (rid for lines in votes.values() for rid, _ in lines))
    workers = {key: n for key, lines in votes.items() if (n := max([0, *(v for rid, v in lines if rid not in existing)]))}
    units = _Units(workers)
    result = ImportResult(file=file_name, lines=len(records))
    for chunk in (release.chunks() if release is not None else [records]):
        part, todo = start_import(project, chunk, file_name, lambda r: r.response_external_id,
                                  text_of=lambda r: " ".join(t for s in r.sentences for t in s),
                                  line_of=lambda r: r.line)
        result.skipped += part.skipped
        result.changed += part.changed
        if todo:
            _write_chunk(project, todo, file_name, result, units)
        del chunk, todo
    return result


def _votes_of(records: list[LineRecord]) -> dict[tuple[str, str], list[tuple[str, int]]]:
    out: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for rec in records:
        out.setdefault(_source_key(rec), []).append((rec.response_external_id, _most_votes(rec)))
    return out


def _write_chunk(project: Project, todo: list[LineRecord], file_name: str, result: ImportResult,
                 units: _Units) -> None:
    """Every row of these lines (none of them in the project yet)."""
    source_of, new_sources = _resolve_sources(project, todo)
    Source.objects.bulk_create(new_sources, batch_size=BULK)
    result.created["sources"] += len(new_sources)

    responses = []
    for r in todo:
        flat = [t for s in r.sentences for t in s]
        text, tokens = offsets_for(flat)
        sentences, pos = [], 0
        for s in r.sentences:
            sentences.append({"start": pos, "end": pos + len(s), "text": " ".join(s)})
            pos += len(s)
        metadata = {
            "source_id": r.source_id,
            "model": r.model,
            **r.meta,
            "summary_shape": r.shape,
            "release_keys": r.keys,
            "release_extra": r.extra,
            "spans": {str(s.id): {"id": s.id, "qaIds": s.qa_ids, "release_keys": s.keys, **s.extra} for s in r.spans},
        }
        responses.append(
            Response(
                project=project,
                source=source_of[(r.sid, _digest(r.source_tokens))],
                external_id=r.response_external_id,
                system=system_of(r.model),
                text=text,
                tokens=tokens,
                sentences=sentences,
                metadata=metadata,
            )
        )
    Response.objects.bulk_create(responses, batch_size=BULK)
    result.created["responses"] += len(responses)

    predicates: list[Predicate] = []
    pred_of: list[dict[int, Predicate]] = []
    for r, resp in zip(todo, responses, strict=True):
        by_idx: dict[int, Predicate] = {}
        for q in r.qas:
            if q.predicate_idx not in by_idx:
                kind = Predicate.Kind.COPULAR if q.extra.get("copula") is True else POS_KIND[q.predicate_pos]
                by_idx[q.predicate_idx] = Predicate(
                    response=resp,
                    token_index=q.predicate_idx,
                    text=q.predicate,
                    kind=kind,
                    pos=q.predicate_pos,
                    sentence_index=q.sent_id,
                    origin=IMPORTED,
                )
        predicates.extend(by_idx.values())
        pred_of.append(by_idx)
    Predicate.objects.bulk_create(predicates, batch_size=BULK)
    result.created["predicates"] += len(predicates)

    qas: list[QA] = []
    qa_rows: list[dict[Any, QA]] = []
    for r, resp, by_idx in zip(todo, responses, pred_of, strict=True):
        rows: dict[Any, QA] = {}
        for order, q in enumerate(r.qas):
            rows[q.qa_id] = QA(
                response=resp,
                predicate=by_idx[q.predicate_idx],
                external_id=str(q.qa_id),
                question=q.question,
                answer=q.answer,
                answer_start=q.answer_start,
                answer_end=q.answer_end,
                origin=IMPORTED,
                metadata={"qa_id": q.qa_id, "release_keys": q.keys, **q.extra},
                order=order,
            )
        qas.extend(rows.values())
        qa_rows.append(rows)
    QA.objects.bulk_create(qas, batch_size=BULK)
    result.created["qas"] += len(qas)

    spans: list[AnswerSpan] = []
    span_rows: list[list[AnswerSpan]] = []
    for r, resp in zip(todo, responses, strict=True):
        flat = [t for s in r.sentences for t in s]
        rows_s = [
            AnswerSpan(
                response=resp,
                external_id=str(s.id),
                start=s.start,
                end=s.end,
                text=" ".join(flat[s.start : s.end])[:1000],
                origin=IMPORTED,
                order=order,
            )
            for order, s in enumerate(r.spans)
        ]
        spans.extend(rows_s)
        span_rows.append(rows_s)
    AnswerSpan.objects.bulk_create(spans, batch_size=BULK)
    result.created["answer_spans"] += len(spans)
    links = []
    Through = AnswerSpan.qas.through
    for r, rows, rows_s in zip(todo, qa_rows, span_rows, strict=True):
        for s, row in zip(r.spans, rows_s, strict=True):
            linked = dict.fromkeys(x for x in s.qa_ids if x in rows)  # ids no QA of the line has stay in metadata
            links.extend(Through(answerspan_id=row.pk, qa_id=rows[x].pk) for x in linked)
    Through.objects.bulk_create(links, batch_size=BULK)

    _write_labels(project, todo, responses, qa_rows, span_rows, file_name, result, units)
    _write_adjudications(project, todo, qa_rows, span_rows, result)


def _write_adjudications(project: Project, todo: list[LineRecord], qa_rows: list[dict[Any, QA]],
                         span_rows: list[list[AnswerSpan]], result: ImportResult) -> None:
    """The experts' decisions the file carries (our export's `adjudication`), one AdjudicatedLabel per item."""
    rows: list[AdjudicatedLabel] = []
    for r, by_id, spans in zip(todo, qa_rows, span_rows, strict=True):
        rows += [adjudications.row(project, "qa", q.adjudication, qa=by_id[q.qa_id]) for q in r.qas if q.adjudication]
        rows += [adjudications.row(project, "span", s.adjudication, span=row)
                 for s, row in zip(r.spans, spans, strict=True) if s.adjudication]
    AdjudicatedLabel.objects.bulk_create(rows, batch_size=BULK)
    result.created["adjudicated_labels"] += len(rows)


def _write_labels(
    project: Project,
    todo: list[LineRecord],
    responses: list[Response],
    qa_rows: list[dict[Any, QA]],
    span_rows: list[list[AnswerSpan]],
    file_name: str,
    result: ImportResult,
    state: _Units,
) -> None:
    """One unit per source of the file (made when its first line is written), one approved assignment per worker
    position; each line's votes go to the assignments of its position."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)  # source key → indices into todo
    for i, rec in enumerate(todo):
        key = _source_key(rec)
        if key in state.workers:
            groups[key].append(i)
    if not groups:
        return
    if state.batch is None:
        state.batch, made = import_batch(project, file_name)
        result.created["batches"] += int(made)
    new = [key for key in groups if key not in state.unit_of]
    made = Unit.objects.bulk_create([
        Unit(project=project, batch=state.batch, source_id=responses[groups[key][0]].source.pk, mode="qasem",
             assignments_wanted=state.workers[key], status=Unit.Status.COMPLETE) for key in new], batch_size=BULK)
    state.unit_of.update((key, unit.pk) for key, unit in zip(new, made, strict=True))
    result.created["units"] += len(new)
    links = []
    for key, idx in groups.items():
        first = state.positions.get(key, 0)
        links += [UnitResponse(unit_id=state.unit_of[key], response=responses[i], position=first + pos)
                  for pos, i in enumerate(idx)]
        state.positions[key] = first + len(idx)
    UnitResponse.objects.bulk_create(links, batch_size=BULK)
    worker_ids = {key: [f"{WORKER_PREFIX}:{key[0]}:{k}" for k in range(state.workers[key])] for key in new}
    workers = imported_workers(x for ids in worker_ids.values() for x in ids)
    rows = Assignment.objects.bulk_create([
        Assignment(unit_id=state.unit_of[key], worker_id=workers[x].pk, status=Assignment.Status.APPROVED)
        for key in new for x in worker_ids[key]], batch_size=BULK)
    at = 0
    for key in new:
        state.slots[key] = [a.pk for a in rows[at:at + state.workers[key]]]
        at += state.workers[key]
    result.created["assignments"] += len(rows)

    qa_labels: list[QALabel] = []
    span_labels: list[SpanLabel] = []
    for key, idx in groups.items():
        slots = state.slots[key]
        for i in idx:
            for q in todo[i].qas:
                for k, v in enumerate(q.annotations or []):
                    qa_labels.append(QALabel(assignment_id=slots[k], qa=qa_rows[i][q.qa_id], supported=(v == 0)))
            for s, row in zip(todo[i].spans, span_rows[i], strict=True):
                for k, v in enumerate(s.annotations or []):
                    span_labels.append(SpanLabel(assignment_id=slots[k], span=row, covered=(v == 1)))
    QALabel.objects.bulk_create(qa_labels, batch_size=BULK)
    SpanLabel.objects.bulk_create(span_labels, batch_size=BULK)
    result.created["qa_labels"] += len(qa_labels)
    result.created["span_labels"] += len(span_labels)
