"""MTurk batch results CSV, the reader: an MTurk (or Turkle) results file back into a batch.

`read` turns the rows into plain records (no database); `write` finds or composes each row's unit, upserts
the worker and the assignment on (AssignmentId, WorkerId) like sync, and hands the labels to the `submit`
it is given: the work service's validated submit (annotation_tasks.services.imports.import_results_csv
wires it), so labels are never written here. A row whose labels do not validate is reported in `errors`
and the rest still import; rerunning a file adds nothing twice. Other campaigns' answers can be mapped
with `answer_to_labels`. The writer (annotation_tasks.exporters.results_csv) produces the same columns.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import cast

from django.db import transaction
from django.utils import timezone

from annotation_tasks.csvsafe import restore
from annotation_tasks.importers.base import ImportFormatError, check_header
from annotation_tasks.models import Assignment, Batch, Response, Source, Unit, UnitResponse, Worker

FILE = "results CSV"
_S = Assignment.Status
STATUS_FROM_MTURK = {"Submitted": _S.SUBMITTED, "Approved": _S.APPROVED, "Rejected": _S.REJECTED}

# submit(assignment, {"labels": ..., "time_on_task_ms": ...}) -> None, or why the labels were not accepted
Submit = Callable[[Assignment, dict], str | None]


@dataclass
class ImportResult:
    rows: int = 0
    assignments_created: int = 0
    assignments_existing: int = 0
    labels_written: int = 0
    units_created: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ResultRow:
    """One results row as read: the HIT, the worker's assignment, and the answer."""

    line: int  # as a spreadsheet shows it (the header is line 1)
    hit_id: str
    worker_id: str
    assignment_id: str
    status: str | None  # an Assignment.Status; None: a status we do not import (the row is skipped)
    accepted_at: datetime | None
    submitted_at: datetime | None
    reviewed_at: datetime | None
    feedback: str
    unit_id: int | None
    source_id: str
    response_ids: list[str]
    mode: str
    max_assignments: int
    labels: dict | None
    label_error: str  # why the answer could not be read into labels, or ""
    time_on_task_ms: int | None
    answers: dict[str, str]  # every non-empty Answer.* column, kept as the platform's answer


def default_labels(row: Mapping[str, str]) -> dict | None:
    """Our own export's answer: the submission's labels as JSON in Answer.labels."""
    raw = row.get("Answer.labels", "")
    return json.loads(raw) if raw else None


