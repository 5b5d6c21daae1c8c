"""One lifecycle for every background Job: create, queue on commit, progress, heartbeat, outcome, resume.

Parse, import, publish and sync (and the jobs of later issues) differ only in their body, a function of
(job, progress) that returns the result. Everything around it is here, once:

- `start` creates the Job row and queues its Celery task *by name* once the transaction commits (a worker must
  find the row). Services never import celery_tasks, so the only direction is celery_tasks -> services.
- `run` (the worker side) claims the Job, runs the body with a heartbeat timer, and records the outcome:
  done with the body's result, or failed with the error (a body raises JobFailed for a failure it explains).
  A claim is a conditional UPDATE, so a redelivered or duplicated message never runs a Job twice at once and
  never re-runs a finished one.
- Progress writes (`Progress.add`, `Progress.set`) also write the heartbeat; a timer thread writes it while a long
  step runs (loading a model, parsing a chunk, one big import). A running Job whose heartbeat is older than
  settings.JOB_STALL_SECONDS has lost its worker (killed, or the filesystem broker dropped its message): it is
  reported "stalled" (a computed state, not a stored status) and can be resumed.
- `resume` queues a failed, stalled or lost Job again; each kind's body is written to pick up where it stopped.
  Beat (`resume_stalled`) resumes stalled Jobs only of the kinds that are safe to run twice (see KINDS).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from kombu.exceptions import OperationalError

from annotation_tasks.models import Job, Project

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JobKind:
    """How a kind of Job runs: its Celery task (by name) and whether beat may resume it when it stalls."""

    task: str  # a name registered by annotation_tasks/celery_tasks.py
    auto_resume: bool
    why: str  # why running it again after an interruption is (or is not) safe


KINDS: dict[str, JobKind] = {
    Job.Kind.PARSE: JobKind(
        "annotation_tasks.parse_responses", True,
        "each response is written in its own transaction and stamped parsed_at; a rerun skips what this Job wrote",
    ),
    Job.Kind.IMPORT: JobKind(
        "annotation_tasks.run_import_job", True,
        "an import validates, then writes in one transaction, and importing the same file again changes nothing",
    ),
    Job.Kind.SYNC: JobKind(
        "annotation_tasks.run_sync_job", True,
        "a sync only reads the platform's submissions and records each once (keyed by assignment and worker)",
    ),
    Job.Kind.SCORE: JobKind(
        "annotation_tasks.score_items", True,
        "scores are stored per (item, scorer, version) and a rerun skips the items already scored",
    ),
    Job.Kind.EXPORT: JobKind(
        "annotation_tasks.run_export_job", True,
        "an export only reads the project and writes its own folder, which a rerun empties first",
    ),
    Job.Kind.COMPOSE: JobKind(
        "annotation_tasks.run_compose_job", True,
        "each chunk of sources is composed in one transaction and a rerun skips the sources that have units",
    ),
    Job.Kind.PUBLISH: JobKind(
        "annotation_tasks.run_publish_job", False,
        "publishing creates paid tasks: a worker killed between the platform's answer and saving the unit's "
        "provider_ref leaves a task we do not know about. The platforms deduplicate a prompt retry (MTurk's "
        "request token lives 24 hours, Prolific studies are found by name), but an unattended retry much later "
        "could publish and pay twice, so a person resumes it",
    ),
}


class JobFailed(Exception):
    """Raised by a Job's body to end it failed with a message and a result (e.g. located import errors)."""

    def __init__(self, error: str, result: dict[str, Any] | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.result = result or {}


class NotResumable(ValueError):
    """The Job cannot be resumed now; the message says why."""


# ----------------------------------------------------------------------------------------------- create, queue


def start(project: Project, kind: str, *, params: dict[str, Any] | None = None, total: int = 0, user: Any = None,
          queue: bool = True) -> Job:
    """Create a Job and (unless queue=False: the caller runs it itself) queue its task when the transaction commits."""
    job = Job.objects.create(
        project=project,
        kind=kind,
        params=params or {},
        total=total,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    if queue:
        queue_on_commit(job)
    return job


def queue_on_commit(job: Job) -> None:
    """Send the Job's task (by name) once the current transaction commits; at once outside one."""
    name, job_id = KINDS[job.kind].task, job.pk

    def send() -> None:
        try:
            result = _signature(name).apply_async(args=[job_id])
        except OperationalError as exc:  # the broker is down: the request that queued it must not fail for that
            log.warning("job %s stays queued, the broker is unreachable (%s); beat sends it again", job_id, exc)
            return
        Job.objects.filter(pk=job_id).update(celery_id=result.id or "")

    transaction.on_commit(send)


def run_here(job: Job) -> Job:
    """Run the Job's task in this process (the CLI's --inline): the same code a worker runs."""
    _signature(KINDS[job.kind].task).type(job.pk)
    return Job.objects.get(pk=job.pk)


def _signature(name: str):
    """The task `name` of the current Celery app, found by name.

    celery_tasks registers its tasks when imported; a web or CLI process has not imported it, and Celery then
    sends by name anyway, except in eager mode (tests, CELERY_TASK_ALWAYS_EAGER), which needs the task itself:
    autodiscovery imports the apps' celery_tasks modules without this module importing one.
    """
    app = current_app._get_current_object()
    if name not in app.tasks:
        app.autodiscover_tasks(related_name="celery_tasks", force=True)
    return app.signature(name)


# ------------------------------------------------------------------------------------------------- the worker


class Progress:
    """What a running body reports: done / total; every write is also a heartbeat."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id

    def add(self, n: int = 1) -> None:
        Job.objects.filter(pk=self.job_id).update(done=F("done") + n, heartbeat_at=timezone.now())

    def set(self, *, done: int | None = None, total: int | None = None) -> None:
        fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
        if done is not None:
            fields["done"] = done
        if total is not None:
            fields["total"] = total
        Job.objects.filter(pk=self.job_id).update(**fields)

    def beat(self) -> None:
        Job.objects.filter(pk=self.job_id, status=Job.Status.RUNNING).update(heartbeat_at=timezone.now())


Body = Callable[[Job, Progress], "dict[str, Any] | None"]


def run(job_id: int, body: Body) -> Job:
    """The worker side of every Job: claim it, run `body` with a heartbeat, record done or failed."""
    job = claim(job_id)
    if job is None:  # finished, or another worker holds it: a redelivered or duplicated message
        return Job.objects.get(pk=job_id)
    try:
        with heartbeat(job.pk):
            result = body(job, Progress(job.pk))
    except JobFailed as exc:
        return _end(job.pk, Job.Status.FAILED, error=exc.error, result=exc.result)
    except Exception as exc:  # the Job records the failure; what the body finished stays, the rest resumes
        log.exception("%s job %s failed", job.kind, job.pk)
        return _end(job.pk, Job.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return _end(job.pk, Job.Status.DONE, result=result or {})


def claim(job_id: int) -> Job | None:
    """Mark the Job running for this worker, or None when it is finished or alive in another worker."""
    now = timezone.now()
    claimed = (
        Job.objects.filter(pk=job_id)
        .filter(Q(status=Job.Status.QUEUED) | stalled_q(now))
        .update(status=Job.Status.RUNNING, started_at=Coalesce(F("started_at"), Value(now)), heartbeat_at=now,
                error="", finished_at=None)
    )
    return Job.objects.select_related("project").get(pk=job_id) if claimed else None


def _end(job_id: int, status: str, *, error: str = "", result: dict[str, Any] | None = None) -> Job:
    Job.objects.filter(pk=job_id).update(
        status=status, error=error, result=result or {}, finished_at=timezone.now(), heartbeat_at=timezone.now()
    )
    return Job.objects.get(pk=job_id)


@contextmanager
def heartbeat(job_id: int, every: float | None = None) -> Iterator[None]:
    """Write the Job's heartbeat every `every` seconds from a thread while the block runs.

    Not inside an outer transaction (a test's, or a caller's atomic block): the thread's own connection would
    wait for that transaction's locks while it waits for the thread; the body's progress writes still beat.
    The thread never blocks the end of the Job: it stops at the next tick, and its write only touches a
    running Job.
    """
    every = float(every or settings.JOB_HEARTBEAT_SECONDS)
    if connection.in_atomic_block:
        yield
        return
    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.wait(every):
                try:
                    Progress(job_id).beat()
                except DatabaseError:  # a busy database: the next tick tries again
                    log.warning("heartbeat of job %s not written", job_id, exc_info=True)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=loop, name=f"job-{job_id}-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=1)


# ---------------------------------------------------------------------------------------- stalled and resume


def stall_after() -> timedelta:
    return timedelta(seconds=float(settings.JOB_STALL_SECONDS))


def queue_stall_after() -> timedelta:
    return timedelta(seconds=float(getattr(settings, "JOB_QUEUE_STALL_SECONDS", 600.0)))


def stalled_q(now: datetime) -> Q:
    """Running, and no sign of life (heartbeat, else start) for longer than JOB_STALL_SECONDS; or queued and not
    claimed for JOB_QUEUE_STALL_SECONDS since it was queued (heartbeat_at: when resume queued it again, else its
    creation): its broker message was lost."""
    cutoff, queue_cutoff = now - stall_after(), now - queue_stall_after()
    running = Q(status=Job.Status.RUNNING) & (
        Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff)
        | Q(heartbeat_at__isnull=True, started_at__isnull=True, created_at__lt=cutoff)
    )
    queued = Q(status=Job.Status.QUEUED) & (
        Q(heartbeat_at__lt=queue_cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=queue_cutoff))
    return running | queued


def is_stalled(job: Job, now: datetime | None = None) -> bool:
    """A running Job whose worker has given no sign of life for JOB_STALL_SECONDS, or a queued one no worker has
    claimed for JOB_QUEUE_STALL_SECONDS (its message was lost)."""
    now = now or timezone.now()
    if job.status == Job.Status.QUEUED:
        queued_at = job.heartbeat_at or job.created_at
        return queued_at is not None and queued_at < now - queue_stall_after()
    if job.status != Job.Status.RUNNING:
        return False
    last = job.heartbeat_at or job.started_at or job.created_at
    return last is not None and last < now - stall_after()


def state(job: Job, now: datetime | None = None) -> str:
    """The status to show: the stored one, or "stalled" for a running Job without a heartbeat."""
    return "stalled" if is_stalled(job, now) else job.status


# A failed Job's result carries FINAL: True when its input was refused as it is (an import's located errors):
# running it again cannot end otherwise, and a resume would only replace the errors the researcher needs.
FINAL = "final"


def resume_refusal(job: Job, now: datetime | None = None) -> str:
    """Why `job` cannot be resumed now ("" when it can): failed, stalled and queued Jobs can."""
    if job.kind not in KINDS:
        return f"job {job.pk} is a {job.kind} job, which has no task to resume"
    if job.status == Job.Status.DONE:
        return f"job {job.pk} is done"
    if job.status == Job.Status.FAILED and (job.result or {}).get(FINAL):
        return (f"job {job.pk} failed on its input ({job.error or 'see its errors'}); running it again cannot "
                "help: fix the file and upload it again")
    if job.status == Job.Status.RUNNING and not is_stalled(job, now):
        return (f"job {job.pk} is running (its worker is alive); it can be resumed once it is stalled, "
                f"{settings.JOB_STALL_SECONDS:g} s without a heartbeat")
    return ""


def offers_resume(job: Job) -> bool:
    """Whether the dashboard offers Resume: stalled or failed (a queued Job is waiting for a busy worker)."""
    return job.kind in KINDS and (job.status == Job.Status.FAILED and not (job.result or {}).get(FINAL)
                                  or is_stalled(job))


def resume(job: Job, *, queue: bool = True) -> Job:
    """Queue a failed, stalled or lost (queued, never started) Job again; the body resumes where it stopped.

    A done Job is returned as it is. The change is conditional, so two people (or beat and a person) resuming
    the same Job queue it once. queue=False leaves it for the caller to run (`parse --inline --resume`).
    """
    if job.status == Job.Status.DONE:
        return job
    refusal = resume_refusal(job)
    if refusal:
        raise NotResumable(refusal)
    now = timezone.now()
    changed = (
        Job.objects.filter(pk=job.pk)
        .filter(Q(status__in=[Job.Status.FAILED, Job.Status.QUEUED]) | stalled_q(now))
        .update(status=Job.Status.QUEUED, error="", finished_at=None, heartbeat_at=now)  # queued again: now
    )
    if changed and queue:
        queue_on_commit(job)
    job.refresh_from_db()
    return job


def stalled_jobs():
    """Running Jobs without a heartbeat for JOB_STALL_SECONDS."""
    return Job.objects.filter(stalled_q(timezone.now()))


def resume_stalled() -> list[int]:
    """Beat: resume stalled Jobs of the kinds that are safe to run again (KINDS[kind].auto_resume), and send
    again the queued Jobs whose message never reached the broker (it was down when they were queued)."""
    resumed = []
    unsent = Job.objects.filter(status=Job.Status.QUEUED, celery_id="", created_at__lt=timezone.now() - timedelta(seconds=5))
    for job in unsent.order_by("id"):
        queue_on_commit(job)  # a claim is conditional: a message sent twice runs the Job once
        log.info("sent queued %s job %s again", job.kind, job.pk)
        resumed.append(job.pk)
    for job in stalled_jobs().order_by("id"):
        kind = KINDS.get(job.kind)
        if kind is None or not kind.auto_resume:
            log.warning("job %s (%s) is stalled; not resumed automatically: %s", job.pk, job.kind,
                        kind.why if kind else "unknown kind")
            continue
        try:
            resume(job)
        except NotResumable:  # it came back to life or finished meanwhile
            continue
        log.info("resumed stalled %s job %s", job.kind, job.pk)
        resumed.append(job.pk)
    return resumed


def describe(job: Job) -> dict[str, Any]:
    """What the CLI prints about a Job (the API's JobSerializer says the same)."""
    return {
        "id": job.pk,
        "kind": job.kind,
        "status": job.status,
        "stalled": is_stalled(job),
        "done": job.done,
        "total": job.total,
        "heartbeat_at": job.heartbeat_at.isoformat() if job.heartbeat_at else None,
        "error": job.error,
        "result": job.result,
    }
