"""Per-worker quality numbers: gold accuracy, agreement with the other workers, units done, time on task."""
from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from django.db import connection
from django.db.models import F

from annotation_tasks.analysis.agreement import worker_agreement
from annotation_tasks.models import Assignment, GoldLabel, Project, Worker, WorkerProjectStatus
from annotation_tasks.protocols import LabelLevel, label_levels
from annotation_tasks.services.frames import worker_labels_frame


@dataclass
class WorkerMetrics:
    worker_id: int
    external_id: str
    provider: str
    status: str
    units_done: int = 0
    gold_total: int = 0
    gold_correct: int = 0
    gold_accuracy: float | None = None
    agreement: float | None = None
    agreement_compared: int = 0
    median_time_on_task_ms: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def worker_metrics(project: Project, workers: Iterable[Worker] | None = None) -> dict[int, WorkerMetrics]:
    """Gold accuracy, agreement with the other workers' majority (per level, pooled), units done, time on task."""
    qs = Worker.objects.filter(assignments__unit__project=project).distinct() if workers is None else workers
    # the status is the worker's in this project (decisions in other projects do not show here)
    here = dict(WorkerProjectStatus.objects.filter(project=project).values_list("worker_id", "status"))
    out = {w.pk: WorkerMetrics(w.pk, w.external_id, w.provider, here.get(w.pk, Worker.Status.ACTIVE)) for w in qs}
    times: dict[int, list[int]] = defaultdict(list)
    for worker_id, status, ms in Assignment.objects.filter(unit__project=project, worker_id__in=list(out)).values_list(
        "worker_id", "status", "time_on_task_ms"
    ):
        if status in Assignment.Status.counted():
            out[worker_id].units_done += 1
            if ms:
                times[worker_id].append(ms)
    for worker_id, values in times.items():
        out[worker_id].median_time_on_task_ms = float(statistics.median(values))

    frame = worker_labels_frame(project)
    frame = frame[frame["worker_id"].isin(list(out))]
    if not frame.empty:
        gold = frame[frame["gold"].notna()]
        for worker_id, group in gold.groupby("worker_id"):
            m = out[int(worker_id)]
            m.gold_total = len(group)
            m.gold_correct = int((group["label"] == group["gold"]).sum())
            m.gold_accuracy = m.gold_correct / m.gold_total
        agreed: dict[int, float] = defaultdict(float)
        compared: dict[int, int] = defaultdict(int)
        for _level, group in frame.groupby("level"):
            table = worker_agreement(group[["level", "item_id", "worker_id", "label"]].reset_index(drop=True))
            for row in table.itertuples():
                if row.agreement is not None and row.n_compared:
                    agreed[int(row.worker_id)] += row.agreement * row.n_compared
                    compared[int(row.worker_id)] += int(row.n_compared)
        for worker_id, n in compared.items():
            out[worker_id].agreement = agreed[worker_id] / n
            out[worker_id].agreement_compared = n
    return out


METRICS_FRESH_SECONDS = 30  # a cached figure this young is served even when work arrived since
METRICS_CACHE_SECONDS = 3600


def cached_metrics(project: Project) -> dict[int, dict[str, Any]]:
    """Every worker's metrics in the project (page_metrics over all of them: one SQL statement per level), kept in
    the cache: recomputed when the project's data changed (reports.report_version) and the kept figures are
    older than METRICS_FRESH_SECONDS. The workers list reads its page from here: a page costs a dict lookup,
    and an active project's figures are at most that many seconds behind."""
    from django.core.cache import cache

    from annotation_tasks.services.versions import report_version

    key = f"factcrowd:worker-metrics:{project.pk}"
    kept = cache.get(key)
    if kept and time.time() - kept["at"] < METRICS_FRESH_SECONDS:  # young enough: not even the version is read
        return kept["metrics"]
    version = report_version(project)
    if kept and kept["version"] == version:
        cache.set(key, {**kept, "at": time.time()}, METRICS_CACHE_SECONDS)
        return kept["metrics"]
    started = time.time()
    metrics = {k: m.as_dict() for k, m in page_metrics(project, None).items()}
    cache.set(key, {"version": version, "at": started, "metrics": metrics}, METRICS_CACHE_SECONDS)
    return metrics


