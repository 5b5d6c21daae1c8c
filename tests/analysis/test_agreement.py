"""Agreement coefficients against documented examples, statsmodels / krippendorff oracles and the release."""
from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from annotation_tasks.analysis.aggregation import item_counts
from annotation_tasks.analysis.agreement import (
    agreement_summary,
    agreement_table,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    percent_unanimous,
    worker_agreement,
)

# Fleiss (1971) worked example as given on Wikipedia ("Fleiss' kappa", 14 raters, 10 subjects): kappa 0.210.
WIKIPEDIA_TABLE = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)

# krippendorff.alpha's docstring example (value_counts form); nominal alpha 0.691358.
KRIPPENDORFF_RELIABILITY = [
    [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
    [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
]


def _labels_from_reliability(matrix: list[list[float]]) -> pd.DataFrame:
    rows = [
        {"level": "x", "item_id": j, "worker_id": i, "label": str(int(v))}
        for i, raters in enumerate(matrix)
        for j, v in enumerate(raters)
        if not np.isnan(v)
    ]
    return pd.DataFrame(rows)


def test_fleiss_wikipedia_example() -> None:
    assert round(fleiss_kappa(WIKIPEDIA_TABLE), 3) == 0.210


def test_krippendorff_docstring_example_from_a_labels_frame() -> None:
    ic = item_counts(_labels_from_reliability(KRIPPENDORFF_RELIABILITY))
    assert round(krippendorff_alpha(ic.counts), 6) == 0.691358


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_statsmodels_and_krippendorff_reliability_matrix(seed: int) -> None:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, size=200)
    ratings = np.where(rng.random((200, 4)) < 0.7, truth[:, None], rng.integers(0, 3, size=(200, 4)))
    frame = pd.DataFrame(
        [{"level": "x", "item_id": i, "worker_id": w, "label": f"c{v}"} for i in range(200) for w, v in enumerate(ratings[i])]
    )
    ic = item_counts(frame)
    table, _ = aggregate_raters(ratings)
    assert fleiss_kappa(ic.counts) == pytest.approx(sm_fleiss_kappa(table, method="fleiss"), abs=1e-12)
    expected_alpha = krippendorff.alpha(reliability_data=ratings.T.astype(float), level_of_measurement="nominal")
    assert krippendorff_alpha(ic.counts) == pytest.approx(expected_alpha, abs=1e-12)


def test_alpha_with_missing_labels_matches_reliability_matrix() -> None:
    rng = np.random.default_rng(7)
    matrix = rng.integers(0, 2, size=(5, 60)).astype(float)
    matrix[rng.random(matrix.shape) < 0.4] = np.nan
    ic = item_counts(_labels_from_reliability(matrix.tolist()))
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert krippendorff_alpha(ic.counts) == pytest.approx(expected, abs=1e-12)


def test_undefined_cases_are_none_not_errors() -> None:
    one_category = np.array([[0, 3], [0, 3]])
    assert fleiss_kappa(one_category) is None
    assert krippendorff_alpha(one_category) is None
    assert percent_unanimous(one_category) == 100.0
    single_labels = np.array([[1, 0], [0, 1]])
    assert fleiss_kappa(single_labels) is None
    assert krippendorff_alpha(single_labels) is None
    assert percent_unanimous(single_labels) is None
    summary = agreement_summary(pd.DataFrame(columns=["level", "item_id", "worker_id", "label"]))
    assert summary["fleiss_kappa"] is None and summary["n_items"] == 0


def test_percent_unanimous_by_hand() -> None:
    # 2 of the 3 items with >= 2 labels are unanimous; the single-label item does not count.
    assert percent_unanimous(np.array([[3, 0], [2, 1], [0, 2], [1, 0]])) == pytest.approx(200 / 3)


def test_worker_agreement_with_the_others_majority() -> None:
    frame = pd.DataFrame(
        [
            ("qa", 1, "A", "supported"),
            ("qa", 1, "B", "supported"),
            ("qa", 1, "C", "not_supported"),
            ("qa", 2, "A", "supported"),
            ("qa", 2, "B", "supported"),
            ("qa", 2, "C", "supported"),
            ("qa", 3, "A", "supported"),
        ],
        columns=["level", "item_id", "worker_id", "label"],
    )
    table = worker_agreement(frame).set_index("worker_id")
    # Item 1: A's and B's others tie (1-1) -> not compared; C's others say supported -> C disagrees.
    # Item 3: A alone -> not compared.
    assert table.loc["A", "n_labels"] == 3
    assert table.loc["A", "n_compared"] == 1 and table.loc["A", "agreement"] == 1.0
    assert table.loc["C", "n_compared"] == 2 and table.loc["C", "agreement"] == 0.5


def test_release_dev_figures() -> None:
    from tests.analysis.release import qasem_frames

    labels, _, _ = qasem_frames()
    rows = {(r["level"], r["group"]): r for r in agreement_table(labels, by="dataset")}
    assert round(rows[("qa", None)]["fleiss_kappa"], 3) == 0.739
    assert round(rows[("span", None)]["fleiss_kappa"], 3) == 0.782
    assert rows[("qa", None)]["n_items"] == 1542
    published = {"cliff": (0.741, 0.771), "factscore": (0.822, 0.845), "verifiability": (0.627, 0.661)}
    for dataset, (qa_kappa, span_kappa) in published.items():
        assert round(rows[("qa", dataset)]["fleiss_kappa"], 3) == qa_kappa
        assert round(rows[("span", dataset)]["fleiss_kappa"], 3) == span_kappa


def test_fleiss_with_varying_raters_by_hand() -> None:
    # P_i = 1, 0, 1 (n_i = 2, 2, 3) -> mean 2/3; p = (6/7, 1/7) -> Pe = 37/49; kappa = -13/36.
    assert fleiss_kappa(np.array([[2, 0], [1, 1], [3, 0]])) == pytest.approx(-13 / 36)


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_equals_sklearn_on_random_labels(seed: int) -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(seed)
    labels = ["S", "NS", "IR"][: 2 + seed % 2]
    n = int(rng.integers(5, 400))
    first = rng.choice(labels, n, p=None)
    agree = rng.random(n) < rng.uniform(0.3, 0.95)
    second = np.where(agree, first, rng.choice(labels, n))
    assert cohen_kappa(first, second, labels=labels) == pytest.approx(
        cohen_kappa_score(first, second, labels=labels), abs=1e-12)
    assert cohen_kappa(first, second) == pytest.approx(cohen_kappa_score(first, second), abs=1e-12)
    # a label outside `labels` leaves its pair out, as scikit-learn does
    second[0] = "other"
    assert cohen_kappa(first, second, labels=labels) == pytest.approx(
        cohen_kappa_score(first, second, labels=labels), abs=1e-12)


def test_cohen_kappa_by_hand_and_undefined() -> None:
    # 10 items: 7 agree; rater 1 says yes 6 times, rater 2 five times: pe = (6*5 + 4*5) / 100 = 0.5, k = 0.4
    first = ["y"] * 6 + ["n"] * 4
    second = ["y", "y", "y", "y", "n", "n", "n", "n", "y", "n"]
    assert sum(a == b for a, b in zip(first, second, strict=True)) == 7
    assert cohen_kappa(first, second) == pytest.approx(0.4)
    assert cohen_kappa(["y", "y"], ["y", "y"]) is None  # one label only: pe = 1
    assert cohen_kappa([], []) is None
    with pytest.raises(ValueError):
        cohen_kappa(["y"], ["y", "n"])
