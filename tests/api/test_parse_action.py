"""POST /api/projects/<id>/parse/: the dashboard's "Start parsing" parses only what is not decomposed yet;
{"reparse": true} parses everything again."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import QA, Job, Predicate, Project, ProjectMembership, Response, Source
from annotation_tasks.models.content import Origin
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup():
    project = Project.objects.create(name="mixed")
    user = get_user_model().objects.create_user("res")
    ProjectMembership.objects.create(project=project, user=user, role="researcher")
    source = Source.objects.create(project=project, external_id="s1", text="The mayor resigned on Monday.")
    imported = Response.objects.create(project=project, source=source, external_id="imp", system="m",
                                       text="The mayor resigned on Monday.",
                                       tokens=[["The", 0, 3], ["mayor", 4, 9], ["resigned", 10, 18], ["on", 19, 21],
                                               ["Monday", 22, 28], [".", 28, 29]])
    pred = Predicate.objects.create(response=imported, token_index=2, text="resigned", origin=Origin.IMPORTED)
    QA.objects.create(response=imported, predicate=pred, question="Who resigned?", answer="The mayor",
                      answer_start=0, answer_end=2, origin=Origin.IMPORTED)
    fresh = Response.objects.create(project=project, source=source, external_id="new", system="m",
                                    text="Protesters cheered outside city hall.")
    return project, client_for(user), imported, fresh


def test_start_parsing_leaves_imported_responses_alone(setup, django_capture_on_commit_callbacks):
    project, client, imported, fresh = setup
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/projects/{project.pk}/parse/", {}, format="json")
    assert r.status_code == 202 and r.json()["total"] == 1
    job = Job.objects.get(pk=r.json()["id"])
    assert job.status == "done" and (job.done, job.total) == (1, 1)
    imported.refresh_from_db()
    fresh.refresh_from_db()
    assert imported.parsed_at is None and list(imported.qas.values_list("question", flat=True)) == ["Who resigned?"]
    assert fresh.parsed_at is not None and fresh.qas.exists()

    with django_capture_on_commit_callbacks(execute=True):  # again: nothing left to parse
        r = client.post(f"/api/projects/{project.pk}/parse/", {}, format="json")
    assert r.json()["total"] == 0 and Job.objects.get(pk=r.json()["id"]).status == "done"


def test_reparse_parses_every_response_and_keeps_imported_qas(setup, django_capture_on_commit_callbacks):
    project, client, imported, fresh = setup
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/projects/{project.pk}/parse/", {"reparse": True}, format="json")
    assert r.status_code == 202 and r.json()["total"] == 2
    assert Job.objects.get(pk=r.json()["id"]).done == 2
    imported.refresh_from_db()
    assert imported.parsed_at is not None
    assert imported.qas.filter(origin=Origin.IMPORTED, question="Who resigned?").exists()


def test_an_interrupted_start_parsing_job_resumes_with_the_same_responses(setup, django_capture_on_commit_callbacks,
                                                                          monkeypatch):
    from annotation_tasks.services import parsing

    project, client, imported, fresh = setup
    Response.objects.create(project=project, source=fresh.source, external_id="new2", system="m",
                            text="The council met on Friday.")
    real = parsing.write_parse
    calls = {"n": 0}

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("worker killed")
        return real(*args, **kwargs)

    monkeypatch.setattr(parsing, "write_parse", flaky)
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/projects/{project.pk}/parse/", {}, format="json")
    job = Job.objects.get(pk=r.json()["id"])
    assert job.status == "failed" and (job.done, job.total) == (1, 2)
    monkeypatch.setattr(parsing, "write_parse", real)
    with django_capture_on_commit_callbacks(execute=True):
        parsing.resume_parse_job(job)
    job.refresh_from_db()
    assert job.status == "done" and (job.done, job.total) == (2, 2)
    assert set(Response.objects.filter(parsed_at__isnull=False).values_list("external_id", flat=True)) == {"new", "new2"}


def test_a_second_start_while_a_parse_runs_is_a_409_naming_it(setup, settings):
    """A double click (or a second CLI call) must not start a second parse of the same responses; a stalled Job
    does not block a new one (it waits for `resume`)."""
    from datetime import timedelta

    from django.utils import timezone

    project, client, _, _ = setup
    first = client.post(f"/api/projects/{project.pk}/parse/", {}, format="json")  # queued: no commit callbacks here
    assert first.status_code == 202
    again = client.post(f"/api/projects/{project.pk}/parse/", {}, format="json")
    assert again.status_code == 409, again.content
    assert again.json()["job"]["id"] == first.json()["id"] and "wait for it" in again.json()["detail"]
    assert Job.objects.filter(project=project, kind="parse").count() == 1

    Job.objects.filter(pk=first.json()["id"]).update(status="running", started_at=timezone.now(),
                                                     heartbeat_at=timezone.now())
    assert client.post(f"/api/projects/{project.pk}/parse/", {}, format="json").status_code == 409
    stale = timezone.now() - timedelta(seconds=settings.JOB_STALL_SECONDS + 60)
    Job.objects.filter(pk=first.json()["id"]).update(heartbeat_at=stale, started_at=stale)
    assert client.post(f"/api/projects/{project.pk}/parse/", {}, format="json").status_code == 202
