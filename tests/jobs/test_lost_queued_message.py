"""Issue 23 item 8: a queued Job whose broker message is lost stayed "queued" forever with no Resume. A queued Job
no worker claims for JOB_QUEUE_STALL_SECONDS is now stalled: the dashboard offers Resume, beat sends it again, and
a worker runs it to the end. The message is lost here by queueing the Job and dropping what was sent."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.models import Job, Project, ProjectMembership, Response, Source
from annotation_tasks.services import jobs, parsing

pytestmark = pytest.mark.django_db


@pytest.fixture
def lost(django_user_model, monkeypatch, settings, django_capture_on_commit_callbacks):
    """A parse Job queued 11 minutes ago whose message never reached a worker (the broker lost it)."""
    settings.JOB_QUEUE_STALL_SECONDS = 600
    researcher = django_user_model.objects.create_user("alice", password="pw")
    project = Project.objects.create(name="lost")
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    source = Source.objects.create(project=project, external_id="s1", text="The mayor resigned.")
    Response.objects.create(project=project, source=source, external_id="r1", system="m", text="The mayor quit.")
    sent: list[int] = []
    monkeypatch.setattr(jobs, "queue_on_commit", lambda job: sent.append(job.pk))
    job = parsing.start_parse_job(project)  # "sent" into the void
    Job.objects.filter(pk=job.pk).update(celery_id="lost-message", created_at=timezone.now() - timedelta(minutes=11))
    job.refresh_from_db()
    return job, researcher, sent


def test_a_fresh_queued_job_is_waiting_not_stalled(lost):
    job, _, _ = lost
    Job.objects.filter(pk=job.pk).update(created_at=timezone.now())
    job.refresh_from_db()
    assert not jobs.is_stalled(job) and not jobs.offers_resume(job)


def test_a_lost_queued_job_is_stalled_and_offered_resume(lost):
    job, researcher, _ = lost
    assert jobs.is_stalled(job) and jobs.state(job) == "stalled" and jobs.offers_resume(job)
    api = APIClient()
    api.force_authenticate(researcher)
    shown = api.get(f"/api/jobs/{job.pk}/").json()
    assert shown["stalled"] and shown["can_resume"]


def test_beat_sends_it_again_once_and_a_worker_finishes_it(lost):
    job, _, sent = lost
    sent.clear()
    assert job.pk in jobs.resume_stalled()
    assert sent == [job.pk]
    job.refresh_from_db()
    assert job.status == Job.Status.QUEUED and not jobs.is_stalled(job)  # queued again just now
    assert job.pk not in jobs.resume_stalled() and sent == [job.pk]  # not sent twice in a row
    done = jobs.run_here(job)
    assert done.status == Job.Status.DONE and Response.objects.filter(parsed_at__isnull=False).count() == 1