def parse_time(value: str) -> datetime | None:
    """ISO 8601, or MTurk's "Tue Jan 02 10:00:00 PST 2024" (the zone name is not portable: read as UTC)."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except ValueError:
        pass
    parts = value.split()
    if len(parts) == 6:
        try:
            return datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


def _time_on_task_ms(row: Mapping[str, str]) -> int | None:
    ms, work_s = row.get("Answer.time_on_task_ms", ""), row.get("WorkTimeInSeconds", "")
    return int(ms) if ms.isdigit() else (int(work_s) * 1000 if work_s.isdigit() else None)


def _row(line: int, row: Mapping[str, str], answer_to_labels: Callable[[Mapping[str, str]], dict | None]) -> ResultRow:
    def bad(column: str, message: str) -> ImportFormatError:
        return ImportFormatError(FILE, line, column, message)

    if not (row.get("WorkerId") or "").strip():
        raise bad("WorkerId", "missing: every row needs the worker who did it")
    if (row.get("MaxAssignments") or "1").strip() and not (row.get("MaxAssignments") or "1").strip().isdigit():
        raise bad("MaxAssignments", f"{row['MaxAssignments']!r} is not a whole number")
    mode = row.get("Input.mode") or ""
    if mode and mode not in Unit.Mode.values:
        raise bad("Input.mode", f"{mode!r} is not a unit mode ({', '.join(Unit.Mode.values)})")
    labels, label_error = None, ""
    try:
        labels = answer_to_labels(row)
    except (ValueError, KeyError) as exc:
        label_error = f"line {line}: unreadable answer: {exc}"
    hit = row.get("HITId", "")
    return ResultRow(
        line=line,
        hit_id=hit,
        worker_id=row["WorkerId"],
        assignment_id=row.get("AssignmentId") or f"{hit}:{row['WorkerId']}",
        status=STATUS_FROM_MTURK.get(row.get("AssignmentStatus", "Submitted") or "Submitted"),
        accepted_at=parse_time(row.get("AcceptTime", "")),
        submitted_at=parse_time(row.get("SubmitTime", "")),
        reviewed_at=parse_time(row.get("ApprovalTime", "") or row.get("RejectionTime", "")),
        feedback=row.get("RequesterFeedback", ""),
        unit_id=int(row["Input.unit_id"]) if row.get("Input.unit_id", "").isdigit() else None,
        source_id=row.get("Input.source_id", ""),
        response_ids=[r for r in row.get("Input.response_ids", "").split("|") if r],
        mode=mode,
        max_assignments=int((row.get("MaxAssignments") or "1").strip() or 1),
        labels=labels,
        label_error=label_error,
        time_on_task_ms=_time_on_task_ms(row),
        answers={k[len("Answer."):]: v for k, v in row.items() if k.startswith("Answer.") and v},
    )


def read(
    rows: Iterable[Mapping[str, str]] | io.TextIOBase,
    answer_to_labels: Callable[[Mapping[str, str]], dict | None] = default_labels,
) -> list[ResultRow]:
    """The file's rows (an open text file or dicts) as records, numbered as a spreadsheet shows them.

    Raises ImportFormatError naming the line and column of a row that cannot be imported at all (no worker,
    an unknown mode), before anything is written; an answer that does not read as labels is only reported."""
    if hasattr(rows, "read"):
        reader = csv.DictReader(cast(io.TextIOBase, rows))
        check_header(FILE, reader.fieldnames or [])
        table: Iterable[Mapping[str, str]] = reader
    else:
        table = cast(Iterable[Mapping[str, str]], rows)
    # our writer quotes formula-leading cells (annotation_tasks.csvsafe): read them back as they were written
    return [_row(line, {k: restore(v) if isinstance(v, str) else v for k, v in row.items()}, answer_to_labels)
            for line, row in enumerate(table, start=2)]


def _unit_for(batch: Batch, rec: ResultRow, units: dict[str, Unit], result: ImportResult) -> Unit | None:
    """Find the row's unit by HITId, our unit id, or the source (creating a unit in the batch for the source)."""
    if rec.hit_id in units:
        return units[rec.hit_id]
    unit = Unit.objects.filter(batch=batch, provider_ref=rec.hit_id).first() if rec.hit_id else None
    if unit is None and rec.unit_id is not None:
        unit = Unit.objects.filter(pk=rec.unit_id, project=batch.project).first()
        if unit is not None and unit.batch_id != batch.pk:
            unit = None  # a unit of another batch: compose a fresh one here instead
    if unit is None:
        source = Source.objects.filter(project=batch.project, external_id=rec.source_id).first()
        if source is None:
            return None
        responses = Response.objects.filter(source=source).order_by("id")
        if rec.response_ids:
            by_ext = {r.external_id: r for r in responses.filter(external_id__in=rec.response_ids)}
            responses = [by_ext[r] for r in rec.response_ids if r in by_ext]
        unit = Unit.objects.create(
            project=batch.project, batch=batch, source=source, mode=rec.mode or Unit.Mode.QASEM,
            assignments_wanted=rec.max_assignments, provider_ref=rec.hit_id,
        )
        UnitResponse.objects.bulk_create(
            [UnitResponse(unit=unit, response=r, position=i) for i, r in enumerate(responses)]
        )
        result.units_created += 1
    if rec.hit_id:
        units[rec.hit_id] = unit
    return unit


def write(batch: Batch, records: Iterable[ResultRow], *, submit: Submit, provider_name: str = "mturk") -> ImportResult:
    """Record each row's assignment in `batch` (once: keyed on AssignmentId and WorkerId), its labels through
    `submit`, then the platform's status, times and answer; a draft batch becomes an imported one."""
    result = ImportResult()
    units: dict[str, Unit] = {}
    for rec in records:
        result.rows += 1
        if rec.status is None:
            continue
        with transaction.atomic():
            unit = _unit_for(batch, rec, units, result)
            if unit is None:
                result.errors.append(f"line {rec.line}: no unit or source for HIT {rec.hit_id!r}")
                continue
            worker, _ = Worker.objects.get_or_create(provider=provider_name, external_id=rec.worker_id)
            if Assignment.objects.filter(provider_assignment_id=rec.assignment_id, worker=worker).exists():
                result.assignments_existing += 1
                continue
            a = Assignment.objects.create(
                unit=unit, worker=worker, provider_assignment_id=rec.assignment_id, started_at=rec.accepted_at,
            )
            result.assignments_created += 1
        if rec.label_error:
            result.errors.append(rec.label_error)
        if rec.labels is not None:
            refused = submit(a, {"labels": rec.labels, "time_on_task_ms": rec.time_on_task_ms})
            if refused is None:
                result.labels_written += 1
            else:
                result.errors.append(f"line {rec.line}: labels not accepted: {refused}")
        a.refresh_from_db()
        a.status = rec.status
        a.submitted_at = rec.submitted_at or a.submitted_at or timezone.now()
        a.feedback = rec.feedback or a.feedback
        if rec.status != Assignment.Status.SUBMITTED:
            a.reviewed_at = rec.reviewed_at or timezone.now()
        if a.submission is None:
            a.submission = {"platform_answer": rec.answers}
        if a.time_on_task_ms is None and rec.time_on_task_ms is not None:
            a.time_on_task_ms = rec.time_on_task_ms
        a.save()
    if batch.status == Batch.Status.DRAFT:
        batch.status = Batch.Status.IMPORTED
        batch.save(update_fields=["status"])
    return result
