"""Ragas' WikiEval layout: one row per question, with its contexts and several answers to compare.

Columns (JSONL or CSV): ``question`` (required); ``context_v1`` (or ``context``; required) and optionally
``context_v2``, each a string or a list of strings (WikiEval stores a context as a list of passages; in CSV a
JSON array, the Python list pandas writes, or plain text), joined by blank lines into one context; the answers ``answer`` (grounded on
context_v1), ``ungrounded_answer`` (written without the context) and ``poor_answer`` (less relevant), each
optional but a row must have something to compare (two answers or two contexts); optionally ``source`` (the
Wikipedia page, kept in the source's metadata) and ``id`` / ``unique_id`` (the row's id; by default one made
from the question, so re-importing the same file finds the same rows).

Each row becomes a source (question, contexts as passages) with one response per answer, whose system is the
answer's column: protocols/ragas.py pairs them as Ragas did. The answers are created in an order shuffled
per row (seeded by the row id, so the same on every import): units show responses in creation order, and
the grounded answer must not always be Response A.
"""
from __future__ import annotations

import ast
import hashlib
import json
import random
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
from annotation_tasks.importers.common import BULK, ImportResult, existing_response_ids, sources_by_external_id
from annotation_tasks.importers.tokenize import split_sentences, tokenize
from annotation_tasks.models import Project, Response, Source
from annotation_tasks.models.projects import Protocol

PROTOCOL = [Protocol.RAGAS_PAIRWISE.value]
ANSWERS = ("answer", "ungrounded_answer", "poor_answer")
CONTEXTS = ("context_v1", "context_v2")
KNOWN = {"id", "unique_id", "question", "context", *CONTEXTS, *ANSWERS, "source"}


@dataclass
class WikiEvalRow:
    line: int
    source_id: str
    question: str
    contexts: list[str]
    page: str
    answers: list[tuple[str, str]]  # (column = system, text), in the order they are created

    def response_id(self, column: str) -> str:
        return f"{self.source_id}:{column}"


def read(path: Path) -> list[WikiEvalRow]:
    """Every row of a .jsonl or .csv file, validated; row ids unique within the file."""
    suffix = path.suffix.lower()
    errors = ErrorCollector()  # every bad line is reported (the first MAX_ERRORS listed), not only the first
    if suffix in (".jsonl", ".json", ".ndjson"):
        rows = ((n, obj, False) for n, obj in read_jsonl(path, errors))
    elif suffix == ".csv":
        rows = ((n, obj, True) for n, obj in read_csv(path, errors))
    else:
        raise ImportFormatError(path.name, None, None, "unknown WikiEval file type (use .jsonl or .csv)")
    out: list[WikiEvalRow] = []
    seen: dict[str, int] = {}
    for lineno, obj, from_csv in rows:
        with errors.line():
            out.append(_unique_row(obj, Where(path.name, lineno), from_csv, seen))
    errors.check()
    if not out:
        raise ImportFormatError(path.name, None, None, "no rows")
    return out


def _unique_row(obj: Any, where: Where, from_csv: bool, seen: dict[str, int]) -> WikiEvalRow:
    row = parse_row(obj, where, from_csv)
    if row.source_id in seen:
        field = "id" if ("id" in obj or "unique_id" in obj) else "question"
        raise where.child(field).error(
            f"row {row.source_id!r} already on line {seen[row.source_id]}"
            + ("" if field == "id" else " (the same question: give each row an id)")
        )
    seen[row.source_id] = where.line or 0
    return row


def _text(obj: dict, name: str, where: Where) -> str:
    value = obj.get(name)
    if value is None:
        return ""
    return check_type(value, where.child(name), str).strip()


def _context(obj: dict, name: str, where: Where, from_csv: bool) -> str:
    """A context as one text: a string, or a list of strings joined by blank lines."""
    value = obj.get(name)
    here = where.child(name)
    if from_csv and isinstance(value, str) and value.strip().startswith("["):
        value = _csv_list(value, here)
    if value is None:
        return ""
    if isinstance(value, list):
        for i, part in enumerate(value):
            check_type(part, here.child(i), str)
        return "\n\n".join(p.strip() for p in value if p.strip())
    return check_type(value, here, str, list).strip()


