"""Shared pieces of the import pipeline: readers, the error type, and small field validators.

Every importer runs in two phases: *read + validate* the whole file into plain records (no database
access that writes), then *write* everything in one transaction. A file with one bad line therefore
writes nothing, and the error names the file, the line and the field so a user can fix it at once.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
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


MAX_ERRORS = 50  # bad lines listed per file; the rest are counted


class ImportErrors(ImportFormatError):
    """Several bad lines in one file: the first MAX_ERRORS, and how many there were in all. Its own fields
    (file, line, field, message) are the first error's, so callers that show one error still work."""

    def __init__(self, errors: list[ImportFormatError], total: int) -> None:
        first = errors[0]
        self.errors = errors
        self.total = total
        super().__init__(first.file, first.line, first.field, first.message)
        if total > 1:
            more = f"{total - 1} more {'error' if total == 2 else 'errors'}"
            listed = "" if total <= len(errors) else f", the first {len(errors)} listed"
            self.args = (f"{self.args[0]} (and {more}{listed})",)

    def lines(self) -> list[str]:
        """One line per listed error, and a last one counting those not listed."""
        out = [str(ImportFormatError(e.file, e.line, e.field, e.message)) for e in self.errors]
        if self.total > len(self.errors):
            out.append(f"... and {self.total - len(self.errors)} more")
        return out


class ErrorCollector:
    """Gathers the bad lines of a file instead of stopping at the first, so one upload shows them all (capped
    at MAX_ERRORS, the rest counted); `check()` raises them together as ImportErrors."""

    def __init__(self, cap: int = MAX_ERRORS) -> None:
        self.cap = cap
        self.errors: list[ImportFormatError] = []
        self.total = 0

    def add(self, exc: ImportFormatError) -> None:
        for one in exc.errors if isinstance(exc, ImportErrors) else [exc]:
            if len(self.errors) < self.cap:
                self.errors.append(one)
        self.total += exc.total if isinstance(exc, ImportErrors) else 1

    @contextmanager
    def line(self) -> Iterator[None]:
        """Run one line's checks; its error is recorded and the caller goes on with the next line."""
        try:
            yield
        except ImportFormatError as exc:
            self.add(exc)

    def check(self) -> None:
        if self.total:
            raise ImportErrors(self.errors, self.total)


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


def check_header(name: str, columns: list[str] | tuple[str, ...] | Any) -> None:
    """A CSV header names each column once: with a repeated name one of the two columns would be dropped silently
    (csv.DictReader keeps the last). The error names the column and both positions (1-based, as spreadsheets)."""
    first: dict[str, int] = {}
    for position, column in enumerate(columns or [], start=1):
        key = (column or "").strip()
        if key in first:
            shown = repr(key) if key else "(an empty name)"
            raise ImportFormatError(name, 1, key or None,
                                    f"column {shown} appears twice in the header (columns {first[key]} and {position}); "
                                    "rename or remove one")
        first[key] = position


def json_error_text(exc: json.JSONDecodeError) -> str:
    """json's message and where: "Unterminated string starting at column 9" (its own message may end in "at")."""
    msg = exc.msg.rstrip()
    return f"{msg} column {exc.colno}" if msg.endswith(" at") else f"{msg} at column {exc.colno}"


def read_jsonl(path: Path, errors: ErrorCollector | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; invalid JSON names line and column.

    Lines are read as bytes with a cap (IMPORT_MAX_LINE_BYTES) before anything is decoded or parsed, so one
    huge line costs at most the cap; every string in the parsed line is checked (check_strings). With
    `errors`, a bad line is recorded there and skipped instead of ending the read."""
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
                too_long = ImportFormatError(
                    name, lineno, None,
                    f"line longer than {cap} bytes (IMPORT_MAX_LINE_BYTES); split the record or raise the limit",
                )
                if errors is None:
                    raise too_long
                errors.add(too_long)
                while raw and not raw.endswith(b"\n"):  # skip the rest of that line, a cap at a time
                    raw = handle.readline(cap + 1)
                continue
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]  # a BOM from an editor
            try:
                obj = _parse_json_line(raw, name, lineno)
            except ImportFormatError as exc:
                if errors is None:
                    raise
                errors.add(exc)
                continue
            if obj is not _BLANK:
                yield lineno, obj


_BLANK = object()


def _parse_json_line(raw: bytes, name: str, lineno: int) -> Any:
    """One JSONL line's value (checked like every string), or _BLANK for a blank line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(name, lineno, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}") from exc
    if not text.strip():
        return _BLANK
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(name, lineno, "(json)", f"invalid JSON: {json_error_text(exc)}") from exc
    except (ValueError, RecursionError) as exc:  # a number of more than 4,300 digits; absurd nesting
        reason = "a number with too many digits" if isinstance(exc, ValueError) else "nested too deeply"
        raise ImportFormatError(name, lineno, "(json)", f"invalid JSON: {reason}") from exc
    check_strings(obj, Where(name, lineno))
    return obj


def read_csv(path: Path, errors: ErrorCollector | None = None) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row as dict) for each CSV data row; the header is line 1.

    Strict quoting: a quote that never closes is named as such (the line where its cell starts), not
    reported later as a missing field. Cells are held to IMPORT_MAX_TEXT_CHARS and checked like JSON strings.
    With `errors`, a bad row is recorded there and skipped; a broken file (bad quoting, not UTF-8) ends the read
    with its error recorded last."""
    try:
        yield from _read_csv(path, errors)
    except ImportFormatError as exc:
        if errors is None:
            raise
        errors.add(exc)


def _read_csv(path: Path, errors: ErrorCollector | None) -> Iterator[tuple[int, dict[str, str]]]:
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
            check_header(name, reader.fieldnames)
            row_start = reader.line_num + 1
            for row in reader:
                try:
                    clean = _csv_row(row, name, reader.line_num)
                except ImportFormatError as exc:
                    if errors is None:
                        raise
                    errors.add(exc)
                    clean = None
                if clean:
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


def _csv_row(row: dict, name: str, line: int) -> dict[str, str] | None:
    """A data row with its keys stripped and its cells checked; None for a blank row."""
    if None in row:
        raise ImportFormatError(name, line, None, "row has more cells than the header")
    if not any((v or "").strip() for v in row.values()):
        return None
    clean = {k.strip(): (v if v is not None else "") for k, v in row.items()}
    check_strings(clean, Where(name, line))
    return clean


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
