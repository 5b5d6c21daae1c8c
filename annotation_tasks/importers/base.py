"""Shared pieces of the import pipeline: readers, the error type, and small field validators.

Every importer runs in two phases: *read + validate* the whole file into plain records (no database
access that writes), then *write* everything in one transaction. A file with one bad line therefore
writes nothing, and the error names the file, the line and the field so a user can fix it at once.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation_tasks.textcheck import text_problem, walk_strings

DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024  # settings.IMPORT_MAX_LINE_BYTES
DEFAULT_MAX_TEXT_CHARS = 200_000  # settings.IMPORT_MAX_TEXT_CHARS: a response or source a worker can read


class ImportFormatError(ValueError):
    """Bad input: carries the file, the 1-based line and the field path (e.g. ``qas[3].answer_idx``)."""

    def __init__(self, file: str, line: int | None, field: str | None, message: str) -> None:
        self.file = file
        self.line = line
        self.field = field
        self.message = message
        where = file
        if line is not None:
            where += f", line {line}"
        if field:
            where += f", field {field}"
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class Where:
    """Location of the value being validated; builds errors and child field paths."""

    file: str
    line: int | None
    field: str = ""

    def child(self, name: str | int) -> Where:
        if isinstance(name, int):
            return Where(self.file, self.line, f"{self.field}[{name}]")
        return Where(self.file, self.line, f"{self.field}.{name}" if self.field else name)

    def error(self, message: str) -> ImportFormatError:
        return ImportFormatError(self.file, self.line, self.field or None, message)


def max_line_bytes() -> int:
    """The longest JSONL line (bytes) an import reads: IMPORT_MAX_LINE_BYTES, read before any parsing."""
    return int(_setting("IMPORT_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES))


def max_text_chars() -> int:
    """The longest text (characters) any one field may hold: IMPORT_MAX_TEXT_CHARS."""
    return int(_setting("IMPORT_MAX_TEXT_CHARS", DEFAULT_MAX_TEXT_CHARS))


def _setting(name: str, default: int) -> int:
    try:
        from django.conf import settings

        return getattr(settings, name, default)
    except Exception:  # outside Django (pure use of the readers)
        return default


def check_strings(value: Any, where: Where) -> None:
    """Every string (and object key) in a parsed value: storable text (no NUL, no lone surrogate) within
    IMPORT_MAX_TEXT_CHARS; the error names the field path."""
    limit = max_text_chars()
    for path, text in walk_strings(value, where.field):
        here = Where(where.file, where.line, path)
        if len(text) > limit:
            raise here.error(f"text of {len(text)} characters, longer than the limit of {limit} (IMPORT_MAX_TEXT_CHARS)")
        problem = text_problem(text)
        if problem:
            raise here.error(problem)


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; invalid JSON names line and column.

    Lines are read as bytes with a cap (IMPORT_MAX_LINE_BYTES) before anything is decoded or parsed, so one
    huge line costs at most the cap; every string in the parsed line is checked (check_strings)."""
    name = path.name
    cap = max_line_bytes()
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise ImportFormatError(name, None, None, f"cannot open file: {exc.strerror or exc}") from exc
    with handle:
        lineno = 0
        while True:
            raw = handle.readline(cap + 1)
            if not raw:
                return
            lineno += 1
            if len(raw) > cap and not (len(raw) == cap + 1 and raw.endswith(b"\n")):
                raise ImportFormatError(
                    name, lineno, None,
                    f"line longer than {cap} bytes (IMPORT_MAX_LINE_BYTES); split the record or raise the limit",
                )
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a BOM from an editor
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ImportFormatError(name, lineno, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
            if not text.strip():
                continue
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ImportFormatError(
                    name, lineno, "(json)", f"invalid JSON: {exc.msg} at column {exc.colno}"
                ) from exc
            except (ValueError, RecursionError) as exc:  # a number of more than 4,300 digits; absurd nesting
                reason = "a number with too many digits" if isinstance(exc, ValueError) else "nested too deeply"
                raise ImportFormatError(name, lineno, "(json)", f"invalid JSON: {reason}") from exc
            check_strings(obj, Where(name, lineno))
            yield lineno, obj


def read_csv(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row as dict) for each CSV data row; the header is line 1.

    Strict quoting: a quote that never closes is named as such (the line where its cell starts), not
    reported later as a missing field. Cells are held to IMPORT_MAX_TEXT_CHARS and checked like JSON strings."""
    name = path.name
    try:
        handle = path.open(encoding="utf-8-sig", newline="")  # -sig: spreadsheets write a BOM
    except OSError as exc:
        raise ImportFormatError(name, None, None, f"cannot open file: {exc.strerror or exc}") from exc
    limit = max_text_chars()
    old_limit = csv.field_size_limit(max(limit + 1, 1024))
    with handle:
        reader = csv.DictReader(handle, strict=True)
        row_start = 1
        try:
            if not reader.fieldnames:
                raise ImportFormatError(name, 1, None, "empty CSV file (no header row)")
            row_start = reader.line_num + 1
            for row in reader:
                if None in row:
                    raise ImportFormatError(name, reader.line_num, None, "row has more cells than the header")
                if not any((v or "").strip() for v in row.values()):
                    row_start = reader.line_num + 1
                    continue
                clean = {k.strip(): (v if v is not None else "") for k, v in row.items()}
                check_strings(clean, Where(name, reader.line_num))
                yield reader.line_num, clean
                row_start = reader.line_num + 1
        except UnicodeDecodeError as exc:
            raise ImportFormatError(name, None, None, f"not UTF-8 text: {exc.reason}") from exc
        except csv.Error as exc:
            text = str(exc)
            if "unexpected end of data" in text:
                raise ImportFormatError(
                    name, row_start, None, "unterminated quote: a quoted cell on this line is never closed"
                ) from exc
            if "field larger than field limit" in text:
                raise ImportFormatError(
                    name, row_start, None, f"a cell longer than {limit} characters (IMPORT_MAX_TEXT_CHARS)"
                ) from exc
            raise ImportFormatError(name, reader.line_num, None, f"malformed CSV: {exc}") from exc
        finally:
            csv.field_size_limit(old_limit)


def require(obj: Mapping[str, Any], key: str, where: Where, *types: type, allow_none: bool = False) -> Any:
    """obj[key] checked for presence and type; bool never passes as int."""
    if not isinstance(obj, Mapping):
        raise where.error(f"expected a JSON object, got {type(obj).__name__}")
    if key not in obj:
        raise where.child(key).error("missing field")
    return check_type(obj[key], where.child(key), *types, allow_none=allow_none)


def check_type(value: Any, where: Where, *types: type, allow_none: bool = False) -> Any:
    """value if it has one of the types (JSON names in the message)."""
    if value is None and allow_none:
        return value
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        wanted = " or ".join(_json_name(t) for t in types)
        raise where.error(f"expected {wanted}, got {_json_name(type(value))}")
    return value


def check_str_list(value: Any, where: Where) -> list[str]:
    check_type(value, where, list)
    for i, item in enumerate(value):
        check_type(item, where.child(i), str)
    return value


def _json_name(t: type) -> str:
    return {
        str: "string",
        int: "integer",
        float: "number",
        bool: "boolean",
        list: "array",
        dict: "object",
        type(None): "null",
    }.get(t, t.__name__)
