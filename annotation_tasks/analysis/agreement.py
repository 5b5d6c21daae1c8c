"""Inter-annotator agreement over a labels frame: Fleiss' kappa, Krippendorff's alpha, unanimity,
and each worker's agreement with the majority of the other workers; Cohen's kappa between two raters.

All coefficients start from the per-item count matrix of aggregation.item_counts (one np.bincount), so a
million labels take a fraction of a second. A coefficient that is undefined for the data (one category
only, no item with two labels) is returned as None, never raised: a report over a fresh project or a
small grouping must still render.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import krippendorff
import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import (
    ItemCounts,
    item_counts,
    level_counts,
    majority_from_counts,
    split_levels,
)


def _finite_or_none(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def fleiss_kappa(counts: np.ndarray) -> float | None:
    """Fleiss' kappa from an items × categories count matrix.

    Items with fewer than two labels are dropped (they carry no agreement). With the same number of raters
    on every item this is exactly Fleiss (1971) and statsmodels' fleiss_kappa; with varying numbers each
    item's observed agreement uses its own n_i (the usual generalisation), and category proportions are
    taken over all labels of the kept items. None when undefined (no kept item, or one category only).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim != 2 or counts.size == 0:
        return None
    n_i = counts.sum(axis=1)
    kept = n_i >= 2
    if not kept.any():
        return None
    counts, n_i = counts[kept], n_i[kept]
    p_item = ((counts * counts).sum(axis=1) - n_i) / (n_i * (n_i - 1))
    p_cat = counts.sum(axis=0) / n_i.sum()
    p_exp = float((p_cat * p_cat).sum())
    if p_exp >= 1.0 - 1e-12:
        return None
    return _finite_or_none((float(p_item.mean()) - p_exp) / (1.0 - p_exp))


def cohen_kappa(first: Iterable[Any], second: Iterable[Any], labels: Iterable[Any] | None = None) -> float | None:
    """Cohen's kappa between two raters of the same items: (p_o - p_e) / (1 - p_e), with p_e from each rater's
    own label proportions. `labels` fixes the categories (pairs with another label are left out, as in
    scikit-learn's cohen_kappa_score, which this equals; a few numpy operations instead of importing it).
    None when undefined (no pair, or both raters always give the same one label: p_e = 1)."""
    a, b = np.asarray(list(first), dtype=object), np.asarray(list(second), dtype=object)
    if a.shape != b.shape:
        raise ValueError(f"cohen_kappa: {len(a)} labels against {len(b)}")
    categories = list(dict.fromkeys(labels)) if labels is not None else list(dict.fromkeys([*a, *b]))
    index = {label: i for i, label in enumerate(categories)}
    codes_a = np.fromiter((index.get(v, -1) for v in a), dtype=np.int64, count=len(a))
    codes_b = np.fromiter((index.get(v, -1) for v in b), dtype=np.int64, count=len(b))
    kept = (codes_a >= 0) & (codes_b >= 0)
    codes_a, codes_b = codes_a[kept], codes_b[kept]
    n = len(codes_a)
    if n == 0:
        return None
    k = len(categories)
    p_observed = float(np.mean(codes_a == codes_b))
    p_expected = float(np.dot(np.bincount(codes_a, minlength=k), np.bincount(codes_b, minlength=k))) / (n * n)
    if p_expected >= 1.0:
        return None
    return _finite_or_none((p_observed - p_expected) / (1.0 - p_expected))


def krippendorff_alpha(counts: np.ndarray) -> float | None:
    """Nominal Krippendorff's alpha with the krippendorff package, from the same count matrix.

    krippendorff.alpha(value_counts=...) is the package's own entry point for units × values counts and
    equals alpha on the reliability matrix (tests check both); it avoids building a raters × items matrix,
    which for crowd data (many workers, few labels each) would be mostly NaN. None when undefined.
    """
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.size == 0:
        return None
    # int32 (a count never nears 2^31): the package's per-unit products are half the size of int64's (~5 MB of a
    # 3 * 10^5-item report's peak), with the same result
    pairable = counts[counts.sum(axis=1) >= 2].astype(np.int32, copy=False)
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None
    try:
        value = krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal")
    except ValueError:
        return None
    return _finite_or_none(float(value))


def percent_unanimous(counts: np.ndarray) -> float | None:
    """Share (0–100) of items with at least two labels on which every label is the same; None if no such item."""
    counts = np.asarray(counts)
    if counts.size == 0:
        return None
    n_i = counts.sum(axis=1)
    kept = n_i >= 2
    if not kept.any():
        return None
    return float((counts[kept].max(axis=1) == n_i[kept]).mean() * 100.0)


