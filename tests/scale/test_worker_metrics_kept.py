"""The workers list reads its figures from the kept table (services.worker_metrics, issue 25 item 1): a page's
figures equal the frame-based reference over every worker; a large project never computes them in the request
(stale figures with their age, one queued recomputation), and a recomputation brings them up to date."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import Assignment, ProjectMembership
from annotation_tasks.services import quality, worker_metrics
from annotation_tasks.services.quality import metrics as quality_metrics
from tests.api.conftest import client_for
from tests.crowd.test_worker_page_metrics import random_project

pytestmark = pytest.mark.django_db

COMPARED = ("units_done", "gold_total", "gold_correct", "agreement_compared", "median_time_on_task_ms")


def researcher_of(project):
    user = get_user_model().objects.create_user(f"r{project.pk}", password="x")
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    return client_for(user)


def assert_equal_to_reference(rows: list[dict], reference: dict) -> None:
    for row in rows:
        expected = reference[row["id"]].as_dict()
        got = row["metrics"]
        for key in COMPARED:
            assert got[key] == expected[key], key
        for key in ("agreement", "gold_accuracy"):
            assert (got[key] is None) == (expected[key] is None)
            if got[key] is not None:
                assert got[key] == pytest.approx(expected[key])


def test_a_page_equals_the_reference_over_every_worker(monkeypatch):
    project, _ = random_project(5, n_workers=7)
    client = researcher_of(project)
    reference = quality.worker_metrics(project)
    body = client.get(f"/api/workers/?project={project.pk}&page_size=3&page=2").json()
    assert len(body["results"]) == 3 and body["metrics_state"]["stale"] is False
    assert_equal_to_reference(body["results"], reference)
    # a small project follows a change (recomputed in the request once the version is read again)
    a = Assignment.objects.filter(unit__project=project, status="submitted", worker_id=body["results"][0]["id"]).first()
    if a is not None:
        Assignment.objects.filter(pk=a.pk).update(status="rejected")
        monkeypatch.setattr(worker_metrics, "CHECKED_SECONDS", 0)  # the version is read again after it
        body = client.get(f"/api/workers/?project={project.pk}&page_size=3&page=2").json()
        assert_equal_to_reference(body["results"], quality.worker_metrics(project))


def test_a_large_project_is_never_computed_in_the_request(monkeypatch):
    project, _ = random_project(6, n_workers=6)
    client = researcher_of(project)
    queued: list[int] = []
    monkeypatch.setattr(worker_metrics, "is_large", lambda p: True)  # every project counts as large
    monkeypatch.setattr(worker_metrics, "queue_refresh",
                        lambda p: queued.append(p.pk) or True)

    def forbidden(*args, **kwargs):
        raise AssertionError("the request computed the project's figures")

    real = quality_metrics.page_metrics
    monkeypatch.setattr(quality_metrics, "page_metrics", forbidden)
    url = f"/api/workers/?project={project.pk}&page_size=4"
    body = client.get(url).json()
    assert body["metrics_state"]["pending"] is True and all(r["metrics"] is None for r in body["results"])
    assert queued == [project.pk]
    monkeypatch.setattr(quality_metrics, "page_metrics", real)
    worker_metrics.refresh(project)  # what the queued task runs
    monkeypatch.setattr(quality_metrics, "page_metrics", forbidden)
    body = client.get(url).json()
    assert body["metrics_state"] == {**body["metrics_state"], "stale": False, "pending": False}
    assert_equal_to_reference(body["results"], quality.worker_metrics(project))
    before = {r["id"]: r["metrics"]["units_done"] for r in body["results"]}
    # the data changes: the kept figures are served, marked stale, and a recomputation is queued
    a = Assignment.objects.filter(unit__project=project, status="submitted", worker_id__in=before).first()
    Assignment.objects.filter(pk=a.pk).update(status="rejected")
    monkeypatch.setattr(worker_metrics, "CHECKED_SECONDS", 0)  # the kept figures are due a check
    body = client.get(url).json()
    assert body["metrics_state"]["stale"] is True
    assert {r["id"]: r["metrics"]["units_done"] for r in body["results"]} == before
    assert queued == [project.pk, project.pk]
    monkeypatch.setattr(quality_metrics, "page_metrics", real)
    worker_metrics.refresh(project, only_if_changed=True)  # the queued check: the data changed
    monkeypatch.setattr(worker_metrics, "CHECKED_SECONDS", 30)
    body = client.get(url).json()
    assert body["metrics_state"]["stale"] is False
    assert {r["id"]: r["metrics"]["units_done"] for r in body["results"]}[a.worker_id] == before[a.worker_id] - 1


def test_the_queued_task_refreshes_once_at_a_time(settings):
    project, _ = random_project(7, n_workers=3, n_units=2)
    assert worker_metrics.queue_refresh(project)  # eager in tests: it ran, and freed its lock
    kept = worker_metrics.page(project, list(quality.worker_metrics(project)))
    assert kept.metrics and not kept.stale
    at = kept.computed_at
    assert worker_metrics.refresh(project, only_if_changed=True) == 0  # unchanged: only marked checked
    assert worker_metrics.page(project, list(kept.metrics)).computed_at == at
    from django.core.cache import cache

    cache.add(f"factcrowd:worker-metrics-refresh:{project.pk}", 1, 60)
    assert worker_metrics.queue_refresh(project) is False  # one is queued already
