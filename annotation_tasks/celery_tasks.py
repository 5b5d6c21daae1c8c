"""Celery jobs ("task" is our domain word, so the module is celery_tasks). Jobs only call services."""

from celery import shared_task  # noqa: E402


@shared_task(name="annotation_tasks.expire_abandoned_assignments")
def expire_abandoned_assignments() -> int:
    """Beat job (every minute): abandoned assignments expire, so their units return to the queue."""
    from annotation_tasks.services.queue import expire_abandoned

    return expire_abandoned()
