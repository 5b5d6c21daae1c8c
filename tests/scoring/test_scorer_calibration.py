"""Scorers against the humans (issue 26 item 4): Cohen's kappa and ECE with reliability bins per group, and the
crowd-scorer disagreement queue with who was right on the adjudicated disagreements."""
from __future__ import annotations

from io import StringIO

import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation_tasks.analysis.agreement import cohen_kappa
from annotation_tasks.analysis.scorer_calibration import agreement_at, disagreements, who_was_right
from annotation_tasks.services import adjudication, scoring
from tests.scoring.test_scoring_service import _score, qasem  # noqa: F401 - the fixture


def test_kappa_ece_and_bins_by_hand():
    y = [True, True, False, False]
    s = [0.9, 0.4, 0.3, 0.8]
    out = agreement_at(y, s)
    assert out["kappa"] == pytest.approx(cohen_kappa(y, [True, False, False, True]))  # 0.0: half right, balanced
    assert out["items"] == 4 and len(out["bins"]) == 4
    assert out["ece"] == pytest.approx((0.1 + 0.6 + 0.3 + 0.8) / 4)  # one item per bin: |score - verdict|


def test_the_queue_puts_confident_disagreements_first_and_counts_who_was_right():
    items = pd.DataFrame({
        "item_id": [1, 2, 3, 4, 5], "score": [0.05, 0.45, 0.95, 0.7, 0.2],
        "crowd": [True, True, False, True, False], "supported": [True] * 5,
        "adjudicated": [False, True, None, None, None],
    })
    queue = disagreements(items)
    assert queue["item_id"].tolist() == [1, 3, 2]  # |score - crowd|: 0.95, 0.95 (id order), 0.55
    right = who_was_right(items)
    assert right == {"disagreements": 3, "adjudicated": 2, "crowd_right": 1, "scorer_right": 1,
                     "scorer_right_pct": 50.0}


@pytest.mark.django_db
def test_evaluate_scorer_reports_kappa_and_the_adjudicated_disagreements(qasem):  # noqa: F811
    _score("--project", "q", "--scorer", "overlap", "--inline")
    first = scoring.evaluate_scorer("q", "overlap", by="dataset")
    assert set(first["human_agreement"]["by_group"]) == {"cliff", "factscore", "verifiability"}
    assert -1 <= first["human_agreement"]["all"]["kappa"] <= 1 and first["human_agreement"]["all"]["ece"] >= 0
    versus = first["crowd_vs_scorer"]
    assert versus["disagreements"] > 2 and versus["adjudicated"] == 0 and len(versus["queue"]) > 2
    disagreement = [r["disagreement"] for r in versus["queue"]]
    assert disagreement == sorted(disagreement, reverse=True)
    user = get_user_model().objects.create_user("expert", password="pw")
    top, second = versus["queue"][:2]
    for row, side in ((top, "scorer"), (second, "crowd")):
        scorer_label = "supported" if row["score"] >= 0.5 else "not_supported"
        label = scorer_label if side == "scorer" else row["crowd"]
        adjudication.decide(qasem, {"level": "qa", "item_id": row["item_id"], "label": label, "reason": "checked"},
                            user)
    after = scoring.evaluate_scorer("q", "overlap")["crowd_vs_scorer"]
    assert (after["adjudicated"], after["crowd_right"], after["scorer_right"]) == (2, 1, 1)
    out = StringIO()
    call_command("evaluate_scorer", "--project", "q", "--scorer", "overlap", stdout=out)
    assert "Cohen's kappa" in out.getvalue() and "crowd right 1, scorer right 1" in out.getvalue()
