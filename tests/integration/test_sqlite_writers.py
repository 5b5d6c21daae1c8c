"""One write discipline for every SQLite writer (backend/settings.py): web, worker and beat never see
"database is locked", at the depth the issue was found: a long parse while beat writes (SQLite only), and
annotators arriving at once (the unit page's first-fetch record, the first get-or-create of a local worker; on
PostgreSQL too).

Both run real processes or threads against the test database: real locks, no retries at call sites.
"""
from __future__ import annotations

import re
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import OperationalError, connection, transaction
from django.test import Client
from django.utils import timezone

from annotation_tasks.models import (
    Assignment,
    Batch,
    Job,
    Project,
    ProjectMembership,
    Response,
    Source,
    Unit,
    Worker,
)
from annotation_tasks.services import parsing
from tests.integration.test_real_worker import wait_job
from tests.work.builders import make_unit

pytestmark = [pytest.mark.slow]


@pytest.fixture
def sqlite_only(transactional_db):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's database-wide write lock; PostgreSQL locks rows")


def tiny_project(name: str, n: int) -> Project:
    """n one-clause responses, as they arrive (not yet tokenized): as short as a parse can be, since the test is
    about locks, not the parser (each response is still one read-then-write transaction with QAs and spans)."""
    project = Project.objects.create(name=name)
    sources = Source.objects.bulk_create(
        Source(project=project, external_id=f"s{i}", text=f"Town {i} grew on Monday.") for i in range(n)
    )
    Response.objects.bulk_create(
        Response(project=project, source=source, external_id=f"r{i}", system="sys", text=f"Town {i} grew.")
        for i, source in enumerate(sources)
    )
    return project


def test_a_2000_response_parse_with_beat_writing_ends_done_without_resume(sqlite_only, real_celery):
    n = 2000
    project = tiny_project("Long parse", n)
    # what beat writes on a live installation: an open local batch to sync, and an assignment that keeps going
    # overdue, so every expiry tick has a row to write
    batch = Batch.objects.create(project=project, name="open", provider="local", status=Batch.Status.PUBLISHED)
    unit = Unit.objects.create(project=project, batch=batch, source=Source.objects.filter(project=project).first())
    assignment = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id="slow"),
                                           expires_at=timezone.now() - timedelta(minutes=1))
    real_celery.env.update(ASSIGNMENT_EXPIRY_SECONDS="0.5", CROWD_SYNC_SECONDS="1", JOB_RESUME_SECONDS="1",
                           JOB_HEARTBEAT_SECONDS="2", JOB_STALL_SECONDS="60")
    worker = real_celery.start_worker(pool="prefork", concurrency=2)  # as `make run`: beat's jobs run beside the parse
    beat = real_celery.start_beat()

    # and the web: annotators' transactions that read, then write (a submit's shape), all the while
    stop, web_errors, web_writes = threading.Event(), [], [0]

    def annotators() -> None:
        try:
            while not stop.is_set():
                try:
                    with transaction.atomic():
                        current = Assignment.objects.get(pk=assignment.pk)
                        Assignment.objects.filter(pk=current.pk).update(
                            status=Assignment.Status.ASSIGNED, expires_at=timezone.now() - timedelta(seconds=1),
                            draft={"saved": web_writes[0]},
                        )
                    web_writes[0] += 1
                except OperationalError as exc:
                    web_errors.append(str(exc))
                time.sleep(0.01)
        finally:
            connection.close()

    web = threading.Thread(target=annotators, daemon=True)
    web.start()
    began = time.monotonic()
    try:
        job = parsing.start_parse_job(project)
        first_task = Job.objects.get(pk=job.pk).celery_id
        job = wait_job(job.pk, real_celery, timeout=900)
    finally:
        elapsed = time.monotonic() - began
        stop.set()
        web.join(timeout=30)
    print(f"\n2,000-response parse with beat and web writers: {elapsed:.1f} s")
    logs = real_celery.logs()
    assert (job.status, job.error, job.done, job.total) == (Job.Status.DONE, "", n, n), logs
    assert not Response.objects.filter(project=project, parsed_at__isnull=True).exists()
    assert job.celery_id == first_task and "resumed stalled" not in worker.log()  # done by its first run
    # beat really wrote meanwhile, and the web did too, and nobody was refused the lock
    expiries = len(re.findall(r"expire_abandoned_assignments\[[-0-9a-f]+\] succeeded in [0-9.e-]+s: 1\b", worker.log()))
    assert expiries >= 5 and "Sending due task resume-stalled-jobs" in beat.log(), logs
    assert web_errors == [] and web_writes[0] > 100
    assert "database is locked" not in worker.log() + beat.log()


def test_annotators_arriving_at_once_get_no_500_and_every_first_fetch_is_recorded(transactional_db, caplog):
    """30 annotators start together: each opens the project's annotate page and asks for a unit at the same time
    (both create their local Worker on first use), then opens the unit page (whose first fetch is recorded once
    the page is sent). Django's test client in threads: the whole request path, each thread on its own SQLite
    connection; a request that fails answers 500 here instead of raising."""
    n = 30
    units = make_unit("Crowd", n_sources=10, wanted=3, n_qas=2)
    project = units[0].project
    User = get_user_model()
    people = []
    for i in range(n):
        user = User.objects.create_user(f"annotator{i}", password="pw")
        ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.ANNOTATOR)
        people.append(user)
    start = threading.Barrier(2 * n)
    answers: dict[str, list] = {"annotate": [], "next": [], "page": []}

    def client_for(user) -> Client:
        client = Client(raise_request_exception=False)
        client.force_login(user)
        return client

    def call(what: str, request) -> object:
        got = request()
        answers[what].append(got.status_code if got.status_code != 500 else f"500: {got.content[:300]!r}")
        return got

    def annotate_page(client: Client) -> None:
        try:
            start.wait()
            call("annotate", lambda: client.get(f"/annotate/{project.pk}/"))
        finally:
            connection.close()

    def next_then_page(client: Client) -> None:
        try:
            start.wait()
            got = call("next", lambda: client.post("/api/work/next", {"project": project.pk},
                                                   content_type="application/json"))
            if got.status_code == 200:
                call("page", lambda: client.get(f"/work/{got.json()['token']}/"))
        finally:
            connection.close()

    threads = []
    for user in people:
        threads.append(threading.Thread(target=annotate_page, args=(client_for(user),)))
        threads.append(threading.Thread(target=next_then_page, args=(client_for(user),)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)

    assert {what: Counter(got) for what, got in answers.items()} == {what: {200: n} for what in answers}
    assert Worker.objects.filter(user__in=people).count() == n  # one local Worker each
    assigned = Assignment.objects.filter(worker__user__in=people)
    assert assigned.count() == n and len(set(assigned.values_list("worker_id", flat=True))) == n
    # the test client closes each page as a server does once it is sent: every first fetch was recorded
    assert not assigned.filter(started_at__isnull=True).exists() and not assigned.filter(shown={}).exists()
    assert "recording the first fetch of a unit page failed" not in caplog.text
    assert "database is locked" not in caplog.text
