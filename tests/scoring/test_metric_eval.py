"""analysis.metric_eval against independent computations (sklearn, numpy, by hand) on frames built here."""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import balanced_accuracy_score

from annotation_tasks.analysis import metric_eval as me


def _auc_by_pairs(y, s) -> float:
    """Mann-Whitney: the share of (supported, unsupported) pairs ordered right, ties half."""
    pos = [v for v, t in zip(s, y, strict=True) if t]
    neg = [v for v, t in zip(s, y, strict=True) if not t]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_item_metrics_match_independent_formulas():
    rng = np.random.default_rng(3)
    y = rng.random(200) < 0.6
    s = np.clip(y * 0.3 + rng.random(200) * 0.7, 0, 1)
    m = me.item_metrics(y, s)
    assert m["items"] == 200 and m["supported_pct"] == pytest.approx(y.mean() * 100)
    assert m["bacc"] == pytest.approx(balanced_accuracy_score(y, s >= 0.5) * 100)
    assert m["auc"] == pytest.approx(_auc_by_pairs(y, s) * 100)


def test_one_class_has_no_bacc_or_auc():
    m = me.item_metrics(np.array([True, True]), np.array([0.2, 0.9]))
    assert m["bacc"] is None and m["auc"] is None and m["items"] == 2


def test_grouped_metrics_and_curves():
    items = pd.DataFrame({
        "item_id": range(8), "response_id": [1, 1, 2, 2, 3, 3, 4, 4],
        "supported": [True, False, True, True, False, False, True, False],
        "score": [0.9, 0.2, 0.8, 0.4, 0.6, 0.1, 0.7, 0.3],
        "dataset": ["a", "a", "a", "a", "b", "b", "b", "b"], "system": ["x", "x", "y", "y", "x", "x", "y", "y"],
    })
    out = me.grouped_item_metrics(items, "dataset")
    assert set(out["by_group"]) == {"a", "b"} and out["by_group"]["a"]["items"] == 4
    assert out["by_group"]["a"]["auc"] == pytest.approx(100.0)  # the unsupported item has the lowest score
    roc = me.roc_points(items["supported"], items["score"])
    assert (roc[0]["fpr"], roc[0]["tpr"]) == (0.0, 0.0) and (roc[-1]["fpr"], roc[-1]["tpr"]) == (1.0, 1.0)
    bins = me.calibration_bins(items["supported"], items["score"], n_bins=2)
    assert [b["items"] for b in bins] == [4, 4]
    assert bins[1]["supported_share"] == pytest.approx(3 / 4) and bins[0]["supported_share"] == pytest.approx(1 / 4)


def test_response_level_faithfulness_and_correlation():
    items = pd.DataFrame({
        "item_id": range(9), "response_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
        "supported": [True, True, True, True, False, False, False, False, False],
        "score": [0.9, 0.8, 0.3, 0.7, 0.6, 0.1, 0.2, 0.2, 0.6],
    })
    shares = me.response_shares(items)
    assert shares["faithfulness"].tolist() == pytest.approx([2 / 3, 2 / 3, 1 / 3])
    assert shares["human"].tolist() == pytest.approx([1.0, 1 / 3, 0.0])
    out = me.response_level(items)
    human, metric = np.array([1.0, 1 / 3, 0.0]), np.array([2 / 3, 2 / 3, 1 / 3])
    assert out["pearson"] == pytest.approx(np.corrcoef(metric, human)[0, 1])
    assert out["mae"] == pytest.approx(np.abs(metric - human).mean() * 100)


def test_system_estimates_error_and_ranking():
    items = pd.DataFrame({
        "item_id": range(6), "response_id": [1, 1, 2, 2, 3, 3], "system": ["a", "a", "b", "b", "c", "c"],
        "supported": [True, True, True, False, False, False],
        "score": [0.9, 0.9, 0.1, 0.2, 0.9, 0.1],
    })
    out = me.system_estimates(items)
    rows = {r["system"]: r for r in out["systems"]}
    assert rows["a"]["human"] == 100.0 and rows["b"]["metric"] == 0.0 and rows["c"]["error"] == 50.0
    assert out["human_order"] == ["a", "b", "c"] and out["metric_order"] == ["a", "c", "b"]
    assert out["ranking_kept"] is False
    responding = pd.Series({1: True, 2: False, 3: True})
    assert {r["system"] for r in me.system_estimates(items, responding)["systems"]} == {"a", "c"}


def test_pairwise_agreement_with_human_preferences():
    preferences = pd.DataFrame({
        "unit_id": [1, 1, 2, 3], "aspect": ["faithfulness"] * 4, "worker_id": [1, 2, 1, 1],
        "response_a_id": [10, 10, 20, 30], "response_b_id": [11, 11, 21, 31], "score": [1, 2, 5, 3],
    })
    metric = pd.Series({10: 0.9, 11: 0.4, 20: 0.8, 21: 0.5, 30: 0.5, 31: 0.5})
    out = me.pairwise_agreement(preferences, metric)["faithfulness"]
    # unit 1: humans prefer A (mean 1.5), metric too; unit 2: humans B, metric A; unit 3: humans tie (left out).
    assert out["pairs"] == 3 and out["decided_pairs"] == 2 and out["agreement_pct"] == 50.0
    human, diff = np.array([1.5, -2.0, 0.0]), np.array([0.5, 0.3, 0.0])
    from scipy.stats import spearmanr

    assert out["spearman"] == pytest.approx(spearmanr(diff, human).statistic)


def test_jsonable_turns_numpy_and_nan_into_plain_json():
    import json

    value = me.jsonable({"a": np.float64(0.5), "b": [np.int64(3), float("nan")], 1: (np.bool_(True),)})
    assert value == {"a": 0.5, "b": [3, None], "1": [True]}
    json.dumps(value, allow_nan=False)
