"""Soft labels beside every exported label: how sure the crowd's aggregated label is (analysis.uncertainty).

Per item of a chunk: `posterior` (the probability the aggregated label is right), `posterior_ci95` (its 95%
interval) and `soft_label` ({label: probability}). For the majority, and for any model without its own posteriors
(MACE), the Dirichlet(1) posterior of the label's share of the item's votes: three votes 3-0 give 0.8, 2-1 give
0.6. Under Dawid-Skene or GLAD (services.exports fits the model on the whole project and hands its posteriors over
with the labels, ModelledLabels) the model's own posterior and interval. Items without votes get no fields.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import item_counts, split_levels
from annotation_tasks.analysis.uncertainty import Uncertainty, majority_posterior
from annotation_tasks.exporters.base import AGGREGATED

Key = tuple[str, int]


class ModelledLabels(dict):
    """{(level, item id): label} of a fitted model, with each item's certainty fields (`certainty`)."""

    def __init__(self, result: Uncertainty) -> None:
        items = result.items
        keys = [(str(lv), int(i)) for lv, i in zip(items["level"], items["item_id"], strict=True)]
        super().__init__(zip(keys, items["label"].tolist(), strict=True))
        self.certainty: dict[Key, dict[str, Any]] = {
            k: fields(p, lo, hi, soft)
            for k, p, lo, hi, soft in zip(keys, items["posterior"], items["ci_low"], items["ci_high"], items["soft"],
                                          strict=True)
        }


def fields(posterior: float, low: float, high: float, soft: dict[str, float]) -> dict[str, Any]:
    return {"posterior": round(float(posterior), 4), "posterior_ci95": [round(float(low), 4), round(float(high), 4)],
            "soft_label": {str(k): round(float(v), 4) for k, v in soft.items()}}


def certainty(rows: Iterable[tuple[str, int, int, Any]]) -> dict[Key, dict[str, Any]]:
    """{(level, item id): certainty fields} of the items of (level, item id, assignment id, label) rows."""
    frame = pd.DataFrame(list(rows), columns=["level", "item_id", "worker_id", "label"])
    if frame.empty:
        return {}
    chosen = AGGREGATED.get()
    modelled: dict[Key, dict[str, Any]] = getattr(chosen, "certainty", {})
    out: dict[Key, dict[str, Any]] = {}
    for level, group in split_levels(frame):
        ic = item_counts(group, level)
        winner, _tie = ic.majority
        index = {c: k for k, c in enumerate(ic.categories)}
        keys = [(level, int(i)) for i in ic.item_ids]
        if chosen:  # another model's label: the share of the votes for THAT label
            winner = np.array([index.get(chosen.get(k), w) for k, w in zip(keys, winner, strict=True)], dtype=np.int64)
        post = majority_posterior(ic.counts, winner)
        # plain floats a column at a time (fields() per item, unrolled: the same rounding, no numpy scalar per value)
        p, low, high = (np.asarray(post[k], dtype=float).tolist() for k in ("posterior", "ci_low", "ci_high"))
        soft, names = np.asarray(post["soft"], dtype=float).tolist(), [str(c) for c in ic.categories]
        for r, key in enumerate(keys):
            got = modelled.get(key)
            out[key] = got or {"posterior": round(p[r], 4), "posterior_ci95": [round(low[r], 4), round(high[r], 4)],
                               "soft_label": {n: round(v, 4) for n, v in zip(names, soft[r], strict=True)}}
    return out
