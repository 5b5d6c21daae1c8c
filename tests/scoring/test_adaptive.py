"""The adaptive-assignment simulation on votes built here, where every outcome can be counted by hand."""
from __future__ import annotations

import numpy as np
import pytest

from annotation_tasks.analysis.adaptive import cheapest_at, fixed_budget, full_majority, simulate, sweep

# Four QAs, three votes each (True = supported).
VOTES = np.array([
    [True, True, True],     # unanimous supported
    [False, False, False],  # unanimous not supported
    [True, True, False],    # 2 of 3 supported
    [False, False, True],   # 2 of 3 not supported
])


def test_full_majority_and_fixed_budgets():
    assert full_majority(VOTES).tolist() == [True, False, True, False]
    assert fixed_budget(VOTES, 3)["agreement_pct"] == 100.0
    one = fixed_budget(VOTES, 1, permutations=200)
    assert one["labels"] == 4 and one["agreement_pct"] == pytest.approx((1 + 1 + 2 / 3 + 2 / 3) / 4 * 100, abs=2.5)


def test_never_trusting_the_score_is_two_plus_one_and_exact():
    result = simulate(VOTES, np.array([0.5, 0.5, 0.5, 0.5]), margin=0.5, permutations=50)
    assert result["agreement_pct"] == 100.0
    # unanimous items stop after 2 labels; a 2-1 item needs a third unless its first two agree (1 order in 3).
    assert result["labels"] == pytest.approx(2 + 2 + 2 * (3 - 1 / 3), abs=0.4)


def test_a_confident_agreeing_score_stops_after_one_label():
    scores = np.array([0.99, 0.01, 0.5, 0.5])
    result = simulate(VOTES, scores, margin=0.3, permutations=1)
    full = simulate(VOTES, scores, margin=0.5, permutations=1, seed=0)
    assert result["labels"] == full["labels"] - 2  # the two unanimous items save one label each
    assert result["agreement_pct"] == 100.0


def test_a_confident_wrong_score_can_cost_agreement_but_never_labels_beyond_the_cap():
    wrong = np.array([0.5, 0.5, 0.01, 0.99])  # the 2-1 items get a confident score for the minority label
    results = sweep(VOTES, wrong, [0.0, 0.5], permutations=100)
    trusting, careful = results
    assert trusting["agreement_pct"] < careful["agreement_pct"] == 100.0
    assert trusting["labels"] <= careful["labels"] <= VOTES.size
    assert cheapest_at(results, 100.0)["margin"] == 0.5
    assert cheapest_at(results, 101.0) is None


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="one per item"):
        simulate(VOTES, np.array([0.5]))
    with pytest.raises(ValueError, match="first must lie"):
        simulate(VOTES, np.full(4, 0.5), first=4)


# -- the posterior policy (routing by information) ------------------------------------------------------------

from annotation_tasks.analysis.adaptive import PosteriorModel, fit_posteriors, route, simulate_posterior  # noqa: E402

MODEL = PosteriorModel(a=1.0, b=0.0, supported=(8.0, 0.6), unsupported=(0.4, 3.0), cap=3)


def test_two_agreeing_labels_fix_the_majority_whatever_the_prior():
    prior = np.array([0.01, 0.99, 0.5])
    assert MODEL.final_majority(np.array([2, 2, 2]), 2, prior) == pytest.approx([1, 1, 1])
    assert MODEL.final_majority(np.array([0, 0, 0]), 2, prior) == pytest.approx([0, 0, 0])
    assert MODEL.final_majority(np.array([2, 1, 0]), 3, prior) == pytest.approx([1, 0, 0])  # all drawn: tie rule


def test_the_prior_moves_the_posterior_after_one_label():
    one_yes = MODEL.final_majority(np.array([1, 1, 1]), 1, np.array([0.05, 0.5, 0.95]))
    assert one_yes[0] < one_yes[1] < one_yes[2] and one_yes[2] > 0.97
    assert MODEL.prior(np.array([0.5])) == pytest.approx([0.5])


def test_routing_sends_labels_to_the_most_uncertain_open_items():
    k, j = np.array([0, 0, 1, 2, 1]), np.array([0, 0, 1, 2, 2])
    prior = np.array([0.5, 0.99, 0.5, 0.5, 0.5])
    gain = MODEL.information_gain(k, j, prior)
    assert gain[0] > gain[1] and gain[3] == pytest.approx(0, abs=1e-9)  # 2-0: fixed, nothing to learn
    picked = route(k, j, prior, MODEL, 0.97, 2)
    assert 3 not in picked and picked[0] in (0, 4) and len(picked) == 2
    assert gain[4] >= gain[2]  # a 1-1 split: the next label decides


def test_fitted_policy_on_simulated_crowds_saves_labels_at_full_agreement():
    rng = np.random.default_rng(0)
    truth = rng.random(600) < 0.6
    votes = np.where(rng.random((600, 3)) < 0.95, truth[:, None], ~truth[:, None])
    scores = np.clip(np.where(truth, 0.8, 0.2) + rng.normal(0, 0.1, 600), 0.01, 0.99)
    models = fit_posteriors(votes, scores)
    result = simulate_posterior(votes, scores, models, 0.97, permutations=5)
    assert result["saved_pct"] > 50 and result["agreement_pct"] > 98
    with pytest.raises(ValueError, match="no posterior model"):
        simulate_posterior(votes, scores, models, 0.97, groups=np.full(600, "x"))
