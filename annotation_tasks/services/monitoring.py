"""Numbers for the dashboard's monitor screen: counts by status, time on task, and the workers table.

Kept apart from the report (services/reports.py): these are operational numbers a researcher watches while a
batch runs (who is fast, who misses gold), not the study's results.
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable

from django.db.models import Count

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


def project_overview(project: Project) -> dict:
    """Everything the monitor screen shows above the workers table, in one query-light dict."""
    assignments = Assignment.objects.filter(unit__project=project)
    return {
        "sources": Source.objects.filter(project=project).count(),
        "responses": Response.objects.filter(project=project).count(),
        "responses_parsed": Response.objects.filter(project=project, parsed_at__isnull=False).count(),
        "qas_by_validity": _by_status_field(QA.objects.filter(project=project), "validity"),  # QA.project: one index
        "batches_by_status": _by_status(Batch.objects.filter(project=project)),
        "units_by_status": _by_status(Unit.objects.filter(project=project)),
        "assignments_by_status": _by_status(assignments),
        # submitted work by whether its platform vouches for it: pending and unverified work counts nowhere yet
        "submitted_by_verification": _by_status_field(
            assignments.filter(status__in=Assignment.Status.counted()), "verification"
        ),
        "time_on_task": _time_stats(
            assignments.filter(status__in=Assignment.Status.done()).values_list("time_on_task_ms", flat=True)
        ),
        "jobs_running": Job.objects.filter(project=project, status__in=Job.Status.unfinished()).count(),
        "attention_checks": _attention_rows(project),
        # routing by information (Batch.settings.routing): labels saved so far against fixed N, and projected
        "routing": _routing_savings(project),
    }


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
