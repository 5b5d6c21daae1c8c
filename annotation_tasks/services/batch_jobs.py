"""Publishing and syncing a batch as background Jobs, so the dashboard shows progress instead of a hanging request.

Publishing on a paid platform is rate limited (a few calls per second), so a batch of a thousand units takes
minutes; a sync pages through every submission. Both run in a Celery worker; the Job counts units published
(or submissions seen) as they happen. The work itself is services.publishing: this module only wraps the
provider to count calls; the Job's lifecycle (queue, heartbeat, outcome, resume) is services.jobs.
"""
from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from annotation_tasks.models import Batch, Job
from annotation_tasks.services import jobs


class _Counting:
    """A provider proxy that adds 1 to the Job's `done` per unit published / submission listed (a heartbeat too)."""

    def __init__(self, provider, progress: jobs.Progress) -> None:
        self._provider = provider
        self._progress = progress

    def __getattr__(self, name: str):
        return getattr(self._provider, name)

    def publish(self, batch, units, **kwargs) -> list[str]:
        refs = self._provider.publish(batch, units, **kwargs)
        self._progress.add(len(refs))
        return refs

    def list_submissions(self, batch) -> Iterable:
        for record in self._provider.list_submissions(batch):
            self._progress.add()
            yield record


def start_publish_job(batch: Batch, *, reward: Decimal, assignments_per_unit: int, user=None) -> Job:
    """Queue publishing of the batch's unpublished units; the caller has shown the estimate and got a yes."""
    return jobs.start(
        batch.project,
        Job.Kind.PUBLISH,
        params={"batch": batch.pk, "reward": str(reward), "assignments_per_unit": int(assignments_per_unit)},
        total=batch.units.filter(provider_ref="").count(),
        user=user,
    )


def start_sync_job(batch: Batch, *, user=None) -> Job:
    """Queue fetching the platform's submissions for the batch now (beat also does it periodically)."""
    return jobs.start(batch.project, Job.Kind.SYNC, params={"batch": batch.pk}, user=user)


def run_publish_job(job_id: int) -> Job:
    """The worker side of publishing; InsufficientFunds and platform errors fail the Job, the units published
    so far keep their refs (resuming publishes the rest: see services.jobs.KINDS for why only a person does)."""
    return jobs.run(job_id, _publish)


def _publish(job: Job, progress: jobs.Progress) -> dict:
    from annotation_tasks.services import publishing

    batch = Batch.objects.select_related("project").get(pk=job.params["batch"])
    result = publishing.publish_batch(
        batch,
        reward=Decimal(job.params["reward"]),
        assignments_per_unit=int(job.params["assignments_per_unit"]),
        provider=_Counting(publishing.provider_for(batch), progress),
    )
    return {
        "published": len(result.published),
        "already_published": result.already_published,
        "total_cost": str(result.estimate.total),
        "currency": result.estimate.currency,
    }


def run_sync_job(job_id: int) -> Job:
    return jobs.run(job_id, _sync)


def _sync(job: Job, progress: jobs.Progress) -> dict:
    from annotation_tasks.services import publishing

    batch = Batch.objects.get(pk=job.params["batch"])
    progress.set(done=0)  # a resumed sync counts its submissions again from the start
    result = publishing.sync_batch(batch, provider=_Counting(publishing.provider_for(batch), progress))
    progress.set(total=result.seen)
    return result.as_dict()
