"""The adjudication queue shows the least certain labels first: each row's posterior (Dirichlet(1) on its votes, of
the label it stands at: gold where set, else the majority) with its 95% interval (analysis.uncertainty)."""
from __future__ import annotations

import numpy as np
import pytest

from annotation_tasks.services import adjudication

pytestmark = pytest.mark.django_db


def test_the_level_table_gives_each_item_the_posterior_of_its_label() -> None:
    tally = adjudication.Tally("qa", np.array([1, 2, 3]), np.array(["", "", ""], dtype=object),
                               ("not_supported", "supported"), np.array([[1, 2], [2, 4], [0, 3]]))
    table = adjudication._level_table(0, tally, {("qa", 3, ""): "not_supported"}, {}).set_index("item_id")
    # 2-1: Beta(3, 2) mean 0.6; 4-2: Beta(5, 3) 0.625; 3-0 against a gold not_supported: Beta(1, 4) 0.2
    assert table["posterior"].tolist() == pytest.approx([0.6, 0.625, 0.2])
    assert (table["ci_low"] < table["posterior"]).all() and (table["posterior"] < table["ci_high"]).all()


def test_the_queue_orders_by_ascending_posterior(qasem_study) -> None:
    rows = adjudication.queue(qasem_study.project, {"include_agreed": "true"})["results"]
    posteriors = [r["posterior"] for r in rows]
    assert posteriors == sorted(posteriors) and len(set(posteriors)) > 1
    assert all(r["ci95"][0] <= r["posterior"] <= r["ci95"][1] for r in rows)
    disputed = [r for r in rows if r["disagreement"] > 0]
    assert rows[: len(disputed)] == disputed  # a disputed item is less certain than any unanimous one here
