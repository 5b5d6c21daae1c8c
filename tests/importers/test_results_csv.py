"""MTurk batch results CSV: export in MTurk's shape, import (ours back, or another campaign's) without duplicates."""
from __future__ import annotations

import csv
import io

import pytest

from annotation_tasks.exporters.results_csv import COLUMNS, write_results_csv
from annotation_tasks.importers.base import ImportFormatError
from annotation_tasks.models import Assignment, Batch, QALabel, SpanLabel, Unit
from annotation_tasks.services import queue, work
from annotation_tasks.services.imports import import_results_csv
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def worked_batch():
    unit = make_unit("CSV", n_qas=2, n_responses=1, wanted=2)
    from annotation_tasks.models import Worker

    for name, first_supported in (("W1", True), ("W2", False)):
        worker = Worker.objects.create(provider="local", external_id=name)
        a = queue.assign(unit, worker)
        payload = work.unit_payload(a)
        r = payload["responses"][0]
        labels = {
            "spans": [{"span_id": s["id"], "covered": True} for s in r["spans"]],
            "qas": [{"qa_id": q["id"], "supported": first_supported and i == 0, "derived_from_span": False,
                     "note": ""} for i, q in enumerate(r["qas"])],
        }
        work.submit(a, {"labels": labels, "time_on_task_ms": 61000})
    return unit


def test_export_has_mturk_columns_and_our_answer():
    unit = worked_batch()
    out = io.StringIO()
    assert write_results_csv(unit.batch, out) == 2
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert list(rows[0]) == COLUMNS
    assert {r["WorkerId"] for r in rows} == {"W1", "W2"}
    assert rows[0]["AssignmentStatus"] == "Submitted" and rows[0]["WorkTimeInSeconds"] == "61"
    assert rows[0]["Input.source_id"] == unit.source.external_id and rows[0]["Answer.labels"].startswith('{"qas"')


def test_round_trip_into_a_fresh_batch_and_reimport_adds_nothing():
    unit = worked_batch()
    out = io.StringIO()
    write_results_csv(unit.batch, out)
    target = Batch.objects.create(project=unit.project, name="reimported", provider="mturk")
    result = import_results_csv(target, io.StringIO(out.getvalue()))
    assert (result.rows, result.assignments_created, result.labels_written, result.units_created) == (2, 2, 2, 1)
    assert result.errors == []
    imported = Assignment.objects.filter(unit__batch=target)
    assert sorted(imported.values_list("worker__external_id", "status")) == [("W1", "submitted"), ("W2", "submitted")]
    original = {(lab.span_id, lab.covered) for lab in SpanLabel.objects.filter(assignment__unit=unit)}
    assert {(lab.span_id, lab.covered) for lab in SpanLabel.objects.filter(assignment__in=imported)} == original
    assert QALabel.objects.filter(assignment__in=imported, supported=True).count() == 1
    again = import_results_csv(target, io.StringIO(out.getvalue()))
    assert (again.assignments_created, again.assignments_existing) == (0, 2)
    target.refresh_from_db()
    assert target.status == "imported"


def test_outside_campaign_rows_without_our_labels_keep_their_answers():
    unit = make_unit("CSV2", n_qas=1, n_responses=1)
    text = (
        "HITId,WorkerId,AssignmentId,AssignmentStatus,SubmitTime,WorkTimeInSeconds,Input.source_id,Answer.verdict\n"
        f"HIT1,AW1,ASG1,Approved,Tue Jan 02 10:00:00 PST 2024,30,{unit.source.external_id},supported\n"
        "HIT2,AW2,ASG2,Submitted,,,unknown-source,x\n"
    )
    batch = Batch.objects.create(project=unit.project, name="outside")
    result = import_results_csv(batch, io.StringIO(text))
    assert result.assignments_created == 1 and len(result.errors) == 1 and "HIT2" in result.errors[0]
    a = Assignment.objects.get(provider_assignment_id="ASG1")
    assert (a.status, a.submission, a.time_on_task_ms) == ("approved", {"platform_answer": {"verdict": "supported"}}, 30000)
    assert a.submitted_at.year == 2024 and a.unit.provider_ref == "HIT1"


@pytest.mark.parametrize(("row", "column"), [
    ("HIT1,,ASG1,Submitted,{src},", "WorkerId"),
    ("HIT1,AW1,ASG1,Submitted,{src},pairwise", "Input.mode"),
])
def test_a_row_that_cannot_be_imported_refuses_the_file_naming_line_and_column(row, column):
    unit = make_unit("CSV3", n_qas=1, n_responses=1)
    good = f"HIT0,AW0,ASG0,Submitted,{unit.source.external_id},qasem"
    text = "HITId,WorkerId,AssignmentId,AssignmentStatus,Input.source_id,Input.mode\n" + good + "\n" + row.format(
        src=unit.source.external_id) + "\n"
    batch = Batch.objects.create(project=unit.project, name="broken")
    with pytest.raises(ImportFormatError) as raised:
        import_results_csv(batch, io.StringIO(text))
    assert (raised.value.line, raised.value.field) == (3, column)
    assert not Assignment.objects.filter(unit__batch=batch).exists() and not Unit.objects.filter(batch=batch).exists()
