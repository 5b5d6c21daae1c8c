"""Publishing and syncing a batch as background Jobs, so the dashboard shows progress instead of a hanging request.

Publishing on a paid platform is rate limited (a few calls per second), so a batch of a thousand units takes
minutes; a sync pages through every submission. Both run in a Celery worker; the Job counts units published
(or submissions seen) as they happen. The work itself is services.publishing: this module only wraps the
provider to count calls, and records the outcome on the Job.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation_tasks.models import Batch, Job

log = logging.getLogger(__name__)


class _Counting:
    """A provider proxy that adds 1 to the Job's `done` per unit published / submission listed."""

    def __init__(self, provider, job_id: int) -> None:
        self._provider = provider
        self._job_id = job_id

    def __getattr__(self, name: str):
        return getattr(self._provider, name)

    def _tick(self, n: int = 1) -> None:
        Job.objects.filter(pk=self._job_id).update(done=F("done") + n)

    def publish(self, batch, units, **kwargs) -> list[str]:
        refs = self._provider.publish(batch, units, **kwargs)
        self._tick(len(refs))
        return refs

    def list_submissions(self, batch) -> Iterable:
        for record in self._provider.list_submissions(batch):
            self._tick()
            yield record


def _queue(job: Job, task_name: str) -> None:
    def _send() -> None:
        from annotation_tasks import celery_tasks

        result = getattr(celery_tasks, task_name).delay(job.pk)
        Job.objects.filter(pk=job.pk, celery_id="").update(celery_id=result.id or "")

    transaction.on_commit(_send)


def start_publish_job(batch: Batch, *, reward: Decimal, assignments_per_unit: int, user=None) -> Job:
    """Queue publishing of the batch's unpublished units; the caller has shown the estimate and got a yes."""
    pending = batch.units.filter(provider_ref="").count()
    job = Job.objects.create(
        project=batch.project,
        kind=Job.Kind.PUBLISH,
        params={"batch": batch.pk, "reward": str(reward), "assignments_per_unit": int(assignments_per_unit)},
        total=pending,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    _queue(job, "run_publish_job")
    return job


def start_sync_job(batch: Batch, *, user=None) -> Job:
    """Queue fetching the platform's submissions for the batch now (beat also does it periodically)."""
    job = Job.objects.create(
        project=batch.project,
        kind=Job.Kind.SYNC,
        params={"batch": batch.pk},
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )
    _queue(job, "run_sync_job")
    return job


def _begin(job_id: int) -> Job | None:
    job = Job.objects.get(pk=job_id)
    if job.status in (Job.Status.DONE, Job.Status.FAILED):
        return None  # a redelivered message (acks_late) must not publish or count twice
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now())
    return job


def _end(job: Job, status: str, *, result: dict | None = None, error: str = "", total: int | None = None) -> Job:
    fields = {"status": status, "result": result or {}, "error": error, "finished_at": timezone.now()}
    if total is not None:
        fields["total"] = total
    Job.objects.filter(pk=job.pk).update(**fields)
    job.refresh_from_db()
    return job


def run_publish_job(job_id: int) -> Job:
    from annotation_tasks.services import publishing

    job = _begin(job_id)
    if job is None:
        return Job.objects.get(pk=job_id)
    batch = Batch.objects.select_related("project").get(pk=job.params["batch"])
    try:
        result = publishing.publish_batch(
            batch,
            reward=Decimal(job.params["reward"]),
            assignments_per_unit=int(job.params["assignments_per_unit"]),
            provider=_Counting(publishing.provider_for(batch), job.pk),
        )
    except Exception as exc:  # InsufficientFunds, platform errors: the units published so far keep their refs
        log.exception("publish job %s failed", job.pk)
        return _end(job, Job.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    summary = {
        "published": len(result.published),
        "already_published": result.already_published,
        "total_cost": str(result.estimate.total),
        "currency": result.estimate.currency,
    }
    return _end(job, Job.Status.DONE, result=summary)


def run_sync_job(job_id: int) -> Job:
    from annotation_tasks.services import publishing

    job = _begin(job_id)
    if job is None:
        return Job.objects.get(pk=job_id)
    batch = Batch.objects.get(pk=job.params["batch"])
    try:
        result = publishing.sync_batch(batch, provider=_Counting(publishing.provider_for(batch), job.pk))
    except Exception as exc:
        log.exception("sync job %s failed", job.pk)
        return _end(job, Job.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return _end(job, Job.Status.DONE, result=result.as_dict(), total=result.seen)
