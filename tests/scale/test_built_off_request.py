"""A large project's adjudication queue and report are built by a Celery task, not in the request (issue 25
item 2, services.derived): before the first build the answer says `building` without reading a label frame; the
build's pages equal the ones built in the request; after new work the kept build is served, marked stale, while
the next one is queued."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import Assignment, ProjectMembership
from annotation_tasks.services import adjudication, derived, frames, reports
from tests.api.conftest import client_for
from tests.crowd.test_worker_page_metrics import random_project

pytestmark = pytest.mark.django_db


@pytest.fixture
def large(monkeypatch):
    """Every project counts as large with a shared cache; queued builds are recorded, not run."""
    queued: list[tuple] = []
    monkeypatch.setattr(derived, "in_background", lambda project: True)
    monkeypatch.setattr(derived, "queue_build", lambda task, project, *args: queued.append((task, project.pk, *args)))
    return queued


@pytest.fixture
def no_frames(monkeypatch):
    """Reading a labels frame fails the test while switched on."""
    state = {"on": True}
    real = frames.labels_frame

    def guarded(*args, **kwargs):
        assert not state["on"], "the request read the labels frame"
        return real(*args, **kwargs)

    monkeypatch.setattr(frames, "labels_frame", guarded)
    return state


def researcher(project):
    user = get_user_model().objects.create_user(f"adj{project.pk}", password="x")
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    return client_for(user)


def test_the_queue_is_built_off_the_request(large, no_frames, monkeypatch):
    project, _ = random_project(21)
    client = researcher(project)
    url = f"/api/projects/{project.pk}/adjudication/queue/"
    first = client.get(url, {"limit": 5}).json()
    assert first["building"] is True and first["results"] == [] and large == [(adjudication.BUILD_TASK, project.pk)]
    # nor is the summary counted in the request: the same task counts (tests/review/test_report_summary.py)
    head = client.get(url, {"summary": "true"}).json()
    assert head["building"] is True and head["count"] is None and set(large) == {(adjudication.BUILD_TASK, project.pk)}
    no_frames["on"] = False
    adjudication.build_table(project)  # what the queued task runs
    no_frames["on"] = True
    built = client.get(url, {"limit": 5, "offset": 5}).json()
    assert built["building"] is False and built["stale"] is False
    no_frames["on"] = False
    monkeypatch.setattr(derived, "in_background", lambda project: False)
    from django.core.cache import cache

    cache.clear()
    inline = client.get(url, {"limit": 5, "offset": 5}).json()
    assert [r["key"] for r in built["results"]] == [r["key"] for r in inline["results"]]
    assert (built["count"], built["decided"], built["next_offset"]) == (inline["count"], inline["decided"],
                                                                          inline["next_offset"])
    # once a check is due, the kept build is served, marked stale, and the check queued: the request reads neither
    # the labels nor the version
    monkeypatch.setattr(derived, "in_background", lambda project: True)
    a = Assignment.objects.filter(unit__project=project, status="submitted").first()
    Assignment.objects.filter(pk=a.pk).update(status="rejected")
    no_frames["on"] = True
    monkeypatch.setattr(derived, "CHECK_SECONDS", 0)
    monkeypatch.setattr(adjudication, "_table_version", lambda p: pytest.fail("the request read the version"))
    queued = len(large)
    stale = client.get(url, {"limit": 5, "offset": 5}).json()
    assert stale["stale"] is True and stale["count"] == inline["count"]
    assert large[queued:] == [(adjudication.BUILD_TASK, project.pk)]
    # the queued task: the labels changed, so it rebuilds; unchanged, it only marks the build checked
    no_frames["on"] = False
    adjudication.build_table(project, only_if_changed=True)
    no_frames["on"] = True
    monkeypatch.setattr(derived, "CHECK_SECONDS", 60)
    fresh = client.get(url, {"limit": 5, "offset": 5}).json()
    assert fresh["stale"] is False
    monkeypatch.setattr(adjudication, "tallies", lambda p: pytest.fail("rebuilt an unchanged table"))
    adjudication.build_table(project, only_if_changed=True)
    # a decision shows at once (decisions are read fresh), also from this process's copy of the build
    row = fresh["results"][0]
    decided = client.post(f"/api/projects/{project.pk}/adjudications/", {
        "level": row["level"], "item_id": row["item_id"], "label": row["majority"]}, format="json")
    assert decided.status_code == 201
    again = client.get(url, {"limit": 5, "offset": 5}).json()
    assert again["decided"] == fresh["decided"] + 1
    assert [r["key"] for r in again["results"]] == [r["key"] for r in fresh["results"]]
    assert client.get(url, {"limit": 5, "offset": 5}).json() == again


def test_the_report_summary_is_built_off_the_request(large, no_frames):
    project, _ = random_project(22)
    client = researcher(project)
    url = f"/api/projects/{project.pk}/report/"
    cheap = client.get(url, {"section": "summary"}).json()  # nothing counted: the queue table's task counts
    assert cheap["building"] is True and large == [(adjudication.BUILD_TASK, project.pk)]
    first = client.get(url, {"section": "details"}).json()
    assert first["building"] is True and large[1:] == [(reports.BUILD_TASK, project.pk, None)]
    no_frames["on"] = False
    adjudication.build_table(project)  # what the first queued task runs: it keeps the counts
    no_frames["on"] = True
    cheap = client.get(url, {"section": "summary"}).json()  # from the kept counts, no labels frame
    assert cheap["partial"] is True and "stale" not in cheap
    no_frames["on"] = False
    expected = reports.build_report(project)
    reports.build_and_keep(project, None)  # what the second queued task runs
    no_frames["on"] = True
    summary = client.get(url, {"section": "details", "page_size": 2}).json()
    assert summary["counts"] == expected["counts"] == cheap["counts"] and "stale" not in summary
    assert summary["tables"]["workers"] == len(expected["workers"])
    page = client.get(url, {"section": "workers", "page": 2, "page_size": 2}).json()
    assert page["results"] == expected["workers"][2:4]
    assert client.get(url, {"section": "summary", "by": "nonsense"}).status_code == 400


def test_the_queue_task_keeps_the_report_summary_too(large, monkeypatch):
    """The queue's build task (celery_tasks.build_queue_table, run here as the worker would) also figures the
    report's summary of the counts it kept: the request then answers it without figuring (~0.85 s and +60 MB of
    the web worker at 10^6 labels), and with the same figures as figured in the request."""
    from annotation_tasks import celery_tasks

    project, _ = random_project(23)
    client = researcher(project)
    url = f"/api/projects/{project.pk}/report/"
    assert client.get(url, {"section": "summary"}).json()["building"] is True
    celery_tasks.build_queue_table(project.pk)
    # the worker read the kept counts while it built, and let its own copies go after (derived.forget_copies)
    assert not adjudication._COUNTS_HERE and not adjudication._HERE
    real = reports._summary_figures
    monkeypatch.setattr(reports, "_summary_figures", lambda *a: pytest.fail("figured in the request"))
    kept = client.get(url, {"section": "summary"}).json()
    assert kept.get("building") is None and kept["partial"] is True
    monkeypatch.setattr(reports, "_summary_figures", real)
    monkeypatch.setattr(derived, "in_background", lambda project: False)
    inline = client.get(url, {"section": "summary"}).json()
    assert {k: v for k, v in kept.items() if k != "stale"} == inline
