"""Composing, publishing and syncing a batch as background Jobs, so the dashboard shows progress instead of a hanging request.

Publishing on a paid platform is rate limited (a few calls per second), so a batch of a thousand units takes
minutes; a sync pages through every submission. Both run in a Celery worker; the Job counts units published
(or submissions seen) as they happen. The work itself is services.publishing: this module only wraps the
provider to count calls; the Job's lifecycle (queue, heartbeat, outcome, resume) is services.jobs.

Composing a large batch (issue 25: 29,820 units were one 57-63 s request) is a Job too: services.units composes
it a chunk of sources per transaction, the Job counts sources done of the sources to compose, and a resumed
Job skips the sources whose units a previous run committed. While a batch's latest compose Job has not
finished, publishing is refused (services.batches.compose_is_finished), so a half-composed batch never
reaches the crowd.
"""
from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from annotation_tasks.models import Batch, Job
from annotation_tasks.services import batches, jobs


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


COMPOSE_INLINE_SOURCES = 500
"""Up to this many sources to compose, the API composes in the request (about a second; the tests' and the
dashboard's small projects keep their one-step answer); above, it answers 202 with a compose Job."""


def sources_to_compose(batch: Batch, mode: str) -> int:
    """How many of the project's sources have no unit of `mode` in the batch yet (one count query)."""
    from annotation_tasks.models import Source, Unit

    done = Unit.objects.filter(batch=batch, mode=mode).values("source_id")
    return Source.objects.filter(project_id=batch.project_id).exclude(pk__in=done).count()


def start_compose_job(batch: Batch, *, mode: str = "", assignments_wanted: int | None = None, user=None,
                      total: int | None = None) -> Job:
    """Queue composing the batch's units; a failed or stalled compose of the same batch is resumed instead of
    starting a second one beside it (two at once could compose the same source twice)."""
    previous = batches.latest_compose_job(batch)
    same = previous is not None and previous.params.get("mode") == mode and \
        previous.params.get("assignments_wanted") == assignments_wanted
    if same and previous.status != Job.Status.DONE and not jobs.resume_refusal(previous):
        return jobs.resume(previous)
    return jobs.start(
        batch.project, Job.Kind.COMPOSE, user=user,
        params={"batch": batch.pk, "mode": mode, "assignments_wanted": assignments_wanted},
        total=_project_sources(batch) if total is None else total,
    )


def run_compose_job(job_id: int) -> Job:
    return jobs.run(job_id, _compose)


def _compose(job: Job, progress: jobs.Progress) -> dict:
    from annotation_tasks.services import units

    batch = Batch.objects.select_related("project").get(pk=job.params["batch"])
    if batch.status != Batch.Status.DRAFT:
        raise jobs.JobFailed(f"batch {batch.pk} is {batch.status}: units can only be added to a draft batch",
                             {jobs.FINAL: True})
    mode = job.params.get("mode") or units.crowd_mode(batch.project)
    # done / total count the project's sources, in id order; a resumed Job counts again from the start, going
    # quickly over the sources a previous run composed (one query a chunk)
    progress.set(done=0, total=_project_sources(batch))
    created = 0
    for step in units.compose_chunks(batch, mode=mode, assignments_wanted=job.params.get("assignments_wanted")):
        created += len(step.units)
        progress.add(step.sources)
    return {"created": created, "batch": batch.pk, "mode": mode,
            "units": Batch.objects.get(pk=batch.pk).units.filter(mode=mode).count()}


def _project_sources(batch: Batch) -> int:
    from annotation_tasks.models import Source

    return Source.objects.filter(project_id=batch.project_id).count()


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
