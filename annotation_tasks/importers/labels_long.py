"""Raw crowd labels of any past campaign: long-form CSV/JSONL, or an MTurk batch results CSV.

- long (``.csv`` or ``.jsonl``): one row per label with ``item_id``, ``worker_id`` and ``label`` (another label
  column with ``label_column``); an optional ``level`` column says what was asked (labels of different levels are
  never pooled); every other column is a grouping (dataset, system, split ...).
- mturk-results (``.csv``, the file MTurk's "Download results" gives, also of HITs published elsewhere): the
  worker is ``WorkerId``, the item ``HITId`` (or ``item_column``, e.g. ``Input.item_id``), each ``Answer.x`` named
  in ``label_columns`` is a level ``x``, and every ``Input.*`` column is a grouping named without the prefix.
  Rejected assignments are left out (rejected work is not a label anywhere in FactCrowd).

``read`` validates the whole file (errors name file, line and field) and finds a worker labelling one item twice;
``write`` adds labels not yet in the project, so importing a file again changes nothing, and refuses a label that
contradicts one already imported. Both stream: ``read`` keeps the counts, the grouping columns and one 64-bit hash
per (level, item, worker), and ``write`` reads the file again in chunks, so memory does not grow with the file's
rows beyond those hashes (10^6 rows: see docs/import-export.md).
"""
from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from annotation_tasks.importers.base import ImportFormatError, Where, read_csv, read_jsonl
from annotation_tasks.importers.common import BULK, ImportResult, in_chunks
from annotation_tasks.models import Campaign, CampaignLabel, Project, Response

FORMATS = ("long", "mturk-results")
ITEM, WORKER, LABEL, LEVEL = "item_id", "worker_id", "label", "level"
RESERVED = {ITEM, WORKER, LABEL, LEVEL}
MAX_ID, MAX_LEVEL, MAX_LABEL = 500, 200, 1000  # the model's column widths
MTURK_WORKER, MTURK_HIT, MTURK_STATUS = "WorkerId", "HITId", "AssignmentStatus"


@dataclass(frozen=True)
class LabelRecord:
    line: int
    level: str
    item_id: str
    worker_id: str
    label: str
    groups: dict[str, str | None]


@dataclass
class CampaignFile:
    """A validated file: how to read its label records again (in file order, each call a fresh pass over the
    file), how many there are, and the grouping columns they carry."""

    file: str
    fmt: str
    label_columns: list[str]
    group_columns: list[str]
    records: Callable[[], Iterator[LabelRecord]]
    count: int
    rejected: int = 0


@dataclass
class CampaignImportResult(ImportResult):
    rejected: int = 0
    group_columns: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = super().summary()
        if self.rejected:
            text += f"; {self.rejected} rejected assignments left out"
        return text + f"; groupings: {', '.join(self.group_columns) or 'none'}"


def read(path: Path, fmt: str = "long", label_columns: list[str] | None = None,
         item_column: str | None = None) -> CampaignFile:
    """Validate a whole campaign file into label records (raises ImportFormatError naming file, line, field)."""
    if fmt not in FORMATS:
        raise ImportFormatError(path.name, None, None, f"unknown format {fmt!r} (expected {' or '.join(FORMATS)})")
    suffix = path.suffix.lower()
    if fmt == "mturk-results":
        if suffix not in (".csv",):
            raise ImportFormatError(path.name, None, None, "an MTurk results file is a .csv")
        mturk = _MturkReader(path, list(label_columns or []), item_column)
        collector = _Collector(path, mturk.records)
        return collector.done("mturk-results", mturk.label_columns, rejected=mturk.rejected)
    from_csv = suffix == ".csv"
    if suffix not in (".jsonl", ".json", ".ndjson") and not from_csv:
        raise ImportFormatError(path.name, None, None, "unknown label file type (use .jsonl or .csv)")
    if label_columns and len(label_columns) > 1:
        raise ImportFormatError(path.name, None, "--label-column", "long form has one label column (use a level column)")
    label_column = label_columns[0] if label_columns else LABEL

    def records() -> Iterator[LabelRecord]:
        rows: Iterator[tuple[int, Any]] = read_csv(path) if from_csv else read_jsonl(path)
        return _long_records(path, rows, label_column, item_column or ITEM, from_csv)

    return _Collector(path, records).done("long", [label_column])


