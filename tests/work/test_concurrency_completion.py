"""A unit completes exactly when its last wanted assignment is submitted, whatever the interleaving.

The load run of issue 10 left 38 of 1,404 fully labelled units "open": two submits committing within a few ms
each counted the other's assignment as not yet submitted. Here every assignment of many units is submitted at
the same instant (threads released by one barrier, each on its own database connection), which is the race
itself, on the database the suite runs on: PostgreSQL row locks, SQLite's IMMEDIATE transactions.
"""
from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection

from annotation_tasks.models import Assignment, QALabel, SpanLabel, Unit, Worker
from annotation_tasks.services import work
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = [pytest.mark.django_db(transaction=True)]

N_UNITS = 12
WANTED = 3


def _submit_all_at_once(assignments: list[Assignment], labels: dict[int, dict]) -> tuple[list, list]:
    barrier = threading.Barrier(len(assignments))
    results, errors = [], []

    def run(a: Assignment) -> None:
        try:
            fresh = Assignment.objects.select_related("unit__project", "unit__source").get(pk=a.pk)
            barrier.wait()
            results.append(work.submit(fresh, {"labels": labels[a.pk], "time_on_task_ms": 5}).duplicate)
        except Exception as exc:  # pragma: no cover - reported by the assertion
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(a,)) for a in assignments]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results, errors


def test_units_whose_submits_land_together_all_complete():
    units = make_unit("Race", n_sources=N_UNITS, wanted=WANTED, n_qas=2)
    assignments, labels = [], {}
    for unit in units:
        for k in range(WANTED):
            worker = Worker.objects.create(provider="local", external_id=f"u{unit.pk}-w{k}")
            a = Assignment.objects.create(unit=unit, worker=worker)
            labels[a.pk] = qasem_labels(work.unit_payload(a))
            assignments.append(a)

    results, errors = _submit_all_at_once(assignments, labels)

    assert errors == []
    assert results == [False] * len(assignments)
    statuses = Counter(Unit.objects.filter(pk__in=[u.pk for u in units]).values_list("status", flat=True))
    assert statuses == {Unit.Status.COMPLETE: N_UNITS}, f"{connection.vendor}: {statuses}"
    assert Assignment.objects.filter(unit__in=units, status=Assignment.Status.SUBMITTED).count() == N_UNITS * WANTED
    # each label once: two QAs and two spans per response, two responses per unit
    per_assignment = Counter(QALabel.objects.filter(assignment__unit__in=units).values_list("assignment_id", flat=True))
    assert set(per_assignment.values()) == {4}
    assert SpanLabel.objects.filter(assignment__unit__in=units).count() == 4 * N_UNITS * WANTED


def test_a_unit_short_of_its_last_submit_stays_open():
    """The other side: completion is not early either (a unit with one of three assignments unsubmitted)."""
    units = make_unit("Short", n_sources=N_UNITS, wanted=WANTED, n_qas=1)
    assignments, labels = [], {}
    for unit in units:
        for k in range(WANTED):
            worker = Worker.objects.create(provider="local", external_id=f"s{unit.pk}-w{k}")
            a = Assignment.objects.create(unit=unit, worker=worker)
            labels[a.pk] = qasem_labels(work.unit_payload(a))
            if k < WANTED - 1:
                assignments.append(a)

    results, errors = _submit_all_at_once(assignments, labels)

    assert errors == [] and results == [False] * len(assignments)
    assert set(Unit.objects.filter(pk__in=[u.pk for u in units]).values_list("status", flat=True)) == {Unit.Status.OPEN}
