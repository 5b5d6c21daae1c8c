"""Majority labels and their tie rule, on hand-built frames."""
from __future__ import annotations

import pandas as pd
import pytest

from annotation_tasks.analysis.aggregation import item_counts, majority_labels


def _frame(rows: list[tuple[str, int, int, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["level", "item_id", "worker_id", "label"])


def test_majority_two_to_one_and_votes_in_worker_order() -> None:
    labels = _frame(
        [
            ("qa", 7, 3, "supported"),
            ("qa", 7, 1, "not_supported"),
            ("qa", 7, 2, "supported"),
            ("span", 5, 2, "covered"),
            ("span", 5, 1, "covered"),
            ("span", 5, 3, "covered"),
        ]
    )
    out = majority_labels(labels).set_index(["level", "item_id"])
    assert out.loc[("qa", 7), "majority"] == "supported"
    assert out.loc[("qa", 7), "votes"] == ["not_supported", "supported", "supported"]
    assert out.loc[("qa", 7), "n_labels"] == 3
    assert out.loc[("span", 5), "majority"] == "covered"
    assert not out["tie"].any()


def test_tie_goes_to_the_error_label_or_none() -> None:
    labels = _frame(
        [
            ("qa", 1, 1, "supported"),
            ("qa", 1, 2, "not_supported"),
            ("fact", 2, 1, "S"),
            ("fact", 2, 2, "IR"),
            ("fact", 3, 1, "S"),
            ("fact", 3, 2, "NS"),
            ("fact", 3, 3, "IR"),
        ]
    )
    out = majority_labels(labels).set_index(["level", "item_id"])
    assert out.loc[("qa", 1), "majority"] == "not_supported"
    assert out.loc[("fact", 2), "majority"] == "IR"
    assert out.loc[("fact", 3), "majority"] == "NS"
    assert out["tie"].all()
    none = majority_labels(labels, tie="none")
    assert none["majority"].isna().all()


def test_item_counts_keep_the_full_vocabulary() -> None:
    ic = item_counts(_frame([("span", 1, 1, "covered"), ("span", 1, 2, "covered")]))
    assert ic.categories == ("not_covered", "covered")
    assert ic.counts.tolist() == [[0, 2]]


def test_item_counts_rejects_mixed_levels() -> None:
    with pytest.raises(ValueError):
        item_counts(_frame([("span", 1, 1, "covered"), ("qa", 1, 2, "supported")]))


def test_categorical_and_object_labels_count_the_same() -> None:
    frame = _frame([("fact", 1, 1, "S"), ("fact", 1, 2, "IR"), ("fact", 2, 1, "NS"), ("fact", 2, 2, "NS")])
    categorical = frame.assign(label=pd.Categorical(frame["label"], categories=["S", "NS", "IR", "other"]))
    a, b = item_counts(frame), item_counts(categorical)
    assert a.categories == b.categories == ("NS", "IR", "S")
    assert (a.counts == b.counts).all()
    assert a.counts.tolist() == [[0, 1, 1], [2, 0, 0]]


def test_missing_labels_are_rejected() -> None:
    frame = _frame([("qa", 1, 1, "supported"), ("qa", 1, 2, None)])
    with pytest.raises(ValueError):
        item_counts(frame)
