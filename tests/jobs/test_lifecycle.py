"""The one Job lifecycle (services/jobs.py): claim, heartbeat, stalled, resume (API, CLI, beat)."""
from __future__ import annotations

import io
import json
import threading
import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.celery_tasks import resume_stalled_jobs
from annotation_tasks.models import Batch, Job, Project, ProjectMembership, Response, Source
from annotation_tasks.services import batch_jobs, jobs, parsing
from annotation_tasks.services.units import compose_units

TEXTS = ["The mayor resigned on Monday.", "Protesters cheered outside city hall.", "The council met on Friday."]


def _project(name: str = "jobs") -> Project:
    project = Project.objects.create(name=name)
    source = Source.objects.create(project=project, external_id="s1", text="The mayor resigned. The council met.")
    for i, text in enumerate(TEXTS):
        Response.objects.create(project=project, source=source, external_id=f"r{i}", system="m", text=text)
    return project


def _died_mid_parse(project: Project, *, seconds_ago: float) -> Job:
    """A parse Job whose worker wrote one response and then died `seconds_ago` seconds ago (no message left)."""
    job = parsing.start_parse_job(project, queue=False)
    first = Response.objects.filter(project=project).order_by("id")[:1]
    parsing.parse_responses_now(first)
    last_sign = timezone.now() - timedelta(seconds=seconds_ago)
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, done=1, started_at=last_sign, heartbeat_at=last_sign)
    job.refresh_from_db()
    return job


@pytest.fixture
def people(db):
    User = get_user_model()
    return {name: User.objects.create_user(name, password="pw") for name in ("alice", "bob", "ann")}


@pytest.fixture
def project(people) -> Project:
    project = _project()
    ProjectMembership.objects.create(project=project, user=people["alice"], role=ProjectMembership.Role.RESEARCHER)
    ProjectMembership.objects.create(project=project, user=people["ann"], role=ProjectMembership.Role.ANNOTATOR)
    other = Project.objects.create(name="bob's")
    ProjectMembership.objects.create(project=other, user=people["bob"], role=ProjectMembership.Role.RESEARCHER)
    return project


def _client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_a_job_without_heartbeat_is_stalled_and_resume_through_the_api_completes_it(
    project, people, settings, django_capture_on_commit_callbacks
):
    settings.JOB_STALL_SECONDS = 60
    job = _died_mid_parse(project, seconds_ago=61)
    first_parsed_at = Response.objects.get(project=project, external_id="r0").parsed_at
    alice = _client(people["alice"])

    shown = alice.get(f"/api/jobs/{job.pk}/").json()
    assert (shown["status"], shown["stalled"], shown["can_resume"]) == ("running", True, True)
    assert shown["heartbeat_at"]

    # nobody outside the project's researchers may resume it
    assert _client(people["bob"]).post(f"/api/jobs/{job.pk}/resume/").status_code == 404
    assert _client(people["ann"]).post(f"/api/jobs/{job.pk}/resume/").status_code == 403
    assert Job.objects.get(pk=job.pk).status == Job.Status.RUNNING

    with django_capture_on_commit_callbacks(execute=True):
        answer = alice.post(f"/api/jobs/{job.pk}/resume/")
    assert answer.status_code == 202 and answer.json()["status"] == "queued"
    done = alice.get(f"/api/jobs/{job.pk}/").json()
    assert (done["status"], done["stalled"], done["can_resume"], done["done"], done["total"]) == ("done", False, False, 3, 3)
    assert done["result"]["responses"] == 2  # the one written before the worker died was skipped
    assert Response.objects.get(project=project, external_id="r0").parsed_at == first_parsed_at
    assert not Response.objects.filter(project=project, parsed_at__isnull=True).exists()


def test_a_job_with_a_fresh_heartbeat_is_not_stalled_and_is_not_resumed(project, people, settings,
                                                                         django_capture_on_commit_callbacks):
    settings.JOB_STALL_SECONDS = 60
    job = _died_mid_parse(project, seconds_ago=30)
    assert not jobs.is_stalled(job) and not jobs.offers_resume(job)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        answer = _client(people["alice"]).post(f"/api/jobs/{job.pk}/resume/")
        assert resume_stalled_jobs.delay().get() == []
    assert answer.status_code == 409 and "running" in answer.json()["detail"]
    assert queued == [] and Job.objects.get(pk=job.pk).status == Job.Status.RUNNING
    # a message for it (redelivered, or duplicated) does not start a second run beside the live worker
    assert parsing.run_parse_job(job.pk).done == 1
    assert Response.objects.filter(project=project, parsed_at__isnull=True).count() == 2


