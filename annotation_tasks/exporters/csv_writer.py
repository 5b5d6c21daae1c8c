"""CSV beside a JSONL export: the same records, one row each, for spreadsheets and pandas.read_csv.

Columns are the records' keys in first-seen order (a key missing from a record is an empty cell). Strings,
numbers and booleans are written as they are; null is an empty cell; lists and objects (votes, workers,
adjudication provenance) are written as compact JSON text, so nothing is lost and json.loads reads a cell back.
A text cell a spreadsheet would run as a formula (`=...`, `@...`) gets a leading quote (annotation_tasks.csvsafe).
The JSONL is read twice (keys, then rows), so memory holds one record whatever the export's size.
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from annotation_tasks import csvsafe
from annotation_tasks.csvsafe import neutralise, neutralise_row


def cell(value: Any) -> str:
    """One CSV cell of a JSON value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for raw in handle:
            if raw.strip():
                record = json.loads(raw)
                yield record if isinstance(record, dict) else {"value": record}


def columns_of(records: Iterable[dict[str, Any]]) -> list[str]:
    """Every key of the records, in first-seen order."""
    seen: dict[str, None] = {}
    for record in records:
        seen.update(dict.fromkeys(record))
    return list(seen)


def write_rows(records: Iterable[dict[str, Any]], columns: list[str], out: TextIO) -> int:
    """Header and one row per record; returns the number of rows."""
    writer = csvsafe.writer(out)
    writer.writerow(neutralise_row(columns))
    n = 0
    for record in records:
        writer.writerow([cell(record.get(c)) for c in columns])
        n += 1
    return n


def csv_from_jsonl(jsonl: Path, out: TextIO) -> int:
    """The CSV of a JSONL file (two streaming passes); returns the number of rows."""
    return write_rows(_records(jsonl), columns_of(_records(jsonl)), out)


def csv_text(records: list[dict[str, Any]]) -> str:
    """The CSV of a few records in memory (tests, small previews)."""
    buffer = io.StringIO()
    write_rows(records, columns_of(records), buffer)
    return buffer.getvalue()