def worker_agreement(labels: pd.DataFrame, counts: ItemCounts | None = None) -> pd.DataFrame:
    """Each worker's agreement with the majority of the OTHER workers on the same items (one level).

    For every label the worker's own vote is removed from the item's counts; the others' majority is then
    compared with it. Items where no other worker labelled, or where the others tie, are not compared (the
    worker would agree with one side of a split by construction). Columns: worker_id, n_labels, n_compared,
    agreement (0–1, None when nothing could be compared).
    """
    if labels.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in ["worker_id", "n_labels", "n_compared", "agreement"]})
    ic = counts if counts is not None else item_counts(labels)
    winner, compared = ic.others_majority
    agree = compared & (winner == ic.label_codes)
    worker_codes, workers = _workers(labels, ic)
    n_workers = len(workers)
    n_labels = np.bincount(worker_codes, minlength=n_workers)
    n_compared = np.bincount(worker_codes, weights=compared, minlength=n_workers).astype(np.int64)
    n_agree = np.bincount(worker_codes, weights=agree, minlength=n_workers)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = n_agree / n_compared
    return pd.DataFrame(
        {
            "worker_id": np.asarray(workers),
            "n_labels": n_labels,
            "n_compared": n_compared,
            "agreement": [float(r) if c else None for r, c in zip(rate, n_compared, strict=True)],
        }
    )


def _workers(labels: pd.DataFrame, ic: ItemCounts) -> tuple[np.ndarray, np.ndarray]:
    """(worker code per label, sorted worker ids) of one level's labels: the counts' own when they carry them."""
    if ic.worker_ids is not None and len(ic.worker_ids) == len(labels):
        return ic.workers
    codes, workers = pd.factorize(labels["worker_id"].to_numpy(), sort=True)
    return codes, np.asarray(workers)


def agreement_summary(labels: pd.DataFrame, level: str | None = None, counts: ItemCounts | None = None) -> dict[str, Any]:
    """All agreement figures of ONE level's labels: counts, kappa, alpha, unanimity, majority shares.
    `counts` may give the level's item_counts of these labels, already computed."""
    if labels.empty:
        return {
            "n_items": 0,
            "n_labels": 0,
            "n_workers": 0,
            "labels_per_item": None,
            "fleiss_kappa": None,
            "krippendorff_alpha": None,
            "percent_unanimous": None,
            "majority_share": {},
        }
    ic = counts if counts is not None and len(counts.label_codes) == len(labels) else item_counts(labels, level)
    return counts_summary(ic.counts, ic.categories, int(len(_workers(labels, ic)[1])), ic.majority[0])


def counts_summary(counts: np.ndarray, categories: tuple[str, ...], n_workers: int,
                   winner: np.ndarray | None = None) -> dict[str, Any]:
    """agreement_summary's figures from one level's items × categories count matrix (every row an item with at
    least one label; columns in the level's tie order) and its number of distinct workers: what the report's
    summary computes from SQL counts without a labels frame (services.reports.summary). `winner`: each row's
    majority column (aggregation.majority_from_counts), when already computed."""
    counts = np.asarray(counts)
    if winner is None:
        winner, _ = majority_from_counts(counts)
    n_labels = int(counts.sum())
    shares = np.bincount(winner, minlength=len(categories)) / len(winner) * 100.0
    return {
        "n_items": int(len(counts)),
        "n_labels": n_labels,
        "n_workers": int(n_workers),
        "labels_per_item": float(n_labels / len(counts)),
        "fleiss_kappa": fleiss_kappa(counts),
        "krippendorff_alpha": krippendorff_alpha(counts),
        "percent_unanimous": percent_unanimous(counts),
        "majority_share": {c: float(s) for c, s in zip(categories, shares, strict=True)},
    }


def agreement_table(
    labels: pd.DataFrame, by: str | None = None, levels: Iterable[str] | None = None,
    counts: Mapping[str, ItemCounts] | None = None,
) -> list[dict]:
    """Rows of agreement figures: one per level over all items (group None), plus one per value of `by`.

    `by` names a column of the labels frame (dataset, system, split); rows are ordered by level, then the
    overall row, then groups in sorted order, so JSON output is stable. `counts` may give each level's
    item_counts over all its labels (aggregation.counts_by_level), shared with the report's other sections.
    """
    rows: list[dict] = []
    by_level = dict(split_levels(labels))
    wanted = list(levels) if levels is not None else sorted(by_level)
    for level in wanted:
        level_labels = by_level.get(level, labels.iloc[:0])
        ic = level_counts(level_labels, level, counts) if len(level_labels) else None
        rows.append({"level": level, "by": by, "group": None, **agreement_summary(level_labels, level, ic)})
        if by is None or level_labels.empty:
            continue
        for group, group_labels in level_labels.groupby(by, sort=True, observed=True, dropna=False):
            group_value = None if pd.isna(group) else group
            rows.append({"level": level, "by": by, "group": group_value, **agreement_summary(group_labels, level)})
    return rows


def worker_table(labels: pd.DataFrame, counts: Mapping[str, ItemCounts] | None = None) -> list[dict]:
    """Per-level, per-worker agreement with the others' majority, as plain rows for the report (`counts`: as in
    agreement_table)."""
    rows: list[dict] = []
    for level, level_labels in split_levels(labels):
        table = worker_agreement(level_labels, level_counts(level_labels, level, counts))
        for rec in table.to_dict("records"):
            worker = rec["worker_id"]
            rows.append(
                {
                    "level": level,
                    "worker_id": worker.item() if hasattr(worker, "item") else worker,
                    "n_labels": int(rec["n_labels"]),
                    "n_compared": int(rec["n_compared"]),
                    "agreement": rec["agreement"],
                }
            )
    return rows
