"""Soft labels beside every exported label: how sure the crowd's aggregated label is (analysis.uncertainty).

Per item of a chunk: `posterior` (the probability the aggregated label is right), `posterior_ci95` (its 95%
interval) and `soft_label` ({label: probability}). For the majority, and for any model without its own posteriors
(MACE), the Dirichlet(1) posterior of the label's share of the item's votes: three votes 3-0 give 0.8, 2-1 give
0.6. Under Dawid-Skene or GLAD (services.exports fits the model on the whole project and hands its posteriors over
with the labels, ModelledLabels) the model's own posterior and interval. Items without votes get no fields.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import categories_for, item_counts, majority_from_counts, split_levels
from annotation_tasks.exporters.base import AGGREGATED
from annotation_tasks.protocols import label_order

if TYPE_CHECKING:
    from annotation_tasks.analysis.uncertainty import Uncertainty

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


PRIOR, LEVEL = 1.0, 0.95  # analysis.uncertainty's PRIOR and LEVEL (tests/exporters/test_soft_labels.py holds them equal)


def majority_posterior(counts: np.ndarray, winner: np.ndarray) -> dict[str, np.ndarray]:
    """analysis.uncertainty.majority_posterior's posterior, 95% interval and soft label (not its p_majority, which
    no export writes), the interval's Beta quantiles from scipy.special.betaincinv: the Boost routine
    scipy.stats.beta.ppf calls, so the same bits, without importing scipy.stats (45 MB of a Celery worker's memory
    for every export) on the way."""
    from scipy.special import betaincinv

    counts = np.asarray(counts, dtype=float)
    alpha = counts + PRIOR
    total = alpha.sum(axis=1)
    a = alpha[np.arange(len(counts)), winner]
    b = total - a
    pairs, inverse = np.unique(np.stack([a, b], axis=1), axis=0, return_inverse=True)  # counts repeat a lot
    tail = (1.0 - LEVEL) / 2.0
    low = betaincinv(pairs[:, 0], pairs[:, 1], tail)[inverse.ravel()]
    high = betaincinv(pairs[:, 0], pairs[:, 1], 1.0 - tail)[inverse.ravel()]
    return {"posterior": a / total, "ci_low": low, "ci_high": high, "soft": alpha / total[:, None]}


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


def majorities_and_certainty(rows: list[tuple[str, int, int, Any]]
                             ) -> tuple[dict[Key, tuple[Any, list]], dict[Key, dict[str, Any]]]:
    """(base.majorities(rows), certainty(rows)) in one pass: each level's votes counted once in numpy (no labels
    frame, no pandas groupby), the same categories, tie rule, vote order and rounding."""
    if not rows:
        return {}, {}
    chosen = AGGREGATED.get()
    modelled: dict[Key, dict[str, Any]] = getattr(chosen, "certainty", {})
    votes: dict[Key, tuple[Any, list]] = {}
    sure: dict[Key, dict[str, Any]] = {}
    ordered = sorted(rows, key=itemgetter(0, 1, 2))  # by level, item, then assignment (majorities' vote order)
    bounds = [0] + [i for i in range(1, len(ordered)) if ordered[i][0] != ordered[i - 1][0]] + [len(ordered)]
    tie_order = label_order()
    for start, end in itertools.pairwise(bounds):
        part = ordered[start:end]
        level = part[0][0]
        labels = [r[3] for r in part]
        if any(label is None for label in labels):
            raise ValueError("labels frame has missing labels; drop them before counting")
        items = np.fromiter((r[1] for r in part), dtype=np.int64, count=len(part))
        starts = np.flatnonzero(np.concatenate(([True], items[1:] != items[:-1])))
        item_ids = items[starts].tolist()
        item_rows = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(items))))
        edges = [*starts.tolist(), len(items)]
        keys = [(level, int(i)) for i in item_ids]
        observed = list(dict.fromkeys(labels))
        for orders, out in ((tie_order, votes), (None, sure)):
            categories = categories_for(level, observed, orders)
            index = {c: k for k, c in enumerate(categories)}
            codes = np.fromiter((index[label] for label in labels), dtype=np.int64, count=len(labels))
            counts = np.bincount(item_rows * len(categories) + codes, minlength=len(starts) * len(categories)
                                 ).reshape(len(starts), len(categories))
            winner, _tie = majority_from_counts(counts)
            if out is votes:
                names = np.asarray(categories, dtype=object)[winner].tolist()
                if chosen is not None:
                    names = [chosen.get(k, m) for k, m in zip(keys, names, strict=True)]
                for r, key in enumerate(keys):
                    votes[key] = (names[r], labels[edges[r]:edges[r + 1]])
                continue
            if chosen:  # another model's label: the share of the votes for THAT label
                winner = np.array([index.get(chosen.get(k), w) for k, w in zip(keys, winner, strict=True)],
                                  dtype=np.int64)
            sure.update(_fields_of(keys, counts, winner, [str(c) for c in categories], modelled))
    return votes, sure


def _fields_of(keys: list[Key], counts: np.ndarray, winner: np.ndarray, names: list[str],
               modelled: dict[Key, dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    """certainty's fields of these items (a modelled item keeps the model's). The fields depend on an item's vote
    counts and winner only, and a chunk's thousands of items have a handful of distinct ones: each is figured once
    and its (never mutated) dict shared by the items that have it (~2 s of a 10^6-label export)."""
    if not len(keys):
        return {}
    distinct, which = np.unique(np.column_stack([counts, winner]), axis=0, return_inverse=True)
    post = majority_posterior(distinct[:, :-1], distinct[:, -1])
    p, low, high = (np.asarray(post[k], dtype=float).tolist() for k in ("posterior", "ci_low", "ci_high"))
    soft = np.asarray(post["soft"], dtype=float).tolist()
    fields = [{"posterior": round(p[r], 4), "posterior_ci95": [round(low[r], 4), round(high[r], 4)],
               "soft_label": {n: round(v, 4) for n, v in zip(names, soft[r], strict=True)}} for r in range(len(p))]
    out: dict[Key, dict[str, Any]] = {}
    for key, r in zip(keys, np.ravel(which).tolist(), strict=True):
        got = modelled.get(key)
        out[key] = got or fields[r]
    return out
