"""The workers list's per-worker figures, kept in a table (WorkerMetricsSnapshot) and read a page at a time.

Agreement with the other workers' majority depends on every label of every item a worker labelled, so a page of
50 workers out of 300 touches close to half of a project's items: computing it in the request cost 2.2 s (and
~16 s for the whole project) at 10^6 labels (issue 25). The figures of the whole project are computed in one
pass (quality.metrics.page_metrics over every worker: a SQL statement per level) and stored with the project's
data version (versions.report_version), itself four aggregates over the project (about a second at that scale).
A page reads its rows by index; once the kept figures were last checked more than CHECKED_SECONDS ago:

- a small project (not versions.is_large: at most 20,000 assignments) reads its version in the request and
  recomputes on a change, so its figures are current;
- a large one answers with the kept figures at once and queues a Celery task (one at a time per project) that
  reads the version and recomputes when the data changed: no request reads the project's labels or its version.
  Before its first computation a large project's page has no figures yet (`pending`).
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

from annotation_tasks.models import Project, WorkerMetricsSnapshot
from annotation_tasks.services.versions import is_large

log = logging.getLogger(__name__)

CHECKED_SECONDS = 30  # kept figures checked this recently are served as they are
REFRESH_LOCK_SECONDS = 300  # one queued check per project at a time (a lost task frees it after this)
TASK = "annotation_tasks.refresh_worker_metrics"
STAMPS = ("version", "computed_at", "checked_at")
FIGURES = ("units_done", "gold_total", "gold_correct", "agreement", "agreement_compared", "median_time_on_task_ms")


@dataclass(frozen=True)
class Kept:
    """The page's figures ({worker id: figures}) and how current they are."""

    metrics: dict[int, dict[str, Any]]
    computed_at: datetime | None
    checked_at: datetime | None  # when the data was last found unchanged since computed_at
    stale: bool  # checked too long ago: a check (and a recomputation if the data changed) is queued
    pending: bool  # no figures yet: the first computation is queued

    def describe(self) -> dict[str, Any]:
        return {"computed_at": self.computed_at.isoformat() if self.computed_at else None,
                "checked_at": self.checked_at.isoformat() if self.checked_at else None,
                "stale": self.stale, "pending": self.pending}


def data_version(project: Project) -> str:
    from annotation_tasks.services.versions import report_version

    return hashlib.sha1(report_version(project).encode()).hexdigest()


def refresh(project: Project, *, only_if_changed: bool = False) -> int:
    """Compute every worker's figures of the project and replace its kept rows; answers how many rows changed.
    only_if_changed: when the kept figures are of the current version, only mark them checked. The version is
    read before computing, so work that arrives meanwhile is seen by the next check."""
    from annotation_tasks.services.quality.metrics import page_metrics

    version, started = data_version(project), timezone.now()
    kept = WorkerMetricsSnapshot.objects.filter(project=project)
    if only_if_changed and kept.filter(version=version).exists():
        kept.update(checked_at=started)
        return 0
    figures = page_metrics(project, None)
    rows = [WorkerMetricsSnapshot(project=project, worker_id=w, version=version, computed_at=started,
                                  checked_at=started, **{f: getattr(m, f) for f in FIGURES})
            for w, m in figures.items()]
    with transaction.atomic():
        kept.delete()
        WorkerMetricsSnapshot.objects.bulk_create(rows, batch_size=1000)
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
    """The Celery task's body: refresh when the data changed (else mark the figures checked), then free the
    project's queue lock."""
    try:
        project = Project.objects.filter(pk=project_id).first()
        return refresh(project, only_if_changed=True) if project is not None else 0
    finally:
        cache.delete(f"factcrowd:worker-metrics-refresh:{project_id}")


def _read(project: Project, ids: list[int]) -> tuple[dict[int, dict[str, Any]], dict[str, Any] | None]:
    """({worker: figures as quality.metrics.WorkerMetrics.as_dict without the status}, the kept rows' version,
    computed_at and checked_at, or None when the project has none)."""
    rows = WorkerMetricsSnapshot.objects.filter(project=project, worker_id__in=ids).values(
        "worker_id", *STAMPS, *FIGURES, external_id=F("worker__external_id"), provider=F("worker__provider"))
    metrics: dict[int, dict[str, Any]] = {}
    stamps: dict[str, Any] | None = None
    for row in rows:
        stamps = {k: row.pop(k) for k in STAMPS}
        row["gold_accuracy"] = row["gold_correct"] / row["gold_total"] if row["gold_total"] else None
        metrics[row["worker_id"]] = row
    if stamps is None:  # none of the page's workers is kept: is anything kept for the project?
        stamps = WorkerMetricsSnapshot.objects.filter(project=project).values(*STAMPS).first()
    return metrics, stamps


def page(project: Project, worker_ids: Iterable[int]) -> Kept:
    """The kept figures of these workers (an indexed read); when they were last checked over CHECKED_SECONDS ago,
    a small project is brought up to date first, a large one's check is queued (see the module's docstring)."""
    ids = list(worker_ids)
    if not ids:
        return Kept({}, None, None, False, False)
    metrics, stamps = _read(project, ids)
    now = timezone.now()
    if stamps is not None and (now - stamps["checked_at"]).total_seconds() < CHECKED_SECONDS:
        return Kept(metrics, stamps["computed_at"], stamps["checked_at"], False, False)
    if not is_large(project):
        refresh(project, only_if_changed=True)
        metrics, stamps = _read(project, ids)
        return Kept(metrics, stamps["computed_at"] if stamps else None, stamps["checked_at"] if stamps else None,
                    False, False)
    queue_refresh(project)
    if stamps is None:
        return Kept({}, None, None, False, True)
    return Kept(metrics, stamps["computed_at"], stamps["checked_at"], True, False)
