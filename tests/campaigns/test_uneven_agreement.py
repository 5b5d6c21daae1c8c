"""Campaign agreement with uneven raters and numeric labels, against krippendorff / statsmodels oracles."""
from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from annotation_tasks.analysis.aggregation import item_counts
from annotation_tasks.analysis.campaigns import campaign_agreement_table, campaign_summary, fleiss_kappa_balanced


def _frame(rng: np.random.Generator, n_items: int, raters: tuple[int, int], scale: list[str]) -> pd.DataFrame:
    rows = []
    for item in range(n_items):
        truth = rng.integers(len(scale))
        for worker in rng.choice(12, size=rng.integers(raters[0], raters[1] + 1), replace=False):
            value = truth if rng.random() < 0.7 else rng.integers(len(scale))
            rows.append({"level": "q", "item_id": f"i{item}", "worker_id": f"w{worker}", "label": scale[value],
                         "dataset": "a" if item % 3 else "b"})
    return pd.DataFrame(rows)


def _reliability(frame: pd.DataFrame, numeric: bool) -> np.ndarray:
    """raters × items matrix (NaN where a rater did not label), the krippendorff package's own input."""
    values = frame["label"].astype(float) if numeric else frame["label"].map({v: i for i, v in enumerate(
        sorted(frame["label"].unique()))}).astype(float)
    table = frame.assign(value=values).pivot(index="worker_id", columns="item_id", values="value")
    return table.to_numpy(dtype=float)


def test_uneven_raters_alpha_matches_the_reliability_matrix_and_fleiss_says_why_absent() -> None:
    frame = _frame(np.random.default_rng(1), 60, (1, 5), ["1", "2", "3", "4", "5"])
    row = campaign_summary(frame, "q")
    assert row["fleiss_kappa"] is None
    assert row["fleiss_kappa_absent"].startswith("items have 2 to 5 labels")
    assert row["n_single_label_items"] == int((frame.groupby("item_id").size() == 1).sum())
    assert row["numeric_labels"] is True
    nominal = krippendorff.alpha(reliability_data=_reliability(frame, False), level_of_measurement="nominal")
    ordinal = krippendorff.alpha(reliability_data=_reliability(frame, True), level_of_measurement="ordinal")
    assert row["krippendorff_alpha"] == pytest.approx(nominal, abs=1e-9)
    assert row["krippendorff_alpha_ordinal"] == pytest.approx(ordinal, abs=1e-9)
    assert row["krippendorff_alpha_ordinal"] != pytest.approx(row["krippendorff_alpha"], abs=1e-6)


def test_ordinal_alpha_orders_numbers_as_numbers_not_text() -> None:
    """"10" sorts before "9" as text; the ordinal alpha must see 8 < 9 < 10."""
    frame = _frame(np.random.default_rng(2), 40, (2, 4), ["8", "9", "10"])
    expected = krippendorff.alpha(reliability_data=_reliability(frame, True), level_of_measurement="ordinal")
    assert campaign_summary(frame, "q")["krippendorff_alpha_ordinal"] == pytest.approx(expected, abs=1e-9)


def test_even_raters_give_statsmodels_fleiss_and_text_labels_no_ordinal_alpha() -> None:
    frame = _frame(np.random.default_rng(3), 50, (4, 4), ["no", "maybe", "yes"])
    kappa, absent = fleiss_kappa_balanced(item_counts(frame, "q").counts)
    matrix = frame.assign(code=frame["label"].astype("category").cat.codes).pivot(
        index="item_id", columns="worker_id", values="code")
    coded = np.array([row[~np.isnan(row)] for row in matrix.to_numpy(dtype=float)])
    assert absent is None and kappa == pytest.approx(sm_fleiss_kappa(aggregate_raters(coded)[0]), abs=1e-12)
    row = campaign_summary(frame, "q")
    assert row["numeric_labels"] is False and row["krippendorff_alpha_ordinal"] is None


def test_table_groups_by_any_column_and_keeps_missing_values_as_a_group() -> None:
    frame = _frame(np.random.default_rng(4), 30, (2, 3), ["a", "b"])
    frame.loc[frame["item_id"] == "i0", "dataset"] = None
    rows = campaign_agreement_table(frame, by="dataset")
    groups = [r["group"] for r in rows]
    assert groups == [None, "a", "b", None]  # overall, the sorted groups, then the missing value
    assert sum(r["n_labels"] for r in rows[1:]) == rows[0]["n_labels"]
    one = pd.DataFrame({"level": "q", "item_id": ["x", "x"], "worker_id": ["u", "v"], "label": ["s", "s"]})
    assert fleiss_kappa_balanced(item_counts(one, "q").counts) == (None, "one category only")
