"""Dawid-Skene, GLAD and MACE beside the majority on simulated crowds whose truth and spammers are known."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis.crowd_models import MODELS, aggregated_labels, compare_with_majority, fit

GOOD, SPAMMERS = ["g1", "g2", "g3"], ["s1", "s2", "s3", "s4"]


def _crowd(seed: int = 0, n_items: int = 80) -> tuple[pd.DataFrame, pd.Series]:
    """Three careful workers (85% right) and four spammers who answer at random, on every item."""
    rng = np.random.default_rng(seed)
    truth = pd.Series(rng.choice(["yes", "no"], size=n_items, p=[0.4, 0.6]), index=[f"t{i:03d}" for i in range(n_items)])
    rows = []
    for item, true in truth.items():
        for worker in GOOD:
            label = true if rng.random() < 0.85 else ("no" if true == "yes" else "yes")
            rows.append({"level": "q", "item_id": item, "worker_id": worker, "label": label})
        for worker in SPAMMERS:
            rows.append({"level": "q", "item_id": item, "worker_id": worker, "label": rng.choice(["yes", "no"])})
    frame = pd.DataFrame(rows).sample(frac=1.0, random_state=seed).reset_index(drop=True)  # crowd-kit sees any order
    return frame, truth


@pytest.mark.slow  # GLAD and MACE fit in pandas loops: ~10 s each on a busy machine
@pytest.mark.parametrize("model", ["dawid_skene", "glad", "mace"])
def test_models_find_the_spammers_and_beat_the_majority(model) -> None:
    frame, truth = _crowd()
    majority = fit(frame, "majority")
    result = fit(frame, model)
    assert list(result.labels.index) == sorted(truth.index)  # aligned on the item, not crowd-kit's order
    accuracy = (result.labels.reindex(truth.index) == truth).mean()
    majority_accuracy = (majority.labels.reindex(truth.index) == truth).mean()
    assert accuracy > majority_accuracy + 0.05  # the spammers outvote the careful workers on many items
    assert min(result.competence[GOOD]) > max(result.competence[SPAMMERS])


@pytest.mark.slow
def test_fit_does_not_depend_on_row_order() -> None:
    frame, _ = _crowd(seed=1, n_items=30)
    shuffled = frame.sample(frac=1.0, random_state=7).reset_index(drop=True)
    pd.testing.assert_series_equal(fit(frame, "mace").labels, fit(shuffled, "mace").labels)


def test_compare_with_majority_counts_the_items_that_differ() -> None:
    frame, _ = _crowd(seed=2, n_items=40)
    section = compare_with_majority(frame, ["dawid_skene"])
    majority = fit(frame, "majority").labels
    for row in section["differences"]:
        other = fit(frame, row["model"]).labels
        assert row["n_differ"] == int((other != majority).sum()) and row["n_items"] == 40
        assert row["pct_differ"] == pytest.approx(row["n_differ"] / 40 * 100)
    by_worker = {r["worker_id"]: r for r in section["competence"]}
    assert set(by_worker) == set(GOOD + SPAMMERS) and all(by_worker[w]["n_labels"] == 40 for w in by_worker)
    assert {"majority", "dawid_skene"} <= set(by_worker["g1"])
    labels = aggregated_labels(frame, "dawid_skene")
    assert labels[("q", "t000")] == fit(frame, "dawid_skene").labels["t000"]


def test_unknown_model_and_one_label_only() -> None:
    frame, _ = _crowd(n_items=5)
    with pytest.raises(ValueError, match="unknown aggregation"):
        fit(frame, "majority_of_two")
    same = frame.assign(label="yes")
    for model in MODELS:
        assert set(fit(same, model).labels) == {"yes"}
