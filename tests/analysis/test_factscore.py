"""Human FActScore: the paper's rule on a hand case and on the released files."""
from __future__ import annotations

import pandas as pd
import pytest

from annotation_tasks.analysis.factscore import human_factscore


def test_paper_rule_by_hand() -> None:
    responses = pd.DataFrame(
        {"response_id": ["r1", "r2", "r3"], "system": ["X"] * 3, "abstained": [False, False, True]}
    )
    rows = [
        # r1, sentence 0 relevant: human facts S, IR (IR counts as not supported); its model fact is ignored.
        ("r1", 1, "model", 0, True, None),
        ("r1", 2, "human", 0, True, "S"),
        ("r1", 3, "human", 0, True, "IR"),
        # r1, sentence 1 irrelevant: two model facts, both count as not supported.
        ("r1", 4, "model", 1, False, None),
        ("r1", 5, "model", 1, False, None),
        # r2: one supported human fact.
        ("r2", 6, "human", 0, True, "S"),
    ]
    facts = pd.DataFrame(
        rows, columns=["response_id", "fact_id", "kind", "sentence_index", "sentence_relevant", "label"]
    ).assign(worker_id="expert")
    (row,) = human_factscore(responses, facts)
    assert row["factscore"] == pytest.approx((1 / 4 + 1) / 2 * 100)
    assert row["percent_responding"] == pytest.approx(200 / 3)
    assert row["facts_per_response"] == pytest.approx(2.5)


def test_majority_of_several_labels_and_model_fallback() -> None:
    responses = pd.DataFrame({"response_id": ["r1"], "system": ["X"], "abstained": [False]})
    facts = pd.DataFrame(
        [
            # crowd labels on the splitter's facts (no human facts in the sentence): majority per fact
            ("r1", 1, "model", 0, True, "w1", "S"),
            ("r1", 1, "model", 0, True, "w2", "S"),
            ("r1", 1, "model", 0, True, "w3", "NS"),
            ("r1", 2, "model", 0, True, "w1", "S"),
            ("r1", 2, "model", 0, True, "w2", "NS"),  # tie -> NS
        ],
        columns=["response_id", "fact_id", "kind", "sentence_index", "sentence_relevant", "worker_id", "label"],
    )
    (row,) = human_factscore(responses, facts)
    assert row["factscore"] == pytest.approx(50.0)


def test_published_factscore() -> None:
    from tests.analysis.release import assert_paper_factscore, factscore_frames

    assert_paper_factscore({r["system"]: r for r in human_factscore(*factscore_frames())})