def test_beat_resumes_stalled_parse_and_sync_but_not_publish(project, settings, django_capture_on_commit_callbacks,
                                                             caplog):
    settings.JOB_STALL_SECONDS = 60
    parse = _died_mid_parse(project, seconds_ago=120)
    batch = Batch.objects.create(project=project, name="b", provider="local")
    compose_units(batch)
    publish = batch_jobs.start_publish_job(batch, reward=Decimal("0.5"), assignments_per_unit=1)
    sync = batch_jobs.start_sync_job(batch)
    old = timezone.now() - timedelta(seconds=120)
    Job.objects.filter(pk__in=[publish.pk, sync.pk]).update(status=Job.Status.RUNNING, started_at=old, heartbeat_at=old)
    live = _died_mid_parse(_project("live"), seconds_ago=1)

    with django_capture_on_commit_callbacks(execute=True):
        resumed = resume_stalled_jobs.delay().get()
    assert sorted(resumed) == sorted([parse.pk, sync.pk])
    states = dict(Job.objects.values_list("pk", "status"))
    assert (states[parse.pk], states[sync.pk]) == (Job.Status.DONE, Job.Status.DONE)
    # publishing creates paid tasks: beat leaves it to a person, and says why in the log
    assert states[publish.pk] == Job.Status.RUNNING and jobs.is_stalled(Job.objects.get(pk=publish.pk))
    assert f"job {publish.pk} (publish) is stalled; not resumed automatically" in caplog.text
    assert states[live.pk] == Job.Status.RUNNING
    assert not batch.units.exclude(provider_ref="").exists()

    # the person's resume publishes the batch
    with django_capture_on_commit_callbacks(execute=True):
        jobs.resume(Job.objects.get(pk=publish.pk))
    publish.refresh_from_db()
    assert (publish.status, publish.done, publish.total) == (Job.Status.DONE, 1, 1)
    assert not batch.units.filter(provider_ref="").exists()


def test_resume_command_resumes_any_kind_and_refuses_a_live_job(project, settings):
    settings.JOB_STALL_SECONDS = 60
    job = _died_mid_parse(project, seconds_ago=600)
    out = io.StringIO()
    call_command("resume", str(job.pk), "--inline", "--json", stdout=out, stderr=io.StringIO())
    state = json.loads(out.getvalue())
    assert (state["status"], state["stalled"], state["done"], state["total"]) == ("done", False, 3, 3)

    live = _died_mid_parse(_project("live"), seconds_ago=1)
    with pytest.raises(CommandError, match="running"):
        call_command("resume", str(live.pk), stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="running"):  # parse --resume goes the same way
        call_command("parse", "--project", "live", "--resume", str(live.pk), stdout=io.StringIO(), stderr=io.StringIO())
    with pytest.raises(CommandError, match="no job"):
        call_command("resume", "999999", stdout=io.StringIO(), stderr=io.StringIO())


def test_a_failed_job_is_offered_resume_and_a_done_one_is_not_run_again(project, monkeypatch):
    real = parsing.write_parse

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(parsing, "write_parse", broken)
    job = parsing.run_parse_job(parsing.start_parse_job(project, queue=False).pk)
    assert (job.status, job.error, jobs.offers_resume(job)) == (Job.Status.FAILED, "RuntimeError: disk full", True)
    assert parsing.run_parse_job(job.pk).status == Job.Status.FAILED  # a stray message does not re-run it

    monkeypatch.setattr(parsing, "write_parse", real)
    job = parsing.run_parse_job(jobs.resume(job, queue=False).pk)
    assert (job.status, job.error, job.done, jobs.offers_resume(job)) == (Job.Status.DONE, "", 3, False)
    parsed_at = set(Response.objects.values_list("parsed_at", flat=True))
    assert parsing.run_parse_job(job.pk).status == Job.Status.DONE  # redelivered after done: nothing is parsed again
    assert set(Response.objects.values_list("parsed_at", flat=True)) == parsed_at


def test_the_heartbeat_timer_beats_while_a_long_step_runs(transactional_db, settings):
    """No progress for a while (a model loading, one big import): the timer thread keeps the Job alive."""
    settings.JOB_HEARTBEAT_SECONDS = 0.1
    settings.JOB_STALL_SECONDS = 0.5
    project = Project.objects.create(name="slow")
    job = jobs.start(project, Job.Kind.PARSE, queue=False)
    seen: list[tuple] = []
    release = threading.Event()

    def slow_step(job: Job, progress: jobs.Progress) -> dict:
        began = Job.objects.get(pk=job.pk).heartbeat_at
        time.sleep(1.0)  # twice the stall threshold without any progress write
        now = Job.objects.get(pk=job.pk)
        seen.append((began, now.heartbeat_at, jobs.is_stalled(now)))
        release.set()
        return {"slept": 1}

    done = jobs.run(job.pk, slow_step)
    began, latest, stalled = seen[0]
    assert latest > began + timedelta(seconds=0.5) and not stalled
    assert (done.status, done.result) == (Job.Status.DONE, {"slept": 1})
    time.sleep(0.3)  # the timer stopped with the job: a done Job gets no more heartbeats
    assert Job.objects.get(pk=job.pk).heartbeat_at == done.heartbeat_at


def test_every_job_kind_runs_a_task_registered_by_name_and_services_never_import_celery_tasks():
    """The lifecycle queues by name, so the only dependency is celery_tasks -> services (no cycle)."""
    import ast
    from pathlib import Path

    from backend.celery_app import app

    assert set(jobs.KINDS) == set(Job.Kind)
    assert all(kind.task in app.tasks for kind in jobs.KINDS.values())  # celery_tasks is imported above
    services = Path(jobs.__file__).parent
    importers = []
    for path in sorted(services.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                if isinstance(node, ast.ImportFrom) else [])
            if any(n.endswith("celery_tasks") for n in names):
                importers.append(path.name)
    assert importers == []
