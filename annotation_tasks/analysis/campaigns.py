"""Agreement of past campaigns: any label vocabulary, uneven numbers of labels per item, numeric scales.

Campaign labels come from files we did not collect: items have 1, 2, 5 ... labels, and labels may be numbers
(a 1-5 Likert scale). These functions add what that needs on top of analysis.agreement (whose results they never
change): Fleiss' kappa only where its assumption holds (the same number of raters on every item), with the reason
when it does not; ordinal Krippendorff's alpha when every label is a number; and how many labels items have.
Pure: frames in, plain dicts out.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

import krippendorff
import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import item_counts, majority_from_counts
from annotation_tasks.analysis.agreement import fleiss_kappa, krippendorff_alpha, percent_unanimous


def numeric_values(categories: Sequence[str]) -> list[float] | None:
    """Each category as a number (same order), or None when any is not a finite number."""
    out: list[float] = []
    for c in categories:
        try:
            value = float(c)
        except (TypeError, ValueError):
            return None
        if not math.isfinite(value):
            return None
        out.append(value)
    return out


def fleiss_kappa_balanced(counts: np.ndarray) -> tuple[float | None, str | None]:
    """(Fleiss' kappa, None) when every item with two or more labels has the same number, else (None, why).

    Items with a single label carry no agreement and are left out first (the report counts them). With uneven
    numbers Fleiss' (1971) chance correction does not hold; Krippendorff's alpha is the figure to read then.
    """
    counts = np.asarray(counts)
    if counts.ndim != 2 or counts.size == 0:
        return None, "no labels"
    n_i = counts.sum(axis=1)
    kept = n_i[n_i >= 2]
    if len(kept) == 0:
        return None, "no item has two labels"
    low, high = int(kept.min()), int(kept.max())
    if low != high:
        return None, f"items have {low} to {high} labels; Fleiss' kappa needs the same number of raters per item"
    value = fleiss_kappa(counts)
    if value is None:
        return None, "one category only"
    return value, None


def krippendorff_alpha_ordinal(counts: np.ndarray, values: Sequence[float]) -> float | None:
    """Ordinal Krippendorff's alpha from an items × categories count matrix whose columns have these numbers."""
    counts = np.asarray(counts)
    order = np.argsort(np.asarray(values, dtype=float), kind="stable")
    ordered = counts[:, order]
    pairable = ordered[ordered.sum(axis=1) >= 2]
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None
    try:
        alpha = krippendorff.alpha(
            value_counts=pairable, value_domain=np.asarray(values, dtype=float)[order], level_of_measurement="ordinal"
        )
    except ValueError:
        return None
    return float(alpha) if math.isfinite(alpha) else None


def campaign_summary(labels: pd.DataFrame, level: str | None = None) -> dict[str, Any]:
    """Agreement figures of ONE level's labels with uneven raters: counts, the spread of labels per item,
    Fleiss' kappa (or why it is absent), nominal and (numeric labels) ordinal alpha, unanimity, majority shares."""
    empty: dict[str, Any] = {
        "n_items": 0, "n_labels": 0, "n_workers": 0, "n_single_label_items": 0,
        "labels_per_item": None, "labels_per_item_min": None, "labels_per_item_max": None,
        "fleiss_kappa": None, "fleiss_kappa_absent": "no labels", "krippendorff_alpha": None,
        "krippendorff_alpha_ordinal": None, "numeric_labels": False, "percent_unanimous": None,
        "n_majority_ties": 0, "majority_share": {},
    }
    if labels.empty:
        return empty
    ic = item_counts(labels, level)
    n_i = ic.n_per_item
    kappa, absent = fleiss_kappa_balanced(ic.counts)
    numbers = numeric_values(ic.categories)
    winner, tie = majority_from_counts(ic.counts)
    shares = np.bincount(winner, minlength=len(ic.categories)) / len(winner) * 100.0
    return {
        **empty,
        "n_items": int(len(ic.item_ids)),
        "n_labels": int(len(labels)),
        "n_workers": int(labels["worker_id"].nunique()),
        "n_single_label_items": int((n_i < 2).sum()),
        "labels_per_item": float(n_i.mean()),
        "labels_per_item_min": int(n_i.min()),
        "labels_per_item_max": int(n_i.max()),
        "fleiss_kappa": kappa,
        "fleiss_kappa_absent": absent,
        "krippendorff_alpha": krippendorff_alpha(ic.counts),
        "krippendorff_alpha_ordinal": krippendorff_alpha_ordinal(ic.counts, numbers) if numbers else None,
        "numeric_labels": numbers is not None,
        "percent_unanimous": percent_unanimous(ic.counts),
        "n_majority_ties": int(tie[n_i >= 2].sum()),
        "majority_share": {c: float(s) for c, s in zip(ic.categories, shares, strict=True)},
    }


def campaign_agreement_table(
    labels: pd.DataFrame, by: str | None = None, levels: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Rows of campaign_summary: per level the overall row (group None), then one per value of `by`, sorted.

    Missing grouping values form their own group (None), so no label silently drops out of a breakdown.
    """
    rows: list[dict[str, Any]] = []
    wanted = list(levels) if levels is not None else sorted(pd.unique(labels["level"])) if len(labels) else []
    for level in wanted:
        level_labels = labels[labels["level"] == level]
        rows.append({"level": level, "by": by, "group": None, **campaign_summary(level_labels, level)})
        if by is None or level_labels.empty:
            continue
        for group, group_labels in level_labels.groupby(by, sort=True, dropna=False):
            value = None if pd.isna(group) else group
            rows.append({"level": level, "by": by, "group": value, **campaign_summary(group_labels, level)})
    return rows
