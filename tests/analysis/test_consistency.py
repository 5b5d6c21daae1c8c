"""QASem consistency verdicts, scores and the bootstrap, on hand-built frames."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis.consistency import bootstrap_mean_ci, qa_verdicts, system_consistency


def _labels(rows: list[tuple[str, int, list[str]]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"level": level, "item_id": item, "worker_id": k, "label": label}
            for level, item, votes in rows
            for k, label in enumerate(votes)
        ]
    )


S, NS, C, NC = "supported", "not_supported", "covered", "not_covered"


@pytest.fixture
def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    # Response 1 (system A): predicate p1 has QAs 1, 2; predicate p2 has QA 3. Response 2 (system A): QA 4.
    # Response 3 (system B): QA 5, with no labels at all (unjudged).
    qas = pd.DataFrame(
        {
            "item_id": [1, 2, 3, 4, 5],
            "response_id": [1, 1, 1, 2, 3],
            "predicate_id": ["p1", "p1", "p2", "p4", "p5"],
            "system": ["A", "A", "A", "A", "B"],
        }
    )
    labels = _labels(
        [
            ("qa", 1, [S, S, NS]),  # supported, span covered
            ("qa", 2, [S, S, S]),  # supported by step 2 but its span is not covered -> extrinsic
            ("qa", 3, [NS, NS, S]),  # span covered, QA not supported -> intrinsic
            ("qa", 4, [S, NS, S]),  # no span at all: counts as covered -> supported
            ("span", 10, [C, C, NC]),
            ("span", 11, [NC, NC, C]),
            ("span", 12, [C, C, C]),
        ]
    )
    qa_spans = pd.DataFrame({"qa_id": [1, 2, 3], "span_id": [10, 11, 12]})
    return labels, qas, qa_spans


def test_verdicts_apply_the_two_step_rule(frames) -> None:
    verdicts = qa_verdicts(*frames).set_index("item_id")
    assert list(verdicts.index) == [1, 2, 3, 4]  # QA 5 unjudged
    assert verdicts["supported"].to_dict() == {1: True, 2: False, 3: False, 4: True}
    assert verdicts["error"].to_dict() == {1: None, 2: "extrinsic", 3: "intrinsic", 4: None}


def test_system_scores_by_hand(frames) -> None:
    (row,) = system_consistency(*frames, n_boot=200)
    assert row["system"] == "A"
    # response 1: 1 of 3 supported; response 2: 1 of 1 -> mean (1/3 + 1) / 2
    assert row["consistency"] == pytest.approx((1 / 3 + 1) / 2 * 100)
    assert row["n_responses"] == 2 and row["n_qas"] == 4
    # predicates p1 (supported + not) mixed; p2, p4 not mixed
    assert row["n_predicates"] == 3 and row["mixed_predicates_pct"] == pytest.approx(100 / 3)
    assert (row["n_extrinsic"], row["n_intrinsic"], row["extrinsic_pct_of_errors"]) == (1, 1, 50.0)
    assert row["ci95"][0] <= row["consistency"] <= row["ci95"][1]


def test_bootstrap_is_seeded_and_covers_the_mean() -> None:
    values = np.random.default_rng(3).random(300)
    first = bootstrap_mean_ci(values, n_boot=1000, seed=5)
    assert first == bootstrap_mean_ci(values, n_boot=1000, seed=5)
    assert first != bootstrap_mean_ci(values, n_boot=1000, seed=6)
    low, high = first
    # normal-theory 95% half-width for comparison: 1.96 * sd / sqrt(n)
    half = 1.96 * values.std(ddof=1) / np.sqrt(len(values))
    assert low < values.mean() < high
    assert (high - low) / 2 == pytest.approx(half, rel=0.15)
    assert bootstrap_mean_ci(np.array([])) is None
    assert bootstrap_mean_ci(np.array([0.4])) == (0.4, 0.4)
