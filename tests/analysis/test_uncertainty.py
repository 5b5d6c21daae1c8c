"""Posterior of each aggregated label with its interval, and each worker's accuracy with its standard error."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis import crowd_models, uncertainty

ORDERS = {"qa": ("not_supported", "supported")}


def frame(votes: dict[int, list[tuple[str, str]]], level: str = "qa") -> pd.DataFrame:
    return pd.DataFrame([{"level": level, "item_id": i, "worker_id": w, "label": lab}
                         for i, vs in votes.items() for w, lab in vs])


def test_majority_posterior_is_the_dirichlet_beta_by_hand():
    labels = frame({
        1: [("a", "supported"), ("b", "supported"), ("c", "supported")],
        2: [("a", "supported"), ("b", "supported"), ("c", "not_supported")],
        3: [("a", "not_supported")],
    })
    result = uncertainty.estimate(labels, "majority", orders=ORDERS)
    items = result.items.set_index("item_id")
    # 3-0: Beta(4, 1): mean 4/5, interval [0.025 ** (1/4), 0.975 ** (1/4)]
    assert items.loc[1, "posterior"] == pytest.approx(0.8)
    assert items.loc[1, "ci_low"] == pytest.approx(0.025 ** 0.25) and items.loc[1, "ci_high"] == pytest.approx(0.975 ** 0.25)
    assert items.loc[2, "posterior"] == pytest.approx(0.6) and items.loc[2, "label"] == "supported"
    assert items.loc[3, "posterior"] == pytest.approx(2 / 3) and items.loc[3, "label"] == "not_supported"
    assert items.loc[1, "soft"] == {"not_supported": 0.2, "supported": 0.8}
    assert items.loc[1, "p_majority"] > items.loc[2, "p_majority"] > 0.5
    # workers: each label judged by the OTHER votes only. c: item 1 (others 2-0 -> 3/4 right), item 2 (others 2-0
    # for supported -> P(not_supported) = 1/4); a: item 1 3/4, item 2 (others 1-1) 1/2, item 3 (alone) 1/2.
    workers = result.workers.set_index("worker_id")
    assert workers.loc["c", "accuracy"] == pytest.approx((0.75 + 0.25) / 2)
    assert workers.loc["a", "accuracy"] == pytest.approx((0.75 + 0.5 + 0.5) / 3)
    a, b = 1.75 + 1, 3 - 1.75 + 1
    assert workers.loc["a", "se"] == pytest.approx(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))))


def _simulated(seed: int = 1) -> tuple[pd.DataFrame, dict[int, str], str]:
    """60 items, five good workers (90% right) and one who answers at random on every item."""
    rng = np.random.default_rng(seed)
    truth = {i: ("supported" if rng.random() < 0.6 else "not_supported") for i in range(60)}
    rows = []
    for i, t in truth.items():
        for w in range(5):
            right = rng.random() < 0.9
            rows.append({"level": "qa", "item_id": i, "worker_id": f"good{w}",
                         "label": t if right else ({"supported", "not_supported"} - {t}).pop()})
        rows.append({"level": "qa", "item_id": i, "worker_id": "random",
                     "label": "supported" if rng.random() < 0.5 else "not_supported"})
    return pd.DataFrame(rows), truth, "random"


@pytest.mark.parametrize("model", ["majority", "dawid_skene", "glad"])
def test_models_rank_the_random_worker_last_and_intervals_hold_the_posterior(model):
    labels, truth, bad = _simulated()
    result = uncertainty.estimate(labels, model, orders=ORDERS)
    workers = result.workers.set_index("worker_id")
    assert workers["accuracy"].idxmin() == bad
    assert workers.loc[bad, "accuracy"] < workers.drop(bad)["accuracy"].min() - 0.1
    assert (workers["se"] > 0).all() and (workers["se"] < 0.1).all()
    items = result.items
    assert ((items["ci_low"] <= items["posterior"] + 1e-12) & (items["posterior"] <= items["ci_high"] + 1e-12)).all()
    assert ((items["posterior"] > 0.5 - 1e-9) & (items["posterior"] <= 1)).all()
    assert (items["label"] == items["item_id"].map(truth)).mean() >= 0.95
    for soft, label, p in zip(items["soft"], items["label"], items["posterior"], strict=True):
        assert sum(soft.values()) == pytest.approx(1, abs=1e-3) and soft[label] == pytest.approx(p, abs=1e-4)


def test_model_labels_are_the_aggregations_labels_and_split_items_are_least_certain():
    labels, _truth, _bad = _simulated(seed=3)
    for model in ("dawid_skene", "glad"):
        result = uncertainty.estimate(labels, model, orders=ORDERS).items.set_index("item_id")
        fitted = crowd_models.fit(labels, model, "qa").labels
        assert (result["label"] == fitted.reindex(result.index).astype(str)).all()
    items = uncertainty.estimate(labels, "majority", orders=ORDERS).items
    counts = labels.groupby("item_id")["label"].agg(lambda s: max((s == "supported").sum(), (s != "supported").sum()))
    top = items.set_index("item_id")["posterior"]
    assert top[counts == 6].min() > top[counts == 4].max()


def test_empty_and_unknown():
    empty = uncertainty.estimate(pd.DataFrame(columns=["level", "item_id", "worker_id", "label"]))
    assert empty.items.empty and empty.workers.empty
    with pytest.raises(ValueError, match="unknown aggregation"):
        uncertainty.estimate(frame({1: [("a", "supported")]}), "mace")


def test_summary_lists_hardest_items_first_and_best_workers_first():
    labels, _truth, bad = _simulated()
    section = uncertainty.summary(uncertainty.estimate(labels, "majority", orders=ORDERS), least_certain=5)
    posteriors = [r["posterior"] for r in section["items"]]
    assert posteriors == sorted(posteriors) and len(posteriors) == 5
    assert section["workers"][-1]["worker_id"] == bad
    assert section["levels"][0]["items"] == 60
