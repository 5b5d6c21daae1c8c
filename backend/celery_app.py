"""The Celery application. Broker and result backend come from Django settings (CELERY_*)."""
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

app = Celery("factcrowd")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="celery_tasks")


@signals.worker_init.connect
@signals.beat_init.connect
def _clean_filesystem_broker(**_kwargs) -> None:
    """A full disk leaves empty message files in the filesystem broker: move them aside before the first read, and
    skip any met later (annotation_tasks.broker_files), so the worker starts again once space is freed."""
    from django.conf import settings

    if str(getattr(settings, "CELERY_BROKER_URL", "")).startswith("filesystem://"):
        from annotation_tasks import broker_files

        broker_files.install()
        broker_files.sweep(getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None))
