"""MTurk batch results CSV: export ours in that shape (Turkle reads and writes the same), import theirs.

Columns follow MTurk's "Download results" file: HIT and assignment columns, `Input.*` (what the HIT was
given) and `Answer.*` (what the worker sent). Our answer is the submission payload as JSON in
`Answer.labels`, so an exported file imports back losslessly; labels are written by the work service's own
validated submit, never here. Other campaigns' answers can be mapped with `answer_to_labels`.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone

from annotation_tasks.models import Assignment, Batch, Response, Source, Unit, UnitResponse, Worker

HIT_COLUMNS = [
    "HITId", "HITTypeId", "Title", "Description", "Keywords", "Reward", "CreationTime", "MaxAssignments",
    "RequesterAnnotation", "AssignmentDurationInSeconds", "AutoApprovalDelayInSeconds", "Expiration",
    "NumberOfSimilarHITs", "LifetimeInSeconds",
]
ASSIGNMENT_COLUMNS = [
    "AssignmentId", "WorkerId", "AssignmentStatus", "AcceptTime", "SubmitTime", "AutoApprovalTime",
    "ApprovalTime", "RejectionTime", "RequesterFeedback", "WorkTimeInSeconds", "LifetimeApprovalRate",
    "Last30DaysApprovalRate", "Last7DaysApprovalRate",
]
INPUT_COLUMNS = ["Input.unit_id", "Input.source_id", "Input.response_ids", "Input.mode"]
ANSWER_COLUMNS = ["Answer.labels", "Answer.time_on_task_ms"]
TAIL_COLUMNS = ["Approve", "Reject"]
COLUMNS = HIT_COLUMNS + ASSIGNMENT_COLUMNS + INPUT_COLUMNS + ANSWER_COLUMNS + TAIL_COLUMNS

_STATUS_OUT = {"submitted": "Submitted", "approved": "Approved", "rejected": "Rejected"}
_STATUS_IN = {"Submitted": "submitted", "Approved": "approved", "Rejected": "rejected"}
_TIME_FORMAT = "%a %b %d %H:%M:%S %Z %Y"  # MTurk's: "Tue Jan 02 10:00:00 PST 2024"


def _mturk_time(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime(_TIME_FORMAT).replace("UTC", "GMT") if value else ""


def _parse_time(value: str) -> datetime | None:
    value = (value or "").strip()
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    except ValueError:
        pass
    parts = value.split()
    if len(parts) == 6:  # the zone name (PST, GMT...) is not parseable portably: read it as UTC, keep the clock
        try:
            return datetime.strptime(" ".join(parts[:4] + parts[5:]), "%a %b %d %H:%M:%S %Y").replace(tzinfo=UTC)
        except ValueError:
            return None
    return None


def export_rows(batch: Batch) -> Iterator[dict[str, str]]:
    """One row per submitted/approved/rejected assignment of the batch, in MTurk's results shape."""
    settings = batch.settings or {}
    qs = (
        Assignment.objects.filter(unit__batch=batch, status__in=list(_STATUS_OUT))
        .select_related("worker", "unit__source")
        .prefetch_related("unit__unit_responses__response")
        .order_by("unit_id", "id")
    )
    for a in qs:
        unit = a.unit
        responses = [ur.response.external_id for ur in unit.unit_responses.all()]
        work_s = ""
        if a.time_on_task_ms is not None:
            work_s = str(round(a.time_on_task_ms / 1000))
        elif a.started_at and a.submitted_at:
            work_s = str(int((a.submitted_at - a.started_at).total_seconds()))
        submission = a.submission or {}
        yield {
            "HITId": unit.provider_ref or f"factcrowd-unit-{unit.pk}",
            "HITTypeId": str(settings.get("hit_type_id", "")),
            "Title": str(settings.get("title", batch.name)),
            "Description": str(settings.get("description", "")),
            "Keywords": str(settings.get("keywords", "")),
            "Reward": f"${settings['reward']}" if settings.get("reward") else "",
            "CreationTime": _mturk_time(unit.created_at),
            "MaxAssignments": str(unit.assignments_wanted),
            "RequesterAnnotation": f"factcrowd:unit:{unit.pk}",
            "AssignmentDurationInSeconds": str(settings.get("duration_s", "")),
            "AutoApprovalDelayInSeconds": str(settings.get("auto_approval_delay_s", "")),
            "Expiration": "",
            "NumberOfSimilarHITs": "",
            "LifetimeInSeconds": str(settings.get("lifetime_s", "")),
            "AssignmentId": a.provider_assignment_id or f"factcrowd-assignment-{a.pk}",
            "WorkerId": a.worker.external_id,
            "AssignmentStatus": _STATUS_OUT[a.status],
            "AcceptTime": _mturk_time(a.started_at or a.created_at),
            "SubmitTime": _mturk_time(a.submitted_at),
            "AutoApprovalTime": "",
            "ApprovalTime": _mturk_time(a.reviewed_at) if a.status == "approved" else "",
            "RejectionTime": _mturk_time(a.reviewed_at) if a.status == "rejected" else "",
            "RequesterFeedback": a.feedback,
            "WorkTimeInSeconds": work_s,
            "LifetimeApprovalRate": "",
            "Last30DaysApprovalRate": "",
            "Last7DaysApprovalRate": "",
            "Input.unit_id": str(unit.pk),
            "Input.source_id": unit.source.external_id,
            "Input.response_ids": "|".join(responses),
            "Input.mode": unit.mode,
            "Answer.labels": json.dumps(submission.get("labels"), sort_keys=True) if "labels" in submission else "",
            "Answer.time_on_task_ms": "" if a.time_on_task_ms is None else str(a.time_on_task_ms),
            "Approve": "",
            "Reject": "",
        }


