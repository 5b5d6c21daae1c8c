"""Pairwise preferences: orientation, win rates, and ordinal alpha against krippendorff's documented example."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis.pairwise import pairwise_summary

# krippendorff.alpha docstring (from Krippendorff's "Computing Krippendorff's alpha-reliability", p. 8):
# ordinal alpha with value_domain 1..5 is 0.815.
RELIABILITY = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


def test_ordinal_alpha_matches_the_documented_example() -> None:
    rows = [
        {"unit_id": unit, "aspect": "consistency", "worker_id": rater, "system_a": "m1", "system_b": "m2", "score": int(v)}
        for rater, values in enumerate(RELIABILITY)
        for unit, v in enumerate(values)
        if not np.isnan(v)
    ]
    (row,) = pairwise_summary(pd.DataFrame(rows))
    assert round(row["krippendorff_alpha_ordinal"], 3) == 0.815


def test_swapped_pairs_are_oriented_before_counting() -> None:
    frame = pd.DataFrame(
        [
            # unit 1 shows (x, y): worker 1 prefers x strongly, worker 2 slightly
            (1, "consistency", 1, "x", "y", 1),
            (1, "consistency", 2, "x", "y", 2),
            # unit 2 shows (y, x): score 5 = the right one (x) much better -> oriented 1; score 3 = tie
            (2, "consistency", 1, "y", "x", 5),
            (2, "consistency", 2, "y", "x", 3),
        ],
        columns=["unit_id", "aspect", "worker_id", "system_a", "system_b", "score"],
    )
    (row,) = pairwise_summary(frame)
    assert (row["system_first"], row["system_second"]) == ("x", "y")
    assert row["first_wins_pct"] == 75.0 and row["ties_pct"] == 25.0 and row["second_wins_pct"] == 0.0
    assert row["mean_score"] == pytest.approx((1 + 2 + 1 + 3) / 4)
    assert pairwise_summary(frame.iloc[0:0]) == []
