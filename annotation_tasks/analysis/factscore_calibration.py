"""Calibrating the FActScore estimator: one decision threshold for facts, chosen where the estimate of a system's
FActScore meets the human one.

Rows are facts: {"system", "response", "supported" (human verdict), "score" (P(supported))}. A system's score is
the mean over its responses of the share of facts supported (human) or with score >= t (estimator), in points, as
analysis.metric_eval.system_estimates computes it. fit_threshold picks t on a grid of 0.005 minimising the mean
absolute error over the systems in the rows (ties: nearest 0.5, the uncalibrated value).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

GRID = np.round(np.arange(0.05, 0.951, 0.005), 3)


def _frame(rows: Sequence[dict[str, Any]] | pd.DataFrame) -> pd.DataFrame:
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    if frame.empty or not {"system", "response", "supported", "score"} <= set(frame.columns):
        raise ValueError("rows need system, response, supported and score")
    return frame


def system_errors(rows: Sequence[dict[str, Any]] | pd.DataFrame, threshold: float) -> dict[str, dict[str, float]]:
    """{system: {"responses", "human", "metric", "error"}} at a threshold (points)."""
    frame = _frame(rows)
    per_response = frame.assign(predicted=frame["score"] >= threshold).groupby(["system", "response"]).agg(
        human=("supported", "mean"), metric=("predicted", "mean"))
    per_system = per_response.groupby(level="system").agg(responses=("human", "size"), human=("human", "mean"),
                                                          metric=("metric", "mean"))
    return {str(s): {"responses": int(r.responses), "human": float(r.human * 100), "metric": float(r.metric * 100),
                     "error": float((r.metric - r.human) * 100)} for s, r in per_system.iterrows()}


def fit_threshold(rows: Sequence[dict[str, Any]] | pd.DataFrame, grid: np.ndarray = GRID) -> float:
    """The threshold whose per-system estimates are closest to the human scores (mean absolute error)."""
    frame = _frame(rows)
    score = frame["score"].to_numpy(float)
    keys = pd.MultiIndex.from_frame(frame[["system", "response"]])
    codes, responses = pd.factorize(keys)
    systems = pd.factorize(responses.get_level_values(0))[0]
    n_per = np.bincount(codes)
    human_r = np.bincount(codes, weights=frame["supported"].to_numpy(float)) / n_per
    n_sys = np.bincount(systems)
    human = np.bincount(systems, weights=human_r) / n_sys
    best, best_key = 0.5, (np.inf, np.inf)
    for t in grid:
        metric_r = np.bincount(codes, weights=(score >= t).astype(float)) / n_per
        error = np.abs(np.bincount(systems, weights=metric_r) / n_sys - human).mean()
        key = (round(float(error), 9), abs(float(t) - 0.5))
        if key < best_key:
            best, best_key = float(t), key
    return best
