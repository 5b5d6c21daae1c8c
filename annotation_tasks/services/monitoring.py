"""Numbers for the dashboard's monitor screen: counts by status, time on task, and the workers table.

Kept apart from the report (services/reports.py): these are operational numbers a researcher watches while a
batch runs (who is fast, who misses gold), not the study's results.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Count, Sum

from annotation_tasks.models import (
    QA,
    Assignment,
    Batch,
    Job,
    Project,
    Response,
    Source,
    Unit,
)


def _by_status(queryset) -> dict[str, int]:
    return {row["status"]: row["n"] for row in queryset.values("status").annotate(n=Count("id")).order_by()}


def _time_stats(milliseconds: Iterable[int]) -> dict[str, float | None]:
    seconds = sorted(ms / 1000 for ms in milliseconds if ms is not None)
    if not seconds:
        return {"count": 0, "mean_s": None, "median_s": None, "p90_s": None}
    p90 = seconds[min(len(seconds) - 1, int(round(0.9 * (len(seconds) - 1))))]
    return {
        "count": len(seconds),
        "mean_s": round(statistics.fmean(seconds), 1),
        "median_s": round(statistics.median(seconds), 1),
        "p90_s": round(p90, 1),
    }


QUALITY_TASK = "annotation_tasks.build_monitor_quality"


def project_overview(project: Project) -> dict:
    """Everything the monitor screen shows above the workers table, in one query-light dict. A large project's
    time on task, attention checks and parsed responses (a sort of every finished time, a join of the labels on
    gold items and a scan of every response: ~220 of the overview's ~350 ms at 3.4*10^5 assignments, issue 25
    item 1) come from the last Celery build (services/derived.py, kept_quality),
    `quality_as_of` saying when it was figured."""
    by_status, by_verification, groups = _assignment_counts(project)
    quality = kept_quality(project, groups)
    return {
        "sources": Source.objects.filter(project=project).count(),
        "responses": Response.objects.filter(project=project).count(),
        "responses_parsed": quality["responses_parsed"],
        # live: the validation screen counts its progress with it (Validate.vue)
        "qas_by_validity": _by_status_field(QA.objects.filter(project=project), "validity"),  # QA.project: one index
        "batches_by_status": _by_status(Batch.objects.filter(project=project)),
        "units_by_status": _by_status(Unit.objects.filter(project=project)),
        "assignments_by_status": by_status,
        # submitted work by whether its platform vouches for it: pending and unverified work counts nowhere yet
        "submitted_by_verification": by_verification,
        "time_on_task": quality["time_on_task"],
        "jobs_running": Job.objects.filter(project=project, status__in=Job.Status.unfinished()).count(),
        "attention_checks": quality["attention_checks"],
        "quality_as_of": quality.get("as_of"),  # None: figured in this request
        "quality_building": quality.get("building", False),
        # routing by information (Batch.settings.routing): labels saved so far against fixed N, and projected
        "routing": _routing_savings(project),
    }


def kept_quality(project: Project, groups: list[dict] | None = None) -> dict[str, Any]:
    """{"time_on_task", "attention_checks"}: figured now for a small project; for a large one (derived.in_background)
    the last build, queued again once derived.CHECK_SECONDS old, with `as_of` (and `building` with empty figures
    before the first build)."""
    from annotation_tasks.services import derived

    if not derived.in_background(project):
        return quality_figures(project, groups)
    key = _quality_key(project)
    kept = derived.store(project).get(key)
    if kept is None or not derived.checked_recently(key, project):
        derived.queue_build(QUALITY_TASK, project)
    if kept is None:
        return {"time_on_task": _time_stats([]) | {"count": None}, "attention_checks": [], "responses_parsed": None,
                "building": True}
    return kept


def _quality_key(project: Project) -> str:
    return f"factcrowd:monitor-quality:{project.pk}"


def build_quality(project: Project) -> dict[str, Any]:
    """The Celery task's body: figure a large project's time on task and attention checks and keep them."""
    import time

    from annotation_tasks.services import derived

    key = _quality_key(project)
    figures = {**quality_figures(project), "as_of": time.time()}
    derived.store(project).set(key, figures, derived.KEEP_SECONDS)
    derived.mark_checked(key, project)
    return figures


def quality_figures(project: Project, groups: list[dict] | None = None) -> dict[str, Any]:
    """Time on task of finished work, the attention checks' rows, and the parsed responses (a scan of every
    response, which changes with parsing, not work)."""
    if groups is None:
        groups = _assignment_counts(project)[2]
    return {"time_on_task": _time_on_task(project, groups), "attention_checks": _attention_rows(project),
            "responses_parsed": Response.objects.filter(project=project, parsed_at__isnull=False).count()}


def _assignment_counts(project: Project) -> tuple[dict[str, int], dict[str, int], list[dict]]:
    """Assignments by status, counted work by verification, and the groups they come from: one pass counts per
    (status, verification) with the times' count and sum (Assignment.project: no join to units). Three joined
    passes over 3.4*10^5 assignments, the last sending every time to Python, were most of the monitor's ~760 ms
    (issue 25)."""
    assignments = Assignment.objects.filter(project=project)
    groups = list(assignments.order_by().values("status", "verification").annotate(
        n=Count("id"), timed=Count("time_on_task_ms"), total=Sum("time_on_task_ms")))
    counted = Assignment.Status.counted()
    by_status: dict[str, int] = {}
    by_verification: dict[str, int] = {}
    for row in groups:
        by_status[row["status"]] = by_status.get(row["status"], 0) + row["n"]
        if row["status"] in counted:
            by_verification[row["verification"]] = by_verification.get(row["verification"], 0) + row["n"]
    return by_status, by_verification, groups


def _time_on_task(project: Project, groups: list[dict]) -> dict[str, float | None]:
    """Time on task of finished work from _assignment_counts' groups: on PostgreSQL the median's and p90's values
    picked in the database (percentile_disc at the very positions _time_stats takes); elsewhere the finished
    times are read and _time_stats sorts them."""
    done = Assignment.Status.done()
    finished = Assignment.objects.filter(project=project, status__in=done).order_by()
    if connection.vendor != "postgresql":
        return _time_stats(finished.values_list("time_on_task_ms", flat=True))
    n = sum(row["timed"] for row in groups if row["status"] in done)
    if not n:
        return _time_stats([])
    total = sum(int(row["total"] or 0) for row in groups if row["status"] in done)
    # 0-based positions in the sorted times, as _time_stats reads them; percentile_disc(f) is the value at
    # 1-based position ceil(f * n), so f = (i + 0.5) / n lands on i
    positions = [(n - 1) // 2, n // 2, min(n - 1, int(round(0.9 * (n - 1))))]
    sql = (f"SELECT percentile_disc(%s::float8[]) WITHIN GROUP (ORDER BY time_on_task_ms) "
           f"FROM {Assignment._meta.db_table} WHERE project_id = %s AND status = ANY(%s) "
           f"AND time_on_task_ms IS NOT NULL")
    with connection.cursor() as cursor:
        cursor.execute(sql, [[(i + 0.5) / n for i in positions], project.pk, list(done)])
        low, high, p90 = cursor.fetchone()[0]
    median = (low / 1000 + high / 1000) / 2 if n % 2 == 0 else high / 1000  # statistics.median's arithmetic
    return {"count": n, "mean_s": round(total / n / 1000, 1), "median_s": round(median, 1),
            "p90_s": round(p90 / 1000, 1)}


def _routing_savings(project: Project) -> dict | None:
    """services/routing.savings over the project's batches; None when none routes (no numpy / scipy loaded)."""
    batches = [b for b in Batch.objects.filter(project=project).order_by("id") if (b.settings or {}).get("routing")]
    if not batches:
        return None
    from annotation_tasks.services import routing

    return routing.savings(batches)


def _attention_rows(project: Project) -> list[dict]:
    """Per worker, gold accuracy on the attention checks of main units and the threshold verdict (lowest first),
    named by their pseudonym in the project."""
    from annotation_tasks.models import Worker
    from annotation_tasks.services.feedback import attention_checks

    figures = attention_checks(project)
    workers = Worker.objects.in_bulk(list(figures))
    rows = [{"worker": pk, "pseudonym": workers[pk].pseudonym_in(project.pk), **f} for pk, f in figures.items()]
    return sorted(rows, key=lambda r: (r["gold_accuracy"] if r["gold_accuracy"] is not None else 2.0, r["worker"]))


def _by_status_field(queryset, field: str) -> dict[str, int]:
    return {row[field]: row["n"] for row in queryset.values(field).annotate(n=Count("id")).order_by()}
