"""What the report shows of each worker beyond one agreement number: a confusion matrix of the worker's labels
against the other workers' majority, and the distribution of time on task.

Pure functions over a labels frame (level, item_id, worker_id, label) and plain numbers; no Django.
The "others' majority" is the one of agreement.worker_agreement: the worker's own vote is removed from the
item's counts, and items where nobody else labelled or the others tie are left out.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import ItemCounts, level_counts, split_levels


def worker_confusion(labels: pd.DataFrame, counts: Mapping[str, ItemCounts] | None = None) -> list[dict[str, Any]]:
    """Per level and worker: matrix[i][j] = items the worker labelled categories[i] where the others' majority
    was categories[j]. Rows: level, worker_id, categories, matrix, n_compared. `counts` may give each level's
    item_counts of these labels (aggregation.counts_by_level), shared with the report's other sections."""
    rows: list[dict[str, Any]] = []
    if labels.empty:
        return rows
    for level, group in split_levels(labels):
        ic = level_counts(group, level, counts)
        winner, compared = ic.others_majority
        n_cat = len(ic.categories)
        if ic.worker_ids is not None and len(ic.worker_ids) == len(group):
            worker_codes, workers = ic.workers
        else:
            worker_codes, workers = pd.factorize(group["worker_id"].to_numpy(), sort=True)
        flat = np.bincount(
            (worker_codes[compared] * n_cat + ic.label_codes[compared]) * n_cat + winner[compared],
            minlength=len(workers) * n_cat * n_cat,
        ).reshape(len(workers), n_cat, n_cat)
        for k, worker in enumerate(workers):
            matrix = flat[k]
            rows.append({
                "level": str(level),
                "worker_id": worker.item() if hasattr(worker, "item") else worker,
                "categories": list(ic.categories),
                "matrix": matrix.astype(int).tolist(),
                "n_compared": int(matrix.sum()),
            })
    return rows


def _nice_step(span: float, bins: int) -> float:
    """A bin width of 1, 2 or 5 times a power of ten covering `span` in about `bins` bins."""
    raw = span / max(1, bins)
    power = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def time_histogram(seconds: Iterable[float], bins: int = 12) -> dict[str, Any]:
    """Counts of time on task (seconds) in equal bins of a round width from 0. Times beyond Tukey's far fence
    (Q3 + 3 IQR) are counted in `overflow` rather than stretching the axis, so one forgotten tab does not
    squash the rest. Also n, median and p90."""
    values = np.asarray([float(s) for s in seconds if s is not None and math.isfinite(float(s)) and s >= 0])
    if values.size == 0:
        return {"unit": "s", "edges": [], "counts": [], "overflow": 0, "n": 0, "median": None, "p90": None}
    q1, q3 = np.quantile(values, [0.25, 0.75])
    top = float(min(values.max(), q3 + 3 * (q3 - q1))) if values.size >= 4 else float(values.max())
    step = _nice_step(top, bins) if top > 0 else 1.0
    n_bins = max(1, math.ceil(top / step)) if top > 0 else 1
    if n_bins * step <= top:
        n_bins += 1
    edges = [round(i * step, 6) for i in range(n_bins + 1)]
    inside = values[values < edges[-1]]
    counts = np.histogram(inside, bins=edges)[0] if inside.size else np.zeros(n_bins, dtype=int)
    return {
        "unit": "s",
        "edges": edges,
        "counts": counts.astype(int).tolist(),
        "overflow": int((values >= edges[-1]).sum()),
        "n": int(values.size),
        "median": float(np.median(values)),
        "p90": float(np.quantile(values, 0.9)),
    }


def groups_without_labels(all_groups: Sequence[Any], labelled_groups: Iterable[Any]) -> list[Any]:
    """The groups (systems, datasets, splits) that have responses but not one label yet, in input order."""
    seen = {g for g in labelled_groups if not (isinstance(g, float) and math.isnan(g))}
    return [g for g in dict.fromkeys(all_groups) if g not in seen]
