"""Every scorer against the humans, past BAcc and AUC: calibration (ECE and the reliability bins), Cohen's kappa with
the human verdict at the decision threshold, per group; and where the scorer and the crowd disagree, who was right.

Items: one row per item with `supported` (the human verdict: adjudicated, else gold, else the crowd majority),
`score`, and for the disagreement queue `crowd` (the crowd majority alone, True = supported) and `adjudicated`
(the expert's verdict, None where no expert decided). Pure: frames in, dicts out.
"""
from __future__ import annotations

from typing import Any

import pandas as pd

from annotation_tasks.analysis.metric_eval import THRESHOLD, agreement_at, human_agreement

__all__ = ["agreement_at", "disagreements", "human_agreement", "who_was_right"]


def disagreements(items: pd.DataFrame, threshold: float = THRESHOLD) -> pd.DataFrame:
    """Items where the scorer's verdict (score >= threshold) differs from the crowd majority, the most confident
    disagreement first (|score - crowd|): the queue an adjudicator should look at."""
    crowd = items["crowd"].astype(bool)
    differ = (items["score"] >= threshold) != crowd
    out = items[differ].assign(disagreement=(items["score"] - crowd.astype(float)).abs()[differ])
    return out.sort_values(["disagreement", "item_id"], ascending=[False, True], kind="stable")


def who_was_right(items: pd.DataFrame, threshold: float = THRESHOLD) -> dict[str, Any]:
    """On adjudicated items where the scorer and the crowd majority disagree: how often each matched the expert
    (SAFE reported its scorer winning 76% of such disagreements with crowd workers)."""
    split = disagreements(items, threshold)
    decided = split[split["adjudicated"].notna()]
    n = int(len(decided))
    crowd_right = int((decided["crowd"].astype(bool) == decided["adjudicated"].astype(bool)).sum())
    return {"disagreements": int(len(split)), "adjudicated": n, "crowd_right": crowd_right,
            "scorer_right": n - crowd_right,
            "scorer_right_pct": (n - crowd_right) / n * 100.0 if n else None}
