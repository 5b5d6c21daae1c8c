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


def read_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; invalid JSON names line and column."""
    name = path.name
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise ImportFormatError(name, None, None, f"cannot open file: {exc.strerror or exc}") from exc
    with handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                if not raw.strip():
                    continue
                try:
                    yield lineno, json.loads(raw)
                except json.JSONDecodeError as exc:
                    raise ImportFormatError(
                        name, lineno, "(json)", f"invalid JSON: {exc.msg} at column {exc.colno}"
                    ) from exc
        except UnicodeDecodeError as exc:
            raise ImportFormatError(name, None, None, f"not UTF-8 text: {exc.reason}") from exc


def read_csv(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row as dict) for each CSV data row; the header is line 1."""
    name = path.name
    try:
        handle = path.open(encoding="utf-8-sig", newline="")  # -sig: spreadsheets write a BOM
    except OSError as exc:
        raise ImportFormatError(name, None, None, f"cannot open file: {exc.strerror or exc}") from exc
    with handle:
        reader = csv.DictReader(handle)
        try:
            if not reader.fieldnames:
                raise ImportFormatError(name, 1, None, "empty CSV file (no header row)")
            for row in reader:
                if None in row:
                    raise ImportFormatError(name, reader.line_num, None, "row has more cells than the header")
                if not any((v or "").strip() for v in row.values()):
                    continue
                yield reader.line_num, {k.strip(): (v if v is not None else "") for k, v in row.items()}
        except UnicodeDecodeError as exc:
            raise ImportFormatError(name, None, None, f"not UTF-8 text: {exc.reason}") from exc
        except csv.Error as exc:
            raise ImportFormatError(name, reader.line_num, None, f"malformed CSV: {exc}") from exc


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
