"""Celery jobs ("task" is our domain word, so the module is celery_tasks). Jobs only call services."""

from celery import shared_task  # noqa: E402


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
