"""Per-worker quality numbers: gold accuracy, agreement with the other workers, units done, time on task."""
from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass

from annotation_tasks.analysis.agreement import worker_agreement
from annotation_tasks.models import Assignment, Project, Worker, WorkerProjectStatus
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
