"""Scorers against the humans (issue 26 item 4): Cohen's kappa and ECE with reliability bins per group, and the
crowd-scorer disagreement queue with who was right on the adjudicated disagreements."""
from __future__ import annotations

from io import StringIO

import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation_tasks.analysis.agreement import cohen_kappa
from annotation_tasks.analysis.scorer_calibration import (
    agreement_at,
    disagreements,
    one_worker_items,
    versus_one_worker,
    who_was_right,
)
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
    one = after["versus_one_worker"]  # the fixture's QAs have three votes: judged without the experts
    assert one["judged"] <= one["disagreements"] and one["scorer_right"] + one["worker_right"] == one["judged"] > 0
    assert "scorer vs one worker" in out.getvalue()


def test_one_worker_is_judged_by_the_items_other_workers():
    Y, N = True, False
    votes = pd.DataFrame({"item_id": [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 5, 5],
                          "supported": [Y, Y, N, Y, N, N, Y, Y, Y, N, Y, N, N, N, N]})
    scores = pd.DataFrame({"item_id": [1, 2, 3, 4, 5], "score": [0.9, 0.9, 0.1, 0.9, 0.9]})
    items = one_worker_items(votes, scores)
    assert items["item"].tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 5, 5, 5]  # item 4 has two votes: no judge
    # a vote's judge is the verdict all the item's other votes share: YYN's N is judged Y, YNN's Y is judged N, ...
    assert items["adjudicated"].tolist() == [None, None, Y, N, None, None, None, None, None, Y, N, N, N]
    # the scorer says Y, Y, N, -, Y. Disagreements: item 1's N (judged Y: scorer right), item 2's two Ns (split
    # judges), item 3's three Ys (split judges), item 5's three Ns (judged N: the workers right)
    assert versus_one_worker(votes, scores) == {"disagreements": 9, "judged": 4, "scorer_right": 1, "worker_right": 3,
                                                "scorer_right_pct": 25.0}


def test_on_the_released_votes_the_majority_always_wins_and_its_opposite_never():
    """On the QASem dev votes (three per QA): a scorer that is the full majority is right on every judged
    disagreement (two agreeing workers are the majority), its opposite never; the overlap scorer lies between."""
    import numpy as np

    from annotation_tasks.scoring.training import train_embedded
    from bench.bench_adaptive import votes_of
    from bench.bench_scorers import DATA

    votes = votes_of(DATA / "qasem_consistency" / "dev.jsonl")
    n = len(votes)
    frame = pd.DataFrame({"item_id": np.repeat(np.arange(n), 3), "supported": votes.ravel()})
    majority = votes.sum(axis=1) >= 2
    rows = train_embedded.load_dev(DATA / "qasem_consistency" / "dev.jsonl")
    assert [r["label"] for r in rows] == majority.astype(int).tolist()  # the same QAs in the same order
    oracle = versus_one_worker(frame, pd.DataFrame({"item_id": np.arange(n), "score": majority.astype(float)}))
    assert oracle["judged"] > 100 and oracle["scorer_right_pct"] == 100.0
    opposite = versus_one_worker(frame, pd.DataFrame({"item_id": np.arange(n), "score": (~majority).astype(float)}))
    assert opposite["scorer_right_pct"] == 0.0


@pytest.mark.django_db
def test_the_adjudication_queue_orders_the_crowd_scorer_disagreements(qasem, client):  # noqa: F811
    """Both halves: the queue an expert works through (?scorer=) holds the items evaluate_scorer's disagreement
    queue names, in its order, unanimous items included, each with the scorer's score and verdict."""
    from annotation_tasks.models import ProjectMembership

    _score("--project", "q", "--scorer", "overlap", "--inline")
    expected = scoring.evaluate_scorer("q", "overlap")["crowd_vs_scorer"]
    got = adjudication.queue(qasem, {"scorer": "overlap", "level": "qa", "limit": 500})
    assert got["count"] == expected["disagreements"]
    top = expected["queue"]
    assert [(r["item_id"], r["scorer"]["score"]) for r in got["results"][:len(top)]] == \
        [(r["item_id"], round(r["score"], 4)) for r in top]
    for row in got["results"]:
        assert (row["scorer"]["verdict"] == "supported") == (row["scorer"]["score"] >= 0.5) != (
            row["majority"] == "supported")
    assert any(row["minority_share"] == 0 for row in got["results"])  # the plain queue leaves these out
    plain = adjudication.queue(qasem, {"level": "qa", "limit": 500})
    assert "scorer" not in plain["results"][0]
    user = get_user_model().objects.create_user("researcher", password="pw")
    ProjectMembership.objects.create(project=qasem, user=user, role=ProjectMembership.Role.RESEARCHER)
    client.force_login(user)
    url = f"/api/projects/{qasem.pk}/adjudication/queue/"
    assert client.get(url, {"scorer": "overlap", "summary": "true"}).json()["count"] == expected["disagreements"]
    bad = client.get(url, {"scorer": "nli"})
    assert bad.status_code == 400 and "scorer" in bad.content.decode() and "overlap" in bad.content.decode()
