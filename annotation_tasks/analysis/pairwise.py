"""Pairwise preferences: win / tie / loss per system pair and agreement on the 1–5 scale.

Scores: 1 = response A much more consistent … 3 = equal … 5 = response B much more consistent. Each
judgment is first oriented so that the alphabetically first system is "A" (a swapped pair's score becomes
6 - score); then a score below 3 is a win for the first system, 3 a tie, above 3 a loss. Orienting
matters: interfaces shuffle the left/right position, and without it the same preference would count as
both a win and a loss.

Input: preferences frame, one row per judgment: unit_id, aspect, worker_id, system_a, system_b, score, and
optionally pair (what is compared, whichever side: services.frames gives it, with one judgment per worker per pair);
an item of the agreement is (pair or unit, aspect, systems).
"""
from __future__ import annotations

from typing import Any

import krippendorff
import numpy as np
import pandas as pd

from annotation_tasks.analysis.agreement import fleiss_kappa, krippendorff_alpha

SCALE = (1, 2, 3, 4, 5)


def orient(preferences: pd.DataFrame) -> pd.DataFrame:
    """Add first, second (systems in sorted order) and oriented_score (from the first system's side)."""
    swap = preferences["system_a"].astype(str) > preferences["system_b"].astype(str)
    return preferences.assign(
        first=np.where(swap, preferences["system_b"], preferences["system_a"]),
        second=np.where(swap, preferences["system_a"], preferences["system_b"]),
        oriented_score=np.where(swap, 6 - preferences["score"], preferences["score"]),
    )


def _scale_counts(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """items × 5 matrix of how many judgments gave each oriented score."""
    item_codes, _ = pd.factorize(pd.MultiIndex.from_frame(frame[keys]))
    n_items = int(item_codes.max()) + 1 if len(item_codes) else 0
    codes = frame["oriented_score"].to_numpy(dtype=np.int64) - 1
    flat = np.bincount(item_codes * len(SCALE) + codes, minlength=n_items * len(SCALE))
    return flat.reshape(n_items, len(SCALE))


def _ordinal_alpha(counts: np.ndarray) -> float | None:
    """Krippendorff's alpha with the ordinal metric on the 1–5 scale (None when undefined)."""
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None
    try:
        value = float(
            krippendorff.alpha(value_counts=pairable, value_domain=list(SCALE), level_of_measurement="ordinal")
        )
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def pairwise_summary(preferences: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows per (aspect, system pair): judgments, wins / ties / losses of the first system (%), mean oriented
    score, and agreement over items (unit, aspect, pair) judged by several workers: Krippendorff's alpha
    (ordinal, 1–5) and Fleiss' kappa on the three outcomes (first better / equal / second better)."""
    if preferences.empty:
        return []
    oriented = orient(preferences)
    item = "pair" if "pair" in oriented else "unit_id"  # the pair judged (across batches), else the unit
    rows: list[dict[str, Any]] = []
    for (aspect, first, second), group in oriented.groupby(["aspect", "first", "second"], sort=True):
        score = group["oriented_score"]
        counts = _scale_counts(group, [item, "aspect", "first", "second"])
        outcomes = np.stack([counts[:, :2].sum(axis=1), counts[:, 2], counts[:, 3:].sum(axis=1)], axis=1)
        rows.append(
            {
                "aspect": aspect,
                "system_first": first,
                "system_second": second,
                "n_judgments": int(len(group)),
                "first_wins_pct": float((score < 3).mean() * 100.0),
                "ties_pct": float((score == 3).mean() * 100.0),
                "second_wins_pct": float((score > 3).mean() * 100.0),
                "mean_score": float(score.mean()),
                "krippendorff_alpha_ordinal": _ordinal_alpha(counts),
                "fleiss_kappa_outcome": fleiss_kappa(outcomes),
                "krippendorff_alpha_outcome": krippendorff_alpha(outcomes),
            }
        )
    return rows