def _long_records(path: Path, rows: Iterator[tuple[int, Any]], label_column: str, item_column: str,
                  from_csv: bool) -> Iterator[LabelRecord]:
    reserved = {item_column, WORKER, label_column, LEVEL}
    first = True
    for lineno, obj in rows:
        where = Where(path.name, lineno)
        if not isinstance(obj, Mapping):
            raise where.error(f"expected a JSON object, got {type(obj).__name__}")
        if from_csv and first:  # the first data row carries the header's columns
            _check_header(where, list(obj), [item_column, WORKER, label_column])
        first = False
        level = _text(obj, LEVEL, where, MAX_LEVEL, required=False) or LABEL
        record = LabelRecord(
            line=lineno,
            level=level,
            item_id=_text(obj, item_column, where, MAX_ID),
            worker_id=_text(obj, WORKER, where, MAX_ID),
            label=_text(obj, label_column, where, MAX_LABEL),
            groups={k: _group_value(v, where.child(k)) for k, v in obj.items() if k not in reserved},
        )
        yield record


class _MturkReader:
    """An MTurk results file's label records (each pass reads the file again); the label columns are settled
    (and the rejected rows counted) by the first pass."""

    def __init__(self, path: Path, label_columns: list[str], item_column: str | None) -> None:
        self.path, self.label_columns, self.item_key = path, label_columns, item_column or MTURK_HIT
        self.rejected = 0

    def records(self) -> Iterator[LabelRecord]:
        path, item_key = self.path, self.item_key
        rejected = 0
        names: dict[str, str] = {}
        for lineno, row in read_csv(path):
            where = Where(path.name, lineno)
            if not names:
                columns = list(row)
                answers = [c for c in columns if c.startswith("Answer.")]
                if not self.label_columns:
                    if len(answers) != 1:
                        raise Where(path.name, 1, "--label-column").error(
                            f"name the label column (answer columns: {', '.join(answers) or 'none'})")
                    self.label_columns = answers
                _check_header(Where(path.name, 1), columns, [MTURK_WORKER, item_key, *self.label_columns])
                names = _input_names(columns, item_key)
            if row.get(MTURK_STATUS, "").strip().lower() == "rejected":
                rejected += 1
                continue
            groups = {name: (row[column].strip() or None) for column, name in names.items()}
            for column in self.label_columns:
                level = column.removeprefix("Answer.")
                yield LabelRecord(
                    line=lineno,
                    level=_checked(level, where.child(column), MAX_LEVEL),
                    item_id=_text(row, item_key, where, MAX_ID),
                    worker_id=_text(row, MTURK_WORKER, where, MAX_ID),
                    label=_text(row, column, where, MAX_LABEL),
                    groups=groups,
                )
        self.rejected = rejected


def _input_names(columns: list[str], item_key: str) -> dict[str, str]:
    """Input.* columns → grouping names without the prefix (the full name where the short one is taken)."""
    out: dict[str, str] = {}
    for column in columns:
        if not column.startswith("Input.") or column == item_key:
            continue
        short = column.removeprefix("Input.")
        out[column] = column if short in RESERVED or short in out.values() or not short else short
    return out


def _check_header(where: Where, columns: Any, required: list[str]) -> None:
    missing = [c for c in required if c not in set(columns)]
    if missing:
        raise Where(where.file, 1, "header").error(
            f"missing column {', '.join(missing)} (columns: {', '.join(columns)})")


def _text(obj: Mapping[str, Any], key: str, where: Where, limit: int, required: bool = True) -> str:
    """A required id or label: a non-empty string or number, as text."""
    here = where.child(key)
    if key not in obj or obj[key] is None or obj[key] == "":
        if not required:
            return ""
        raise here.error("missing value" if key not in obj else "empty value")
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise here.error(f"expected a string or a number, got {type(value).__name__}")
    return _checked(value.strip() if isinstance(value, str) else str(value), here, limit)


def _checked(text: str, where: Where, limit: int) -> str:
    if not text:
        raise where.error("empty value")
    if len(text) > limit:
        raise where.error(f"longer than {limit} characters")
    if "\x00" in text:
        raise where.error("contains a NUL character")
    return text


