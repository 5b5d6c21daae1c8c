"""Celery jobs ("task" is our domain word, so the module is celery_tasks). Each calls one service function.

Services queue these by name (services.jobs.KINDS), so nothing imports this module but Celery's autodiscovery:
the dependency runs one way, celery_tasks -> services.

What a task alone needs is imported in it, not here: a worker imports this module at boot, and services.quality
(pandas, pyarrow, krippendorff through analysis.agreement) and services.scoring (numpy, pandas) made every idle
worker ~80 MB larger before it ran a job (tests/jobs/test_worker_boot.py keeps the boot path free of them;
backend/celery_app.py keeps the URLconf out of it).
"""

from celery import shared_task

from annotation_tasks.crowd import ProviderError
from annotation_tasks.models import Assignment, Batch
from annotation_tasks.services import batch_jobs, jobs, parsing, publishing, queue, uploads


@shared_task(name="annotation_tasks.expire_abandoned_assignments")
def expire_abandoned_assignments() -> int:
    """Beat job (every minute): abandoned assignments expire, so their units return to the queue."""
    return queue.expire_abandoned()


@shared_task(name="annotation_tasks.resume_stalled_jobs")
def resume_stalled_jobs() -> list[int]:
    """Beat job: Jobs whose worker died (no heartbeat) are queued again where that is safe (services.jobs.KINDS)."""
    return jobs.resume_stalled()


@shared_task(name="annotation_tasks.run_import_job")
def run_import_job(job_id: int) -> str:
    """Import an uploaded file (dashboard upload) into its project; the Job records the outcome."""
    return uploads.run_import_job(job_id).status


@shared_task(name="annotation_tasks.run_export_job")
def run_export_job(job_id: int) -> str:
    """Write an export file (CSV, Hugging Face dataset zip, or JSONL) for download; the Job shows progress."""
    from annotation_tasks.services import export_jobs

    return export_jobs.run_export_job(job_id).status


@shared_task(name="annotation_tasks.parse_responses")
def parse_responses(job_id: int) -> str:
    """Parse a project's responses (QA-SRL frames, answer spans, atomic facts); resumable, one response per commit."""
    return parsing.run_parse_job(job_id).status


@shared_task(name="annotation_tasks.sync_open_batches")
def sync_open_batches() -> dict:
    """Beat job: pull every published batch's submissions from its platform, then apply its approval policy."""
    return {str(k): v for k, v in publishing.sync_open_batches().items()}


@shared_task(name="annotation_tasks.approve_batch", bind=True, max_retries=5, default_retry_delay=60)
def approve_batch(self, batch_id: int) -> dict:
    """Apply a batch's approval policy now; a platform failure retries later (decisions are idempotent)."""
    from annotation_tasks.services import quality  # pandas: loaded by the first job that needs it

    try:
        return quality.apply_approval_policy(Batch.objects.get(pk=batch_id))
    except (ProviderError, quality.DecisionInProgress) as exc:
        raise self.retry(exc=exc) from exc


@shared_task(name="annotation_tasks.pay_bonus", bind=True, max_retries=5, default_retry_delay=60)
def pay_bonus(self, assignment_id: int, amount: str, reason: str, key: str = "") -> int:
    """Pay one bonus; retries reuse the same request token, so a bonus is never paid twice."""
    from annotation_tasks.services import quality

    try:
        return quality.pay_bonus(Assignment.objects.get(pk=assignment_id), amount, reason, key=key).pk
    except (ProviderError, quality.DecisionInProgress) as exc:
        raise self.retry(exc=exc) from exc


@shared_task(name="annotation_tasks.run_compose_job")
def run_compose_job(job_id: int) -> str:
    """Compose a large batch's units a chunk of sources at a time; the Job counts sources done; resumable."""
    return batch_jobs.run_compose_job(job_id).status


@shared_task(name="annotation_tasks.run_publish_job")
def run_publish_job(job_id: int) -> str:
    """Publish a batch from the dashboard (rate limited on paid platforms); the Job counts units published."""
    return batch_jobs.run_publish_job(job_id).status


@shared_task(name="annotation_tasks.run_sync_job")
def run_sync_job(job_id: int) -> str:
    """Sync a batch's submissions now (dashboard button); the Job counts submissions seen."""
    return batch_jobs.run_sync_job(job_id).status


@shared_task(name="annotation_tasks.score_items")
def score_items(job_id: int) -> str:
    """Score a project's QAs and atomic facts with one scorer (ItemScore per item, scorer, version); resumable."""
    from annotation_tasks.services import scoring  # numpy, pandas

    return scoring.run_score_job(job_id).status


@shared_task(name="annotation_tasks.refresh_worker_metrics")
def refresh_worker_metrics(project_id: int) -> int:
    """Recompute a large project's kept per-worker figures for the workers list (services.worker_metrics)."""
    from annotation_tasks.services import worker_metrics

    return worker_metrics.run_refresh(project_id)


@shared_task(name="annotation_tasks.build_queue_table")
def build_queue_table(project_id: int) -> None:
    """Build and keep a large project's adjudication queue table (services.derived)."""
    from annotation_tasks.services import adjudication, derived

    def body(project) -> None:
        from annotation_tasks.services import reports
        from annotation_tasks.services.versions import version_hash

        version = version_hash(project, "labels")
        adjudication.counts_for(project, version)
        # the report's summary figures of these counts too, before the table (the dashboard asks for both
        # summaries first): figured in the web request they took ~0.7 s and +60 MB of its worker at 10^6 labels
        reports.summary(project)
        adjudication.build_table(project, version, only_if_changed=True)

    derived.run_build(adjudication.BUILD_TASK, project_id, body)


@shared_task(name="annotation_tasks.build_monitor_quality")
def build_monitor_quality(project_id: int) -> None:
    """Figure and keep a large project's time on task and attention checks for the monitor (services.monitoring)."""
    from annotation_tasks.services import derived, monitoring

    derived.run_build(monitoring.QUALITY_TASK, project_id, monitoring.build_quality)


@shared_task(name="annotation_tasks.build_report")
def build_report(project_id: int, by: str | None = None) -> None:
    """Build and keep a large project's report (services.derived)."""
    from annotation_tasks.services import derived, reports

    derived.run_build(reports.BUILD_TASK, project_id, lambda project: reports.build_and_keep(project, by, only_if_changed=True), by)
