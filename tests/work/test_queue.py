"""The local next-unit queue: exactly N distinct annotators per unit, expiry, and the HTTP endpoint."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.celery_tasks import expire_abandoned_assignments
from annotation_tasks.models import Assignment, ProjectMembership, Worker, WorkerProjectStatus
from annotation_tasks.services import queue
from annotation_tasks.services.local_workers import local_worker
from tests.work.builders import make_unit


def _workers(n: int) -> list[Worker]:
    return [Worker.objects.create(external_id=f"w{i}") for i in range(n)]


@pytest.mark.django_db
def test_each_unit_goes_to_exactly_n_distinct_workers():
    units = make_unit("Q", n_sources=3, wanted=2, n_qas=1)
    project = units[0].project
    got = {}
    for w in _workers(5):
        a = queue.next_assignment(w, project)
        # the same worker asking again keeps the unit they hold
        assert queue.next_assignment(w, project) == a
        got[w.pk] = a
        if a:
            Assignment.objects.filter(pk=a.pk).update(status="submitted")
    # after submitting, each worker gets a unit they never had
    for w in Worker.objects.all():
        while (a := queue.next_assignment(w, project)) is not None:
            Assignment.objects.filter(pk=a.pk).update(status="submitted")
    per_unit = Counter(Assignment.objects.values_list("unit_id", flat=True))
    assert per_unit == {u.pk: 2 for u in units}
    pairs = list(Assignment.objects.values_list("unit_id", "worker_id"))
    assert len(pairs) == len(set(pairs)) == 6


@pytest.mark.django_db
def test_abandoned_assignments_expire_and_return_to_the_queue():
    unit = make_unit("E", wanted=1, n_qas=1)
    w1, w2 = _workers(2)
    a1 = queue.next_assignment(w1, unit.project)
    assert a1.expires_at > timezone.now()
    assert queue.next_assignment(w2, unit.project) is None
    Assignment.objects.filter(pk=a1.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert expire_abandoned_assignments.delay().get() == 1
    a1.refresh_from_db()
    assert a1.status == "expired"
    a2 = queue.next_assignment(w2, unit.project)
    assert a2 is not None and a2.unit_id == unit.pk


@pytest.mark.django_db
def test_blocked_workers_get_nothing():
    unit = make_unit("B", n_qas=1)
    (w,) = _workers(1)
    WorkerProjectStatus.objects.create(worker=w, project=unit.project, status="soft_blocked")  # blocked here
    assert queue.next_assignment(w, unit.project) is None


@pytest.mark.django_db
def test_next_endpoint_for_logged_in_annotators():
    unit = make_unit("N", wanted=1, n_qas=1)
    user = get_user_model().objects.create_user("ann", password="pw-123456")
    client = APIClient()
    assert client.post("/api/work/next", {"project": unit.project_id}, format="json").status_code in (401, 403)
    client.force_login(user)
    assert client.post("/api/work/next", {"project": unit.project_id}, format="json").status_code == 403
    ProjectMembership.objects.create(project=unit.project, user=user, role="annotator")
    r = client.post("/api/work/next", {"project": unit.project_id}, format="json")
    assert r.status_code == 200
    body = r.json()
    assert body["url"] == f"/work/{body['token']}/"
    assert client.get(f"/api/work/{body['token']}/unit").json()["assignment"]["id"] == body["assignment_id"]
    Assignment.objects.filter(pk=body["assignment_id"]).update(status="submitted")
    assert client.post("/api/work/next", {"project": unit.project_id}, format="json").status_code == 204
    assert Worker.objects.get(user=user) == local_worker(user)


def _hammer(project, workers, results, errors):
    barrier = threading.Barrier(len(workers))

    def run(w):
        try:
            barrier.wait()
            a = queue.next_assignment(w, project)
            results.append(a.unit_id if a else None)
        except Exception as exc:  # pragma: no cover - reported by the assertion below
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)


@pytest.mark.django_db(transaction=True)
def test_concurrent_requests_never_push_a_unit_past_n():
    units = make_unit("C", n_sources=4, wanted=3, n_qas=1)
    project = units[0].project
    workers = _workers(20)
    results, errors = [], []
    _hammer(project, workers, results, errors)
    assert errors == []
    per_unit = Counter(Assignment.objects.filter(status="assigned").values_list("unit_id", flat=True))
    assert all(n <= 3 for n in per_unit.values()), per_unit
    assert per_unit == {u.pk: 3 for u in units}
    assert sorted(r for r in results if r) == sorted(Assignment.objects.values_list("unit_id", flat=True))
    assert results.count(None) == 20 - 12


@pytest.mark.django_db(transaction=True)
def test_concurrent_double_submit_records_one_submission():
    from annotation_tasks.models import QALabel
    from annotation_tasks.services import work
    from tests.work.helpers import qasem_labels

    unit = make_unit("D", n_qas=3)
    (w,) = _workers(1)
    a = queue.next_assignment(w, unit.project)
    labels = qasem_labels(work.unit_payload(a))
    barrier = threading.Barrier(6)
    results, errors = [], []

    def run():
        try:
            barrier.wait()
            res = work.submit(Assignment.objects.get(pk=a.pk), {"labels": labels, "time_on_task_ms": 5})
            results.append(res.duplicate)
        except Exception as exc:  # pragma: no cover
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sorted(results) == [False] + [True] * 5
    assert QALabel.objects.filter(assignment=a).count() == 6


@pytest.mark.django_db
def test_queue_asks_quality_control_whether_to_serve_gold(monkeypatch):
    from annotation_tasks.models import Unit
    from annotation_tasks.services.quality import gold

    units = make_unit("G", n_sources=4, wanted=1, n_qas=1)
    project = units[0].project
    Unit.objects.filter(pk__in=[units[0].pk, units[1].pk]).update(is_gold=False)
    w1, w2 = _workers(2)
    monkeypatch.setattr(gold, "should_serve_gold", lambda *a, **k: True)
    assert queue.next_assignment(w1, project).unit_id == units[2].pk  # the oldest gold unit
    monkeypatch.setattr(gold, "should_serve_gold", lambda *a, **k: False)
    assert queue.next_assignment(w2, project).unit_id == units[0].pk  # the oldest ordinary unit