def _group_value(value: Any, where: Where) -> str | None:
    """A grouping value as text (None when absent or empty): groupings compare as text across files."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return _checked(str(value).strip(), where, MAX_LABEL) if str(value).strip() else None
    raise where.error(f"a grouping value must be a string or a number, got {type(value).__name__}")


class _Collector:
    """One validating pass over the records: their count, the grouping columns in first-seen order, and one label
    per (level, item, worker). Only a 64-bit hash of each key is kept (8 bytes a row, in an array); hashes seen
    twice send a second pass that compares the keys themselves, so a hash collision is never an error."""

    def __init__(self, path: Path, records: Callable[[], Iterator[LabelRecord]]) -> None:
        self.path, self.records = path, records
        self.count = 0
        self.columns: dict[str, None] = {}
        hashes = array("q")
        for record in records():
            hashes.append(hash((record.level, record.item_id, record.worker_id)))
            self.columns.update(dict.fromkeys(record.groups))
            self.count += 1
        ordered = np.sort(np.frombuffer(hashes, dtype=np.int64))
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        del hashes, ordered
        if len(repeated):
            self._first_repeat({int(h) for h in repeated})

    def _first_repeat(self, suspects: set[int]) -> None:
        """The first record whose exact key came before (only keys with a repeated hash are compared)."""
        seen: dict[tuple[str, str, str], int] = {}
        for r in self.records():
            key = (r.level, r.item_id, r.worker_id)
            if hash(key) not in suspects:
                continue
            if key in seen:
                raise Where(self.path.name, r.line, WORKER).error(
                    f"worker {r.worker_id!r} already labelled item {r.item_id!r} on line {seen[key]}")
            seen[key] = r.line

    def done(self, fmt: str, label_columns: list[str], rejected: int = 0) -> CampaignFile:
        if not self.count:
            raise ImportFormatError(self.path.name, None, None, "no labels in the file")
        return CampaignFile(self.path.name, fmt, label_columns, list(self.columns), self.records, self.count,
                            rejected)


WRITE_CHUNK = 5000  # records compared with the project's labels and written at a time


def _new_in_chunk(project: Project, file: str, chunk: list[LabelRecord]) -> list[LabelRecord]:
    """The chunk's labels not yet in the project; a label that contradicts one already there is refused."""
    existing: dict[tuple[str, str, str], tuple[str, str, int]] = {}
    items_by_level: dict[str, set[str]] = {}
    for r in chunk:
        items_by_level.setdefault(r.level, set()).add(r.item_id)
    for level, items in items_by_level.items():
        for part in in_chunks(sorted(items)):
            for lvl, item, worker, label, file_name, line in CampaignLabel.objects.filter(
                    project=project, level=level, item_id__in=part).values_list(
                    "level", "item_id", "worker_id", "label", "file_name", "line"):
                existing[(lvl, item, worker)] = (label, file_name, line)
    todo = []
    for r in chunk:
        before = existing.get((r.level, r.item_id, r.worker_id))
        if before is None:
            todo.append(r)
        elif before[0] != r.label:
            raise Where(file, r.line, LABEL).error(
                f"worker {r.worker_id!r} already has label {before[0]!r} for item {r.item_id!r} in project "
                f"{project.name!r} ({before[1]}, line {before[2]})")
    return todo


def write(project: Project, parsed: CampaignFile) -> CampaignImportResult:
    """Add the file's labels not yet in the project, reading the file again a chunk at a time. Call inside a
    transaction: a label that contradicts one already imported raises (rolling back what earlier chunks wrote),
    and so does a project holding collected content (before anything is written)."""
    if Response.objects.filter(project=project).exists():
        raise ImportFormatError(parsed.file, None, None, f"project {project.name!r} holds collected items; import "
                                f"a past campaign into a project of its own (e.g. --project {project.name}-campaign)")
    campaign, _ = Campaign.objects.get_or_create(project=project)
    written = 0
    records = parsed.records()
    while chunk := list(islice(records, WRITE_CHUNK)):  # the file again, a chunk at a time
        todo = _new_in_chunk(project, parsed.file, chunk)
        CampaignLabel.objects.bulk_create(
            [CampaignLabel(project=project, level=r.level, item_id=r.item_id, worker_id=r.worker_id, label=r.label,
                           groups=r.groups, file_name=parsed.file[:255], line=r.line) for r in todo],
            batch_size=BULK,
        )
        written += len(todo)
    result = CampaignImportResult(file=parsed.file, lines=parsed.count, skipped=parsed.count - written,
                                  rejected=parsed.rejected)
    result.created["campaign labels"] = written
    columns = list(dict.fromkeys([*campaign.group_columns, *parsed.group_columns]))
    entry = {"file": parsed.file, "format": parsed.fmt, "label_columns": parsed.label_columns}
    files = campaign.files if entry in campaign.files else [*campaign.files, entry]
    if columns != campaign.group_columns or files != campaign.files:
        campaign.group_columns, campaign.files = columns, files
        campaign.save(update_fields=["group_columns", "files"])
    result.group_columns = columns
    return result
