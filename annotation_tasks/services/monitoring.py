"""Numbers for the dashboard's monitor screen: counts by status, time on task, and the workers table.

Kept apart from the report (services/reports.py): these are operational numbers a researcher watches while a
batch runs (who is fast, who misses gold), not the study's results.
"""
from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable

from django.db.models import Count, Q

from annotation_tasks.models import (
    QA,
    Assignment,
    Batch,
    FactLabel,
    GoldLabel,
    Job,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
)

DONE_STATUSES = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)


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
        "qas_by_validity": _by_status_field(QA.objects.filter(response__project=project), "validity"),
        "batches_by_status": _by_status(Batch.objects.filter(project=project)),
        "units_by_status": _by_status(Unit.objects.filter(project=project)),
        "assignments_by_status": _by_status(assignments),
        "time_on_task": _time_stats(
            assignments.filter(status__in=DONE_STATUSES).values_list("time_on_task_ms", flat=True)
        ),
        "jobs_running": Job.objects.filter(project=project, status__in=[Job.Status.QUEUED, Job.Status.RUNNING]).count(),
    }


def _by_status_field(queryset, field: str) -> dict[str, int]:
    return {row[field]: row["n"] for row in queryset.values(field).annotate(n=Count("id")).order_by()}


def _labels(project: Project) -> list[tuple[int, str, str]]:
    """(worker id, item key, value) for every label of counted assignments; values use the gold vocabulary."""
    counted = {"assignment__unit__project": project, "assignment__status__in": DONE_STATUSES}
    rows: list[tuple[int, str, str]] = []
    for worker_id, span_id, covered in SpanLabel.objects.filter(**counted).values_list(
        "assignment__worker_id", "span_id", "covered"
    ):
        rows.append((worker_id, f"span:{span_id}", "covered" if covered else "not_covered"))
    for worker_id, qa_id, supported in QALabel.objects.filter(**counted).values_list(
        "assignment__worker_id", "qa_id", "supported"
    ):
        rows.append((worker_id, f"qa:{qa_id}", "supported" if supported else "not_supported"))
    for worker_id, fact_id, label in FactLabel.objects.filter(**counted).values_list(
        "assignment__worker_id", "fact_id", "label"
    ):
        rows.append((worker_id, f"fact:{fact_id}", label))
    return rows


def _gold(project: Project) -> dict[str, str]:
    gold: dict[str, str] = {}
    rows = GoldLabel.objects.filter(
        Q(span__response__project=project) | Q(qa__response__project=project) | Q(fact__response__project=project)
    ).values_list("span_id", "qa_id", "fact_id", "value")
    for span_id, qa_id, fact_id, value in rows:
        key = f"span:{span_id}" if span_id else f"qa:{qa_id}" if qa_id else f"fact:{fact_id}"
        gold[key] = value
    return gold


def worker_metrics(project: Project) -> dict[int, dict]:
    """Per worker of the project: units done, approvals, time on task, gold accuracy and agreement.

    agreement: share of the worker's labels that equal the majority of the *other* workers on the same item
    (items where the others tie, or nobody else labeled, do not count) — a per-worker number that does not
    reward agreeing with oneself.
    """
    assignments = Assignment.objects.filter(unit__project=project)
    metrics: dict[int, dict] = {}
    per_worker_times: dict[int, list[int]] = defaultdict(list)
    for worker_id, status, ms in assignments.values_list("worker_id", "status", "time_on_task_ms"):
        entry = metrics.setdefault(
            worker_id,
            {"units_done": 0, "approved": 0, "rejected": 0, "in_progress": 0, "gold_seen": 0, "gold_correct": 0},
        )
        if status in DONE_STATUSES:
            entry["units_done"] += 1
            if ms is not None:
                per_worker_times[worker_id].append(ms)
        entry["approved"] += status == Assignment.Status.APPROVED
        entry["rejected"] += status == Assignment.Status.REJECTED
        entry["in_progress"] += status == Assignment.Status.ASSIGNED

    labels = _labels(project)
    gold = _gold(project)
    by_item: dict[str, dict[int, str]] = defaultdict(dict)
    for worker_id, key, value in labels:
        by_item[key][worker_id] = value
        if key in gold and worker_id in metrics:
            metrics[worker_id]["gold_seen"] += 1
            metrics[worker_id]["gold_correct"] += value == gold[key]

    agree: Counter[int] = Counter()
    compared: Counter[int] = Counter()
    for values in by_item.values():
        if len(values) < 2:
            continue
        for worker_id, value in values.items():
            others = Counter(v for w, v in values.items() if w != worker_id).most_common()
            if len(others) > 1 and others[0][1] == others[1][1]:
                continue
            compared[worker_id] += 1
            agree[worker_id] += value == others[0][0]

    for worker_id, entry in metrics.items():
        entry["gold_accuracy"] = round(entry["gold_correct"] / entry["gold_seen"], 4) if entry["gold_seen"] else None
        entry["agreement"] = round(agree[worker_id] / compared[worker_id], 4) if compared[worker_id] else None
        entry["labels_compared"] = compared[worker_id]
        entry["time_on_task"] = _time_stats(per_worker_times[worker_id])
    return metrics
