"""One counted vote per worker per item across batches (issue 23, item 5).

Before: a second batch over the same sources gave the same worker the same items again, and both votes counted
(the qa-jsonl line listed the same W-... twice). Now the queue leaves such units to other workers, a vote that
reaches them anyway (a platform entry) is not stored a second time, and only a batch the researcher marks as a
test-retest (settings.retest) asks the same workers again, with the repeat marked in the export.
"""
from __future__ import annotations

import json

import pytest

from annotation_tasks.exporters import qa_jsonl
from annotation_tasks.models import Assignment, Batch, QALabel, Unit, Worker
from annotation_tasks.services import queue, work
from annotation_tasks.services.units import compose_units
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db


def _submit(assignment: Assignment) -> None:
    payload = work.unit_payload(assignment)
    assignment.refresh_from_db()
    assert work.submit(assignment, {"labels": qasem_labels(payload, pairwise=None), "time_on_task_ms": 1000}).status \
        == "submitted"


def _second_batch(project, name: str, **settings) -> Unit:
    batch = Batch.objects.create(project=project, name=name, settings=settings)
    (unit,) = compose_units(batch, assignments_wanted=3)
    return unit


def _lines(project) -> list[dict]:
    return [json.loads(x) for x in qa_jsonl.export_lines(project)]


@pytest.fixture
def first_round():
    unit = make_unit("Twice", protocol=["span_coverage", "qa_support"], n_qas=1, n_responses=1, wanted=1, gold=False)
    worker = Worker.objects.create(external_id="w-once")
    assignment = queue.next_assignment(worker, unit.project)
    assert assignment.unit_id == unit.pk
    _submit(assignment)
    return unit.project, worker


def test_a_second_batch_over_the_same_sources_is_not_served_to_the_same_worker(first_round):
    project, worker = first_round
    again = _second_batch(project, "b2")
    assert queue.next_assignment(worker, project) is None
    other = Worker.objects.create(external_id="w-new")
    assert queue.next_assignment(other, project).unit_id == again.pk


def test_a_vote_that_reaches_the_same_items_anyway_counts_once(first_round):
    project, worker = first_round
    again = _second_batch(project, "b2")
    platform_entry = Assignment.objects.create(unit=again, worker=worker)  # e.g. an MTurk HIT of batch b2
    _submit(platform_entry)
    assert not QALabel.objects.filter(assignment=platform_entry).exists()
    for line in _lines(project):
        assert len(line["workers"]) == len(set(line["workers"])) == 1 and "retest" not in line


def test_a_retest_batch_asks_again_and_the_export_marks_the_repeat(first_round):
    project, worker = first_round
    retest = _second_batch(project, "retest", retest=True)
    assignment = queue.next_assignment(worker, project)
    assert assignment is not None and assignment.unit_id == retest.pk
    _submit(assignment)
    (line,) = _lines(project)
    assert line["workers"] == [worker.pseudonym_in(project.pk)] * 2 and line["retest"] == [False, True]


def test_a_second_vote_already_stored_counts_once_in_the_exports(first_round):
    """Votes stored twice before the fix (a database from an earlier version) still count once in every export."""
    project, worker = first_round
    again = _second_batch(project, "b2")
    second = Assignment.objects.create(unit=again, worker=worker, status=Assignment.Status.SUBMITTED)
    for label in QALabel.objects.filter(assignment__worker=worker).exclude(assignment=second):
        QALabel.objects.create(assignment=second, qa=label.qa, supported=not label.supported)
    (line,) = _lines(project)
    assert line["workers"] == [worker.pseudonym_in(project.pk)] and len(line["votes"]) == 1
