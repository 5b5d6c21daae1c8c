"""The workers list's per-worker figures, kept in a table (WorkerMetricsSnapshot) and read a page at a time.

Agreement with the other workers' majority depends on every label of every item a worker labelled, so a page of
50 workers out of 300 touches close to half of a project's items: computing it in the request cost 2.2 s (and
~16 s for the whole project) at 10^6 labels (issue 25). The figures of the whole project are computed in one
pass (quality.metrics.page_metrics over every worker: a SQL statement per level) and stored with the project's
data version (versions.report_version). A page reads its rows by index. When the data changed since:

- a small project (under SYNC_LIMIT assignments) is recomputed in the request, so its figures are always current;
- a large one answers with the kept figures, marked stale with their age, and queues a recomputation (a Celery
  task; one at a time per project), so no request waits for the project's labels. Before its first
  computation a large project's page has no figures yet (`pending`).
"""
from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation_tasks.models import Assignment, Project, WorkerMetricsSnapshot

log = logging.getLogger(__name__)

SYNC_LIMIT = 20_000  # assignments: below this a project's figures are recomputed in the request (well under 1 s)
CHECKED_SECONDS = 30  # a version compared this recently is not read again (four aggregates per page otherwise)
REFRESH_LOCK_SECONDS = 900  # one queued recomputation per project at a time (a lost task frees it after this)
TASK = "annotation_tasks.refresh_worker_metrics"
FIGURES = ("units_done", "gold_total", "gold_correct", "agreement", "agreement_compared", "median_time_on_task_ms")


@dataclass(frozen=True)
class Kept:
    """The page's figures ({worker id: figures}) and how current they are."""

    metrics: dict[int, dict[str, Any]]
    computed_at: datetime | None
    stale: bool  # the data changed since computed_at: a recomputation is queued
    pending: bool  # no figures yet: the first computation is queued

    def describe(self) -> dict[str, Any]:
        return {"computed_at": self.computed_at.isoformat() if self.computed_at else None,
                "stale": self.stale, "pending": self.pending}


def data_version(project: Project) -> str:
    from annotation_tasks.services.versions import report_version

    return hashlib.sha1(report_version(project).encode()).hexdigest()


def _checked_key(project_id: int) -> str:
    return f"factcrowd:worker-metrics-checked:{project_id}"


def refresh(project: Project) -> int:
    """Compute every worker's figures of the project and replace its kept rows; answers how many. The version is
    read before computing, so work that arrives meanwhile makes the next page queue another pass."""
    from annotation_tasks.services.quality.metrics import page_metrics

    version, started = data_version(project), timezone.now()
    figures = page_metrics(project, None)
    rows = [WorkerMetricsSnapshot(project=project, worker_id=w, version=version, computed_at=started,
                                  **{f: getattr(m, f) for f in FIGURES}) for w, m in figures.items()]
    with transaction.atomic():
        WorkerMetricsSnapshot.objects.filter(project=project).delete()
        WorkerMetricsSnapshot.objects.bulk_create(rows, batch_size=1000)
    cache.set(_checked_key(project.pk), version, CHECKED_SECONDS)
    return len(rows)


def queue_refresh(project: Project) -> bool:
    """Queue refresh(project) on a Celery worker unless one is queued already; False when not queued."""
    lock = f"factcrowd:worker-metrics-refresh:{project.pk}"
    if not cache.add(lock, 1, REFRESH_LOCK_SECONDS):
        return False
    from kombu.exceptions import OperationalError

    from annotation_tasks.services.jobs import _signature

    try:
        _signature(TASK).apply_async(args=[project.pk])
    except OperationalError as exc:  # the broker is down: the page still answers with what is kept
        cache.delete(lock)
        log.warning("worker metrics of project %s not queued: %s", project.pk, exc)
        return False
    return True


def run_refresh(project_id: int) -> int:
    """The Celery task's body: refresh, then free the project's queue lock."""
    try:
        project = Project.objects.filter(pk=project_id).first()
        return refresh(project) if project is not None else 0
    finally:
        cache.delete(f"factcrowd:worker-metrics-refresh:{project_id}")


def _read(project: Project, ids: list[int]) -> tuple[dict[int, dict[str, Any]], str | None, datetime | None]:
    """({worker: figures as quality.metrics.WorkerMetrics.as_dict without the status}, kept version, its time)."""
    rows = WorkerMetricsSnapshot.objects.filter(project=project, worker_id__in=ids).values(
        "worker_id", "version", "computed_at", *FIGURES, external_id=F("worker__external_id"),
        provider=F("worker__provider"))
    metrics: dict[int, dict[str, Any]] = {}
    version, at = None, None
    for row in rows:
        version, at = row.pop("version"), row.pop("computed_at")
        row["gold_accuracy"] = row["gold_correct"] / row["gold_total"] if row["gold_total"] else None
        metrics[row["worker_id"]] = row
    if version is None:  # none of the page's workers is kept: is anything kept for the project?
        kept = WorkerMetricsSnapshot.objects.filter(project=project).values_list("version", "computed_at").first()
        version, at = kept if kept else (None, None)
    return metrics, version, at


def page(project: Project, worker_ids: Iterable[int]) -> Kept:
    """The kept figures of these workers (an indexed read), recomputed first when the project is small and its
    data changed, else served with their age while a recomputation is queued (see the module's docstring)."""
    ids = list(worker_ids)
    if not ids:
        return Kept({}, None, False, False)
    metrics, version, at = _read(project, ids)
    if version is not None and cache.get(_checked_key(project.pk)) == version:
        return Kept(metrics, at, False, False)
    now = data_version(project)
    if version == now:
        cache.set(_checked_key(project.pk), version, CHECKED_SECONDS)
        return Kept(metrics, at, False, False)
    if Assignment.objects.filter(unit__project=project).count() < SYNC_LIMIT:
        refresh(project)
        metrics, version, at = _read(project, ids)
        return Kept(metrics, at, False, False)
    queue_refresh(project)
    if version is None:
        return Kept({}, None, False, True)
    return Kept(metrics, at, True, False)
