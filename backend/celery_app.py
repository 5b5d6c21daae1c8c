"""The Celery application. Broker and result backend come from Django settings (CELERY_*).

A worker does not run Django's system checks when it loads its tasks (CELERY_SKIP_CHECKS, read by Celery's Django
fixup): the URL checks import the URLconf, so every view, and with them pandas, pyarrow, scipy and krippendorff
(services.exports, services.adjudication, analysis.uncertainty): an idle worker was 225 MB where its tasks need
~57 MB (tests/jobs/test_worker_boot.py). The checks still run in `manage.py check` / `migrate` and the web process;
set CELERY_SKIP_CHECKS= (empty) to run them in a worker too. A worker's allocator is tuned for its builds when it
starts (backend/allocator.py), and the heap it has before a task is out of the task's garbage collections
(backend/collector.py).
"""
import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("factcrowd")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="celery_tasks")


@signals.worker_init.connect
def _tune_allocator(**_kwargs) -> None:
    """A worker's builds give freed frames back (backend/allocator.py): set before its pool forks and before its
    first task loads pyarrow; web processes and tests, which also import this module, keep the defaults."""
    from backend import allocator

    allocator.tune()


@signals.task_prerun.connect
def _freeze_heap(**_kwargs) -> None:
    """Collections during the task walk only what the task made (an HF dataset export: 31 -> 23 s)."""
    from backend import collector

    collector.freeze()


@signals.task_postrun.connect
def _thaw_heap(**_kwargs) -> None:
    """What was frozen is collected again between tasks."""
    from backend import collector

    collector.thaw()


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
