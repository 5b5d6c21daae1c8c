"""CSV beside a JSONL export: the same records, one row each, for spreadsheets and pandas.read_csv.

Columns are the records' keys in first-seen order (a key missing from a record is an empty cell). Strings,
numbers and booleans are written as they are; null is an empty cell; lists and objects (votes, workers,
adjudication provenance) are written as compact JSON text (exporters.jsontext), so nothing is lost and json.loads
reads a cell back.
A text cell a spreadsheet would run as a formula (`=...`, `@...`) gets a leading quote (annotation_tasks.csvsafe).
The records are read once: each row goes to a spool file (a temporary CSV beside the target) in its own key order,
tagged with its key sequence (two bytes a row); once every key is known, the spool is copied after the header when
every row had the same keys, else read back with the csv module and each row laid out in the final columns.
Memory holds one record, the distinct key sequences and the rows' tags, and no record is parsed twice
(write_rows over a known column list needs no spool).
"""
from __future__ import annotations

import csv
import io
import shutil
import sys
import tempfile
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from annotation_tasks import csvsafe
from annotation_tasks.csvsafe import neutralise, neutralise_row
from annotation_tasks.exporters.jsontext import json_line, json_value


def cell(value: Any) -> str:
    """One CSV cell of a JSON value (the exact type first: a 10^6-label export writes ~6 * 10^6 cells)."""
    kind = type(value)
    if kind is str:
        return neutralise(value)
    if value is None:
        return ""
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:
        return str(value)
    if isinstance(value, str):
        return neutralise(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json_line(value)


def records_of(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The records of JSON lines (blank lines skipped; a value that is not an object becomes {"value": ...})."""
    for raw in lines:
        if raw.strip():
            record = json_value(raw)
            yield record if isinstance(record, dict) else {"value": record}


def _records(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        yield from records_of(handle)


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


def csv_from_records(records: Iterable[dict[str, Any]], out: TextIO, spool_dir: str | Path | None = None) -> int:
    """The CSV of records (columns: their keys in first-seen order), reading the records once; returns the rows.

    Pass 1 writes each row as CSV in its own key order to a spool file, noting each row's key sequence; when every
    row has the first row's keys (an export's usual case) the spool is the CSV's body and is copied after the
    header; otherwise pass 2 reads it back and places each row's cells in the final columns. (A marshal spool of
    every row's cells, read back and written again, was ~5 s of a 30 s export of 10^6 labels.)"""
    shapes: dict[tuple[str, ...], int] = {}
    seen: dict[str, None] = {}
    row_shapes = array("H")
    n = 0
    with tempfile.TemporaryFile("w+", encoding="utf-8", newline="", buffering=1 << 20, dir=spool_dir) as spool:
        body = csvsafe.writer(spool)
        for record in records:
            keys = tuple(record)
            shape = shapes.get(keys)
            if shape is None:
                shape = shapes[keys] = len(shapes)
                seen.update(dict.fromkeys(keys))
                if shape >= 65_535:
                    raise ValueError("over 65,535 distinct key sequences in one export")
            body.writerow([cell(v) for v in record.values()])
            row_shapes.append(shape)
            n += 1
        columns = list(seen)
        writer = csvsafe.writer(out)
        writer.writerow(neutralise_row(columns))
        spool.seek(0)
        if len(shapes) <= 1:  # every row in the final columns already
            shutil.copyfileobj(spool, out, 1 << 20)
            return n
        position = {c: i for i, c in enumerate(columns)}
        layouts = [[position[k] for k in keys] for keys in shapes]  # in shape index order
        whole = [layout == list(range(len(columns))) for layout in layouts]
        limit = csv.field_size_limit()
        csv.field_size_limit(sys.maxsize)  # what csv.writer wrote, whatever a cell's size
        try:
            for shape, cells in zip(row_shapes, csv.reader(spool), strict=True):
                if not whole[shape]:
                    placed = [""] * len(columns)
                    for at, value in zip(layouts[shape], cells, strict=True):
                        placed[at] = value
                    cells = placed
                writer.writerow(cells)
        finally:
            csv.field_size_limit(limit)
    return n


def csv_from_jsonl(jsonl: Path, out: TextIO) -> int:
    """The CSV of a JSONL file (read once, csv_from_records); returns the number of rows."""
    return csv_from_records(_records(jsonl), out, spool_dir=jsonl.parent)


def csv_text(records: list[dict[str, Any]]) -> str:
    """The CSV of a few records in memory (tests, small previews)."""
    buffer = io.StringIO()
    write_rows(records, columns_of(records), buffer)
    return buffer.getvalue()
