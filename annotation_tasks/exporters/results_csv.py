"""MTurk batch results CSV, the writer: a batch's finished work in MTurk's "Download results" shape.

Turkle reads and writes the same file. Columns: HIT and assignment columns, `Input.*` (what the HIT was
given) and `Answer.*` (what the worker sent). Our answer is the submission payload as JSON in
`Answer.labels`, so an exported file imports back losslessly (annotation_tasks.importers.results_csv).
Worker-typed cells (WorkerId, feedback, ...) that a spreadsheet would run as a formula get a leading quote
(annotation_tasks.csvsafe); the reader removes it.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import NamedTuple, TextIO

from django.db.models import Q

from annotation_tasks.csvsafe import dict_writer, neutralise
from annotation_tasks.exporters.base import id_list
from annotation_tasks.models import Assignment, Batch, Unit, UnitResponse

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
MTURK_STATUS: dict[str, str] = {_S.SUBMITTED: "Submitted", _S.APPROVED: "Approved", _S.REJECTED: "Rejected"}  # finished work
TIME_FORMAT = "%a %b %d %H:%M:%S %Z %Y"  # MTurk's: "Tue Jan 02 10:00:00 PST 2024"


def _mturk_time(value: datetime | None) -> str:
    return value.astimezone(UTC).strftime(TIME_FORMAT).replace("UTC", "GMT") if value else ""


FIELDS = ("id", "unit_id", "status", "provider_assignment_id", "worker__external_id", "started_at", "created_at",
          "submitted_at", "reviewed_at", "feedback", "time_on_task_ms", "submission")
UNIT_FIELDS = ("id", "provider_ref", "created_at", "assignments_wanted", "source__external_id", "mode")


class _Unit(NamedTuple):
    pk: int
    provider_ref: str
    created_at: datetime | None
    assignments_wanted: int
    source_external_id: str
    mode: str


class _Assignment(NamedTuple):
    pk: int
    unit_id: int
    status: str
    provider_assignment_id: str
    worker_external_id: str
    started_at: datetime | None
    created_at: datetime | None
    submitted_at: datetime | None
    reviewed_at: datetime | None
    feedback: str
    time_on_task_ms: int | None
    submission: dict | None


def _chunks(batch: Batch, size: int) -> Iterator[tuple[list[_Assignment], dict[int, _Unit], dict[int, list[str]]]]:
    """The batch's finished assignments in (unit, id) order, a chunk at a time as plain values, with their units and
    each unit's response ids (three queries a chunk; memory holds one chunk whatever the batch's size)."""
    qs = Assignment.objects.filter(unit__batch=batch, status__in=Assignment.Status.done())
    last: tuple[int, int] | None = None
    while True:
        page_qs = qs if last is None else qs.filter(Q(unit_id__gt=last[0]) | Q(unit_id=last[0], id__gt=last[1]))
        page = [_Assignment(*row) for row in page_qs.order_by("unit_id", "id").values_list(*FIELDS)[:size]]
        if not page:
            return
        unit_ids = id_list({a.unit_id for a in page})
        units = {row[0]: _Unit(*row) for row in Unit.objects.filter(pk__in=unit_ids).values_list(*UNIT_FIELDS)}
        responses: dict[int, list[str]] = {}
        for unit_id, external_id in (UnitResponse.objects.filter(unit_id__in=unit_ids)
                                     .order_by("unit_id", "position").values_list("unit_id", "response__external_id")):
            responses.setdefault(unit_id, []).append(external_id)
        yield page, units, responses
        last = (page[-1].unit_id, page[-1].pk)


def export_rows(batch: Batch, chunk_size: int = 2_000) -> Iterator[dict[str, str]]:
    """One row per submitted/approved/rejected assignment of the batch, in MTurk's results shape."""
    for page, units, unit_responses in _chunks(batch, chunk_size):
        yield from _rows(batch, page, units, unit_responses)


def _rows(batch: Batch, page: list[_Assignment], units: dict[int, _Unit], unit_responses: dict[int, list[str]]
          ) -> Iterator[dict[str, str]]:
    settings = batch.settings or {}
    for a in page:
        unit = units[a.unit_id]
        responses = unit_responses.get(unit.pk, [])
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
            "WorkerId": a.worker_external_id,
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
            "Input.source_id": unit.source_external_id,
            "Input.response_ids": "|".join(responses),
            "Input.mode": unit.mode,
            "Answer.labels": json.dumps(submission.get("labels"), sort_keys=True) if "labels" in submission else "",
            "Answer.time_on_task_ms": "" if a.time_on_task_ms is None else str(a.time_on_task_ms),
            "Approve": "",
            "Reject": "",
        }


def write_results_csv(batch: Batch, out: TextIO) -> int:
    """Write the batch's results CSV; returns the number of rows (a header is always written)."""
    writer = dict_writer(out, COLUMNS)
    writer.writeheader()
    n = 0
    for row in export_rows(batch):
        writer.writerow({column: neutralise(value) for column, value in row.items()})
        n += 1
    return n
