"""Celery jobs ("task" is our domain word, so the module is celery_tasks). Jobs only call services."""

from celery import shared_task


@shared_task(name="annotation_tasks.expire_abandoned_assignments")
def expire_abandoned_assignments() -> int:
    """Beat job (every minute): abandoned assignments expire, so their units return to the queue."""
    from annotation_tasks.services.queue import expire_abandoned

    return expire_abandoned()


@shared_task(name="annotation_tasks.run_import_job")
def run_import_job(job_id: int) -> str:
    """Import an uploaded file (dashboard upload) into its project; the Job records the outcome."""
    from annotation_tasks.services.uploads import run_import_job as run

    return run(job_id).status


@shared_task(name="annotation_tasks.parse_responses")
def parse_responses(job_id: int) -> str:
    """Parse a project's responses (QA-SRL frames, answer spans, atomic facts); resumable, one response per commit."""
    from annotation_tasks.services.parsing import run_parse_job

    return run_parse_job(job_id).status


@shared_task(name="annotation_tasks.sync_open_batches")
def sync_open_batches() -> dict:
    """Beat job: pull every published batch's submissions from its platform, then apply its approval policy."""
    from annotation_tasks.services.publishing import sync_open_batches as run

    return {str(k): v for k, v in run().items()}


@shared_task(name="annotation_tasks.approve_batch", bind=True, max_retries=5, default_retry_delay=60)
def approve_batch(self, batch_id: int) -> dict:
    """Apply a batch's approval policy now; a platform failure retries later (decisions are idempotent)."""
    from annotation_tasks.crowd import ProviderError
    from annotation_tasks.models import Batch
    from annotation_tasks.services.quality import DecisionInProgress, apply_approval_policy

    try:
        return apply_approval_policy(Batch.objects.get(pk=batch_id))
    except (ProviderError, DecisionInProgress) as exc:
        raise self.retry(exc=exc) from exc


@shared_task(name="annotation_tasks.pay_bonus", bind=True, max_retries=5, default_retry_delay=60)
def pay_bonus(self, assignment_id: int, amount: str, reason: str, key: str = "") -> int:
    """Pay one bonus; retries reuse the same request token, so a bonus is never paid twice."""
    from annotation_tasks.crowd import ProviderError
    from annotation_tasks.models import Assignment
    from annotation_tasks.services.quality import DecisionInProgress
    from annotation_tasks.services.quality import pay_bonus as pay

    try:
        return pay(Assignment.objects.get(pk=assignment_id), amount, reason, key=key).pk
    except (ProviderError, DecisionInProgress) as exc:
        raise self.retry(exc=exc) from exc


@shared_task(name="annotation_tasks.run_publish_job")
def run_publish_job(job_id: int) -> str:
    """Publish a batch from the dashboard (rate limited on paid platforms); the Job counts units published."""
    from annotation_tasks.services.batch_jobs import run_publish_job as run

    return run(job_id).status


@shared_task(name="annotation_tasks.run_sync_job")
def run_sync_job(job_id: int) -> str:
    """Sync a batch's submissions now (dashboard button); the Job counts submissions seen."""
    from annotation_tasks.services.batch_jobs import run_sync_job as run

    return run(job_id).status


@shared_task(name="annotation_tasks.score_items")
def score_items(job_id: int) -> str:
    """Score a project's QAs and atomic facts with one scorer (ItemScore per item, scorer, version); resumable."""
    from annotation_tasks.services.scoring import run_score_job

    return run_score_job(job_id).status