def page_metrics(project: Project, worker_ids: Iterable[int] | None) -> dict[int, WorkerMetrics]:
    """worker_metrics of these workers, with agreement against ALL the project's workers, computed in the
    database: grouped counts per (item, label) of the items these workers labelled, then one row per worker.

    The dashboard's workers list asks for one page of workers; reading the project's million labels into a
    frame for it cost seconds and hundreds of MB per request (issue 25). Same figures as worker_metrics(project)
    (tests/crowd/test_worker_page_metrics.py compares them)."""
    everyone = worker_ids is None
    ids = list(Assignment.objects.filter(unit__project=project).order_by().values_list("worker_id", flat=True)
               .distinct()) if worker_ids is None else list(worker_ids)
    here = dict(WorkerProjectStatus.objects.filter(project=project, worker_id__in=ids).values_list("worker_id", "status"))
    out = {w.pk: WorkerMetrics(w.pk, w.external_id, w.provider, here.get(w.pk, Worker.Status.ACTIVE))
           for w in Worker.objects.filter(pk__in=ids)}
    if not out:
        return out
    times: dict[int, list[int]] = defaultdict(list)
    counted = Assignment.objects.filter(status__in=Assignment.Status.counted(), unit__project=project)
    counted = counted if everyone else counted.filter(worker_id__in=list(out))
    for worker_id, ms in counted.values_list("worker_id", "time_on_task_ms"):
        out[worker_id].units_done += 1
        if ms:
            times[worker_id].append(ms)
    for worker_id, values in times.items():
        out[worker_id].median_time_on_task_ms = float(statistics.median(values))
    agreed: dict[int, int] = defaultdict(int)
    compared: dict[int, int] = defaultdict(int)
    for level in label_levels():
        for worker_id, n_compared, n_agreed, n_gold, n_correct in _level_figures(
                project, level, None if everyone else list(out)):
            m = out[int(worker_id)]
            compared[m.worker_id] += int(n_compared or 0)
            agreed[m.worker_id] += int(n_agreed or 0)
            m.gold_total += int(n_gold or 0)
            m.gold_correct += int(n_correct or 0)
    for m in out.values():
        m.gold_accuracy = m.gold_correct / m.gold_total if m.gold_total else None
        if compared[m.worker_id]:
            m.agreement = agreed[m.worker_id] / compared[m.worker_id]
            m.agreement_compared = compared[m.worker_id]
    return out


def _level_figures(project: Project, level: LabelLevel, worker_ids: list[int] | None) -> list[tuple]:
    """(worker, compared, agreed, gold labels, gold correct) per worker for one level, in one SQL statement.

    A label is compared when the OTHER workers' labels on its item have one most frequent label; it agrees
    when that label is its own (analysis.agreement.worker_agreement). With n the label's count on the item,
    c1 the item's top count, k1 how many labels have it and c2 the next count: the others' majority is
    unique and the worker's own when n = c1, k1 = 1, c1 - 1 > c2; unique and another's when n = c1, k1 = 2,
    or n < c1, k1 = 1; otherwise a tie (or nobody else)."""
    rows = (level.counted_labels(project).filter(**{f"{level.item_field}__in": level.items(project).values("pk")})
            .order_by().values(k_item=F(level.item_field), k_label=F(level.value_field), k_worker=F("assignment__worker_id")))
    rows_sql, rows_params = rows.query.sql_with_params()
    page = rows if worker_ids is None else rows.filter(assignment__worker_id__in=worker_ids)
    page_sql, page_params = page.query.sql_with_params()
    gold_field = GoldLabel._meta.get_field(level.name).column if level.name in {"span", "qa", "fact"} else None
    if level.names is not None:
        name = "CASE WHEN p.k_label THEN %s ELSE %s END"
        name_params: list = [level.names[0], level.names[1]]
    else:
        name, name_params = "p.k_label", []
    gold_join = (f"LEFT JOIN {GoldLabel._meta.db_table} g ON g.{gold_field} = p.k_item" if gold_field
                 else "LEFT JOIN (SELECT NULL AS value) g ON 1 = 0")
    own = "s.n = s.c1 AND s.k1 = 1 AND s.c1 - 1 > s.c2"
    # derived tables, not CTEs: PostgreSQL materialises a CTE used twice and, without row estimates for it,
    # joined them by nested loops (a minute at 10^5 labels); windows give each (item, label) its item's figures
    only_page = "" if worker_ids is None else f"WHERE r.k_item IN (SELECT q.k_item FROM ({page_sql}) q)"
    counts = f"""
        SELECT r.k_item AS item, r.k_label AS label, COUNT(*) AS n FROM ({rows_sql}) r
        {only_page} GROUP BY r.k_item, r.k_label"""
    tops = f"SELECT c.item, c.label, c.n, MAX(c.n) OVER (PARTITION BY c.item) AS c1 FROM ({counts}) c"
    stats = f"""
        SELECT t.item, t.label, t.n, t.c1,
               SUM(CASE WHEN t.n = t.c1 THEN 1 ELSE 0 END) OVER (PARTITION BY t.item) AS k1,
               MAX(CASE WHEN t.n < t.c1 THEN t.n ELSE 0 END) OVER (PARTITION BY t.item) AS c2
        FROM ({tops}) t"""
    sql = f"""
        SELECT p.k_worker,
               SUM(CASE WHEN ({own}) OR (s.n = s.c1 AND s.k1 = 2) OR (s.n < s.c1 AND s.k1 = 1) THEN 1 ELSE 0 END),
               SUM(CASE WHEN {own} THEN 1 ELSE 0 END),
               COUNT(g.value),
               SUM(CASE WHEN g.value = {name} THEN 1 ELSE 0 END)
        FROM ({page_sql}) p JOIN ({stats}) s ON s.item = p.k_item AND s.label = p.k_label {gold_join}
        GROUP BY p.k_worker"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [*name_params, *page_params, *rows_params, *(page_params if only_page else [])])
        return list(cursor.fetchall())
