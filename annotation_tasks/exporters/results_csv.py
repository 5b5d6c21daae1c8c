"""MTurk batch results CSV, the writer: a batch's finished work in MTurk's "Download results" shape.

Turkle reads and writes the same file. Columns: HIT and assignment columns, `Input.*` (what the HIT was
given) and `Answer.*` (what the worker sent). Our answer is the submission payload as JSON in
`Answer.labels`, so an exported file imports back losslessly (annotation_tasks.importers.results_csv).
Worker-typed cells (WorkerId, feedback, ...) that a spreadsheet would run as a formula get a leading quote
(annotation_tasks.csvsafe); the reader removes it.
"""
from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime

from annotation_tasks.csvsafe import dict_writer, neutralise
from annotation_tasks.models import Assignment, Batch

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

_S = Assignment.Status
MTURK_STATUS = {_S.SUBMITTED: "Submitted", _S.APPROVED: "Approved", _S.REJECTED: "Rejected"}  # finished work
TIME_FORMAT = "%a %b %d %H:%M:%S %Z %Y"  # MTurk's: "Tue Jan 02 10:00:00 PST 2024"


def _mturk_time(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime(TIME_FORMAT).replace("UTC", "GMT") if value else ""


def export_rows(batch: Batch) -> Iterator[dict[str, str]]:
    """One row per submitted/approved/rejected assignment of the batch, in MTurk's results shape."""
    settings = batch.settings or {}
    qs = (
        Assignment.objects.filter(unit__batch=batch, status__in=Assignment.Status.done())
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
            "AssignmentStatus": MTURK_STATUS[a.status],
            "AcceptTime": _mturk_time(a.started_at or a.created_at),
            "SubmitTime": _mturk_time(a.submitted_at),
            "AutoApprovalTime": "",
            "ApprovalTime": _mturk_time(a.reviewed_at) if a.status == _S.APPROVED else "",
            "RejectionTime": _mturk_time(a.reviewed_at) if a.status == _S.REJECTED else "",
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
    writer = dict_writer(out, COLUMNS)
    writer.writeheader()
    n = 0
    for row in export_rows(batch):
        writer.writerow({column: neutralise(value) for column, value in row.items()})
        n += 1
    return n