def write_results_csv(batch: Batch, out: io.TextIOBase) -> int:
    """Write the batch's results CSV; returns the number of rows (a header is always written)."""
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    n = 0
    for row in export_rows(batch):
        writer.writerow(row)
        n += 1
    return n


@dataclass
class ImportResult:
    rows: int = 0
    assignments_created: int = 0
    assignments_existing: int = 0
    labels_written: int = 0
    units_created: int = 0
    errors: list[str] = field(default_factory=list)


def _default_labels(row: Mapping[str, str]) -> dict | None:
    raw = row.get("Answer.labels", "")
    return json.loads(raw) if raw else None


def _unit_for(batch: Batch, row: Mapping[str, str], units: dict[str, Unit], result: ImportResult) -> Unit | None:
    """Find the row's unit by HITId, our unit id, or the source (creating a unit in the batch for the source)."""
    hit = row.get("HITId", "")
    if hit in units:
        return units[hit]
    unit = Unit.objects.filter(batch=batch, provider_ref=hit).first() if hit else None
    if unit is None and row.get("Input.unit_id", "").isdigit():
        unit = Unit.objects.filter(pk=int(row["Input.unit_id"]), project=batch.project).first()
        if unit is not None and unit.batch_id != batch.pk:
            unit = None  # a unit of another batch: compose a fresh one here instead
    if unit is None:
        source = Source.objects.filter(project=batch.project, external_id=row.get("Input.source_id", "")).first()
        if source is None:
            return None
        wanted_ids = [r for r in row.get("Input.response_ids", "").split("|") if r]
        responses = Response.objects.filter(source=source).order_by("id")
        if wanted_ids:
            by_ext = {r.external_id: r for r in responses.filter(external_id__in=wanted_ids)}
            responses = [by_ext[r] for r in wanted_ids if r in by_ext]
        unit = Unit.objects.create(
            project=batch.project, batch=batch, source=source, mode=row.get("Input.mode") or "qasem",
            assignments_wanted=int(row.get("MaxAssignments") or 1), provider_ref=hit,
        )
        UnitResponse.objects.bulk_create(
            [UnitResponse(unit=unit, response=r, position=i) for i, r in enumerate(responses)]
        )
        result.units_created += 1
    if hit:
        units[hit] = unit
    return unit


def import_results_csv(
    batch: Batch,
    rows: Iterable[Mapping[str, str]] | io.TextIOBase,
    *,
    provider_name: str = "mturk",
    answer_to_labels: Callable[[Mapping[str, str]], dict | None] = _default_labels,
) -> ImportResult:
    """Import an MTurk (or Turkle) results file into `batch`; rerunning it adds nothing twice.

    Assignments are keyed on (AssignmentId, WorkerId) like sync; labels go through the work service's
    validated submit (a row whose labels do not validate is reported in `errors`, the rest still import).
    """
    from annotation_tasks.services import work

    if hasattr(rows, "read"):
        rows = csv.DictReader(rows)
    result = ImportResult()
    units: dict[str, Unit] = {}
    for i, row in enumerate(rows, start=2):  # line numbers as a spreadsheet shows them
        result.rows += 1
        status = _STATUS_IN.get(row.get("AssignmentStatus", "Submitted") or "Submitted")
        if status is None:
            continue
        with transaction.atomic():
            unit = _unit_for(batch, row, units, result)
            if unit is None:
                result.errors.append(f"line {i}: no unit or source for HIT {row.get('HITId')!r}")
                continue
            worker, _ = Worker.objects.get_or_create(provider=provider_name, external_id=row["WorkerId"])
            aid = row.get("AssignmentId") or f"{row.get('HITId')}:{row['WorkerId']}"
            a = Assignment.objects.filter(provider_assignment_id=aid, worker=worker).first()
            if a is not None:
                result.assignments_existing += 1
                continue
            a = Assignment.objects.create(
                unit=unit, worker=worker, provider_assignment_id=aid, started_at=_parse_time(row.get("AcceptTime", "")),
            )
            result.assignments_created += 1
        try:
            labels = answer_to_labels(row)
        except (ValueError, KeyError) as exc:
            labels = None
            result.errors.append(f"line {i}: unreadable answer: {exc}")
        ms = row.get("Answer.time_on_task_ms", "")
        work_s = row.get("WorkTimeInSeconds", "")
        time_ms = int(ms) if ms.isdigit() else (int(work_s) * 1000 if work_s.isdigit() else None)
        if labels is not None:
            try:
                work.submit(a, {"labels": labels, "time_on_task_ms": time_ms})
                result.labels_written += 1
            except work.WorkError as exc:
                result.errors.append(f"line {i}: labels not accepted: {exc} {getattr(exc, 'errors', '')}")
        a.refresh_from_db()
        answers = {k[len("Answer."):]: v for k, v in row.items() if k.startswith("Answer.") and v}
        a.status = status
        a.submitted_at = _parse_time(row.get("SubmitTime", "")) or a.submitted_at or timezone.now()
        a.feedback = row.get("RequesterFeedback", "") or a.feedback
        if status != "submitted":
            a.reviewed_at = _parse_time(row.get("ApprovalTime", "") or row.get("RejectionTime", "")) or timezone.now()
        if a.submission is None:
            a.submission = {"platform_answer": answers}
        if a.time_on_task_ms is None and time_ms is not None:
            a.time_on_task_ms = time_ms
        a.save()
    if batch.status == Batch.Status.DRAFT:
        batch.status = Batch.Status.IMPORTED
        batch.save(update_fields=["status"])
    return result