def _csv_list(cell: str, where: Where) -> Any:
    """A CSV cell holding a list: a JSON array, or the Python list pandas' to_csv writes for WikiEval's list
    columns (['...', "..."]), read as a literal (ast.literal_eval evaluates no code)."""
    try:
        return json.loads(cell)
    except json.JSONDecodeError as exc:
        try:
            value = ast.literal_eval(cell.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise where.error(f"invalid JSON array: {json_error_text(exc)}") from exc
        return value if isinstance(value, list) else cell


def _row_id(obj: dict, where: Where, question: str) -> str:
    for name in ("id", "unique_id"):
        value = obj.get(name)
        if value is None or value == "":
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        text = check_type(value, where.child(name), str, int).strip()
        if not text or len(text) > 200:
            raise where.child(name).error("must be 1 to 200 characters")
        return text
    return "wikieval-" + hashlib.sha1(question.encode("utf-8")).hexdigest()[:12]


def parse_row(obj: Any, where: Where, from_csv: bool) -> WikiEvalRow:
    check_type(obj, where, dict)
    unknown = sorted(k for k in obj if k not in KNOWN)
    if unknown:
        raise where.child(unknown[0]).error(f"unknown column (expected some of {', '.join(sorted(KNOWN))})")
    question = _text(obj, "question", where)
    if not question:
        raise where.child("question").error("missing field" if "question" not in obj else "empty value")
    first, alias = _context(obj, "context_v1", where, from_csv), _context(obj, "context", where, from_csv)
    if first and alias:
        raise where.child("context").error("give context_v1 or context, not both")
    first = first or alias
    if not first:
        raise where.child("context_v1").error("missing context (context_v1 or context)")
    second = _context(obj, "context_v2", where, from_csv)
    contexts = [first, second] if second else [first]
    for column in ANSWERS:  # an empty cell is no answer; a blank one is a mistake to show, not to drop silently
        value = obj.get(column)
        if isinstance(value, str) and value and not value.strip():
            raise where.child(column).error(
                "only whitespace: give the answer's text, or leave the cell empty (null) for no answer")
    answers = [(column, _text(obj, column, where)) for column in ANSWERS]
    answers = [(column, text) for column, text in answers if text]
    if len(answers) < 2 and len(contexts) < 2:
        raise where.child("answer").error(
            "nothing to compare: give two answers (answer, ungrounded_answer, poor_answer) or two contexts "
            "(context_v1, context_v2)"
        )
    source_id = _row_id(obj, where, question)
    random.Random(source_id).shuffle(answers)
    return WikiEvalRow(line=where.line or 0, source_id=source_id, question=question, contexts=contexts,
                       page=_text(obj, "source", where), answers=answers)


def write(project: Project, rows: list[WikiEvalRow], file_name: str) -> ImportResult:
    """Sources and responses not yet in the project (a row imported before is skipped). Call inside
    transaction.atomic(); a row whose id names a source with another question or contexts is refused."""
    result = ImportResult(file=file_name, lines=len(rows))
    sources = sources_by_external_id(project, [r.source_id for r in rows])
    for row in rows:
        src = sources.get(row.source_id)
        if src is not None and (src.question, list(src.passages or [])) != (row.question, row.contexts):
            raise Where(file_name, row.line, "question").error(
                f"row {row.source_id!r} already exists in project {project.name!r} with another question or contexts"
            )
    existing = existing_response_ids(project, [r.response_id(c) for r in rows for c, _ in r.answers])
    new_sources = [Source(project=project, external_id=r.source_id, question=r.question, passages=r.contexts,
                          metadata={"format": "wikieval", **({"wikipedia_page": r.page} if r.page else {})})
                   for r in rows if r.source_id not in sources]
    Source.objects.bulk_create(new_sources, batch_size=BULK)
    sources.update({s.external_id: s for s in new_sources})
    result.created["sources"] += len(new_sources)
    responses = []
    for row in rows:
        todo = [(c, text) for c, text in row.answers if row.response_id(c) not in existing]
        if not todo and row.source_id not in {s.external_id for s in new_sources}:
            result.skipped += 1
        for column, text in todo:
            tokens = tokenize(text)
            responses.append(Response(project=project, source=sources[row.source_id],
                                      external_id=row.response_id(column), system=column, text=text, tokens=tokens,
                                      sentences=split_sentences(text, tokens)))
    Response.objects.bulk_create(responses, batch_size=BULK)  # in row order, each row's answers shuffled
    result.created["responses"] += len(responses)
    return result
