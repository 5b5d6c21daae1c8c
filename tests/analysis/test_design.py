"""Study design to a target interval width (analysis/design.py): the interval formulas against reference
implementations, and on the shared QASem dev votes a recommended design whose interval, drawn from the released
votes many times (here, independently of the module's own check), is narrower than W in at least 90% of draws."""
from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotation_tasks.analysis import design
from tests.conftest import shared_file


def test_kappa_and_alpha_match_statsmodels_and_krippendorff():
    rng = np.random.default_rng(0)
    k = rng.binomial(4, rng.beta(0.5, 0.5, size=60))
    value, se = design.fleiss_kappa(k, 4)
    assert value == pytest.approx(fleiss_kappa(np.c_[4 - k, k]))
    reliability = np.array([[1] * int(x) + [0] * (4 - int(x)) for x in k]).T  # raters x items
    alpha, alpha_se = design.kripp_alpha(k, 4)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"))
    assert 0 < se < 0.2 and 0 < alpha_se < 0.2


def test_share_supported_is_the_mean_of_per_response_shares():
    k = np.array([3, 0, 2, 1, 3])  # votes of 3: supported when 2 or more
    owner = np.array([0, 0, 1, 1, 1])
    value, se = design.share_supported(k, owner, 2, 3)
    assert value == pytest.approx((50 + 200 / 3) / 2) and se == pytest.approx(np.std([50, 200 / 3], ddof=1) / np.sqrt(2))


def test_priors_plan_before_a_pilot_and_more_precision_costs_more():
    priors = design.Priors(supported=0.65, kappa=0.7)
    wide = design.plan("kappa", 0.2, priors=priors, check_draws=300)
    narrow = design.plan("kappa", 0.1, priors=priors, check_draws=300)
    assert narrow["labels"] > wide["labels"] and narrow["simulated_coverage"] >= 0.9
    assert narrow["source"] == "priors" and narrow["cost"] == pytest.approx(narrow["hours"] * 12.0, abs=0.01)
    assert design.plan("kappa", 0.1, priors=priors, budget=1.0, check_draws=50)["within_budget"] is False


@pytest.mark.parametrize("bad, field", [({"metric": "f1"}, "metric"), ({"width": 0}, "target_ci"),
                                        ({"width": 3}, "target_ci"), ({"budget": -1}, "budget")])
def test_bad_arguments_name_themselves(bad, field):
    args = {"metric": "kappa", "width": 0.1, "budget": None, **bad}
    with pytest.raises(design.DesignError) as caught:
        design.plan(args["metric"], args["width"], priors=design.Priors(0.5, 0.5), budget=args["budget"])
    assert caught.value.field == field
    with pytest.raises(design.DesignError, match="same label"):
        design.plan("kappa", 0.1, pilot=design.Pilot(np.array([3, 3]), np.array([3, 3])))
    with pytest.raises(design.DesignError, match="needs a pilot"):
        design.plan("consistency", 10, priors=design.Priors(0.5, 0.5))


def released_votes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(items x 3 released QA votes, True = supported; response index per QA; system per response)."""
    votes, response, systems = [], [], []
    for r, line in enumerate(shared_file("qasem_consistency", "dev.jsonl").read_text(encoding="utf-8").splitlines()):
        record = json.loads(line)
        systems.append(record["model"])
        for qa in record["qas"]:
            votes.append([a == 0 for a in qa["annotations"]])
            response.append(r)
    return np.array(votes, dtype=bool), np.array(response), np.array(systems, dtype=object)


def _pilot() -> design.Pilot:
    votes, response, systems = released_votes()
    return design.Pilot(votes.sum(axis=1), np.full(len(votes), 3), response, systems)


@pytest.mark.slow  # ~10 s: the design search and 1,000 + 500 simulated studies
def test_recommended_kappa_design_holds_its_width_on_the_released_votes():
    width = 0.1
    out = design.plan("kappa", width, pilot=_pilot())
    m, n = out["annotators_per_item"], out["items"]
    assert 2 <= m <= 3 or out["labels"] < 1542 * 3  # a design the release can be drawn from, or cheaper anyway
    assert out["simulated_coverage"] >= 0.9 and out["labels"] == m * n
    # recomputed here: n QAs with replacement, m of each QA's three released votes without replacement
    votes, _response, _systems = released_votes()
    rng = np.random.default_rng(12345)
    hits = 0
    for _ in range(500):
        items = rng.integers(0, len(votes), size=n)
        order = np.argsort(rng.random((n, 3)), axis=1)[:, :m] if m <= 3 else rng.integers(0, 3, size=(n, m))
        k = np.take_along_axis(votes[items], order, axis=1).sum(axis=1)
        _value, se = design.fleiss_kappa(k, m)
        hits += 2 * design.Z * se < width
    assert hits / 500 >= 0.9
    # and one fewer item per ten does not always make it: the design is near the smallest
    smaller = design._Sampler(votes.sum(axis=1), np.full(len(votes), 3), rng=np.random.default_rng(7))
    assert design.coverage(smaller, "kappa", int(n * 0.8), m, width, 300) < 0.9


@pytest.mark.slow  # ~10 s
def test_recommended_consistency_design_covers_every_system():
    out = design.plan("consistency", 25.0, pilot=_pilot(), annotators=range(1, 4), check_draws=400)
    assert out["simulated_coverage"] >= 0.9
    assert set(out["systems"]) == {"ChatGPT", "InstructGPT", "PerplexityAI", "bart", "pegasus"}
    assert out["items_are"] == "responses per system"
