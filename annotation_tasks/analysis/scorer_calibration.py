"""Every scorer against the humans, past BAcc and AUC: calibration (ECE and the reliability bins), Cohen's kappa with
the human verdict at the decision threshold, per group; and where the scorer and the crowd disagree, who was right.

Items: one row per item with `supported` (the human verdict: adjudicated, else gold, else the crowd majority),
`score`, and for the disagreement queue `crowd` (the crowd majority alone, True = supported) and `adjudicated`
(the expert's verdict, None where no expert decided). Without any expert, versus_one_worker judges the scorer
against single workers, each item's other workers being the judge. Pure: frames in, dicts out.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.metric_eval import THRESHOLD, agreement_at, human_agreement

__all__ = ["agreement_at", "disagreements", "human_agreement", "one_worker_items", "versus_one_worker", "who_was_right"]


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


def one_worker_items(votes: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """who_was_right's items with one worker as the crowd: a row per vote (`votes`: item_id, supported) of a scored
    item with three votes or more; `crowd` is that vote, `adjudicated` the verdict every other vote on the item
    gives (None where they split). The judges are independent of the judged vote, but they are crowd workers too."""
    v = votes[["item_id", "supported"]].merge(scores[["item_id", "score"]], on="item_id", how="inner")
    said = v["supported"].astype(bool).to_numpy()
    grouped = v.groupby("item_id", sort=False)["supported"]
    n = grouped.transform("size").to_numpy()
    others_yes = grouped.transform("sum").to_numpy() - said
    others = n - 1
    agree = (n >= 3) & ((others_yes == 0) | (others_yes == others))
    verdict = pd.Series(others_yes == others, dtype=object).where(agree, None)
    keep = n >= 3
    return pd.DataFrame({"item_id": np.arange(int(keep.sum())), "item": v["item_id"].to_numpy()[keep],
                         "score": v["score"].to_numpy()[keep], "crowd": said[keep],
                         "adjudicated": verdict.to_numpy()[keep]})


def versus_one_worker(votes: pd.DataFrame, scores: pd.DataFrame, threshold: float = THRESHOLD) -> dict[str, Any]:
    """Where the scorer's verdict and one worker's vote differ, and the item's other workers all agree: how often
    they side with the scorer (SAFE's 76% of disagreements won against crowd workers, measured without experts).
    Two workers against a third would be right half the time by symmetry: 50% is the scorer being as good as a
    worker."""
    got = who_was_right(one_worker_items(votes, scores), threshold)
    return {"disagreements": got["disagreements"], "judged": got["adjudicated"], "scorer_right": got["scorer_right"],
            "worker_right": got["crowd_right"], "scorer_right_pct": got["scorer_right_pct"]}
