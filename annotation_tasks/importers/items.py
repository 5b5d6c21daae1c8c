"""Plain items for new projects: JSONL or CSV rows of source id, reference text or passages, optional
question, system and response.

Fields: ``source_id`` (required), ``source`` (the reference text; ``reference`` is accepted too) and/or
``passages`` (a list of strings; in CSV a JSON array, or one passage as plain text), ``question``
(optional), ``system`` and ``response`` (required), ``response_id`` (optional, default
"<source_id>:<system>"). Rows sharing a source id must agree on its text, passages and question.
Responses get tokens and sentences from the simple regex tokenizer; the parser re-tokenizes later.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation_tasks.importers.base import (
    ErrorCollector,
    ImportFormatError,
    Where,
    check_type,
    json_error_text,
    read_csv,
    read_jsonl,
)
from annotation_tasks.importers.common import BULK, ImportResult, in_chunks, sources_by_external_id, start_import
from annotation_tasks.importers.tokenize import split_sentences, tokenize
from annotation_tasks.models import Project, Response, Source

KNOWN = {"source_id", "source", "reference", "passages", "question", "system", "response", "response_id"}


@dataclass
class ItemRecord:
    line: int
    source_id: str
    text: str
    passages: list[str]
    question: str
    system: str
    response: str
    response_id: str


def read(path: Path) -> list[ItemRecord]:
    """Rows of a .jsonl or .csv file (chosen by suffix), validated, with per-source agreement checked."""
    suffix = path.suffix.lower()
    errors = ErrorCollector()  # every bad line is reported (the first MAX_ERRORS listed), not only the first
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = ((n, obj, False) for n, obj in read_jsonl(path, errors))
    elif suffix in (".csv", ".tsv"):
        rows = ((n, obj, True) for n, obj in read_csv(path, errors))
    else:
        raise ImportFormatError(path.name, None, None, "unknown item file type (use .jsonl or .csv)")
    records: list[ItemRecord] = []
    sources: dict[str, ItemRecord] = {}
    responses: dict[str, int] = {}
    for lineno, obj, from_csv in rows:
        with errors.line():
            records.append(_agreeing_row(obj, Where(path.name, lineno), from_csv, sources, responses))
    errors.check()
    return records


def _agreeing_row(obj: Any, where: Where, from_csv: bool, sources: dict[str, ItemRecord],
                  responses: dict[str, int]) -> ItemRecord:
    """One row, checked against the rows before it: the same source text per source id, one row per response."""
    rec = parse_row(obj, where, from_csv)
    first = sources.setdefault(rec.source_id, rec)
    for name in ("text", "passages", "question"):
        if getattr(first, name) != getattr(rec, name):
            label = "source" if name == "text" else name
            raise where.child(label).error(f"differs from line {first.line} for source_id {rec.source_id!r}")
    if rec.response_id in responses:
        raise where.child("response_id").error(
            f"response {rec.response_id!r} already on line {responses[rec.response_id]}"
        )
    responses[rec.response_id] = where.line or 0
    return rec


def parse_row(obj: Any, where: Where, from_csv: bool) -> ItemRecord:
    check_type(obj, where, dict)
    unknown = sorted(k for k in obj if k not in KNOWN)
    if unknown:
        raise where.child(unknown[0]).error(f"unknown field (expected some of {', '.join(sorted(KNOWN))})")

    def text(name: str, required: bool = False) -> str:
        value = obj.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                raise where.child(name).error(
                    "missing field" if name not in obj else "empty value" if not value else "only whitespace")
            return ""
        if isinstance(value, int) and not isinstance(value, bool) and name == "source_id":
            return str(value)
        return check_type(value, where.child(name), str)

    source_id = text("source_id", required=True).strip()
    if len(source_id) > 255:
        raise where.child("source_id").error("longer than 255 characters")
    reference = text("source") or text("reference")
    passages = obj.get("passages")
    if from_csv and isinstance(passages, str):
        passages = _csv_passages(passages, where.child("passages"))
    if passages is None:
        passages = []
    check_type(passages, where.child("passages"), list)
    for i, p in enumerate(passages):
        check_type(p, where.child("passages").child(i), str)
    if not reference and not passages:
        raise where.child("source").error("missing field (give source text or passages)")
    system = text("system", required=True)
    if len(system) > 200:
        raise where.child("system").error("longer than 200 characters")
    return ItemRecord(
        line=where.line or 0,
        source_id=source_id,
        text=reference,
        passages=passages,
        question=text("question"),
        system=system,
        response=text("response", required=True),
        response_id=_bounded_id(text("response_id") or f"{source_id}:{system}", where.child("response_id")),
    )


def _bounded_id(value: str, where: Where) -> str:
    if len(value) > 255:
        raise where.error("response id longer than 255 characters (give a shorter response_id)")
    return value


def _csv_passages(cell: str, where: Where) -> list[str]:
    cell = cell.strip()
    if not cell:
        return []
    if not cell.startswith("["):
        return [cell]
    try:
        value = json.loads(cell)
    except json.JSONDecodeError as exc:
        raise where.error(f"invalid JSON array: {json_error_text(exc)}") from exc
    return value


def write(project: Project, records: list[ItemRecord], file_name: str, *, update: bool = False) -> ImportResult:
    """Create sources and responses not yet in the project; with `update`, also give responses already there the
    changed text of their line (only where nothing depends on them yet). Call inside transaction.atomic()."""
    result, todo = start_import(project, records, file_name, lambda r: r.response_id, text_of=lambda r: r.response,
                                line_of=lambda r: r.line)
    if update and result.changed:
        _apply_changes(project, records, result, file_name)
    if not todo:
        return result
    wanted: dict[str, ItemRecord] = {}
    for r in todo:
        wanted.setdefault(r.source_id, r)
    sources = sources_by_external_id(project, wanted)
    for sid, src in sources.items():
        rec = wanted[sid]
        if (src.text, src.passages or [], src.question) != (rec.text, rec.passages, rec.question):
            raise Where(file_name, rec.line, "source").error(
                f"source {sid!r} already exists in project {project.name!r} with a different text, passages or question"
            )
    new_sources = [
        Source(project=project, external_id=sid, text=r.text, passages=r.passages, question=r.question)
        for sid, r in wanted.items()
        if sid not in sources
    ]
    Source.objects.bulk_create(new_sources, batch_size=BULK)
    sources.update({s.external_id: s for s in new_sources})
    result.created["sources"] += len(new_sources)
    # Tokens are tens of Python objects per word: build and insert them a chunk at a time, so a 200 MB upload
    # holds one chunk's tokens, not the file's (bench/bench_import_memory.py).
    for chunk in in_chunks(todo, BULK):
        responses = []
        for r in chunk:
            tokens = tokenize(r.response)
            responses.append(
                Response(
                    project=project,
                    source=sources[r.source_id],
                    external_id=r.response_id,
                    system=r.system,
                    text=r.response,
                    tokens=tokens,
                    sentences=split_sentences(r.response, tokens),
                )
            )
        Response.objects.bulk_create(responses, batch_size=BULK)
        result.created["responses"] += len(responses)
    return result


def _apply_changes(project: Project, records: list[ItemRecord], result: ImportResult, file_name: str) -> None:
    """New text, tokens and sentences for changed responses; refused (located) for a response already parsed or
    in a unit, whose QAs, facts and labels were made for the old text."""
    by_id = {r.response_id: r for r in records}
    changed_ids = [entry.split(": ", 1)[1] for entry in result.changed]
    for response in Response.objects.filter(project=project, external_id__in=changed_ids):
        rec = by_id[response.external_id]
        if (response.predicates.exists() or response.qas.exists() or response.atomic_facts.exists()
                or response.unit_responses.exists()):
            raise Where(file_name, rec.line, "response").error(
                f"response {rec.response_id!r} is already parsed or in a unit: its QAs, facts and labels belong to "
                "the stored text, so --update cannot change it (import into a new project instead)"
            )
        tokens = tokenize(rec.response)
        response.text, response.tokens = rec.response, tokens
        response.sentences = split_sentences(rec.response, tokens)
        response.save(update_fields=["text", "tokens", "sentences"])
    result.created["updated responses"] += len(changed_ids)
    result.changed = []
