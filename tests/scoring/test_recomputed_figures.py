"""Figures the docs quote, recomputed from the shared dev data with the shipped code and models (never read back from
a stored file): a broken scorer, or replay fails here (the atomic-fact F1: tests/parser/test_facts_recomputed.py).

Floors sit a little below today's figures (docs/scoring.md, parser/README.md), so noise in a retrain passes but a
model whose weights were mostly zeroed (dev BAcc 50) does not.
"""
from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS, EmbeddedScorer
from annotation_tasks.scoring.training import train_embedded
from tests.conftest import REPO, shared_file

# MiniCheck 770M, QASemConsistency Table 4 (BAcc, AUC): the shipped model must stay above it in sample on dev.
MINICHECK = {"cliff": (70.4, 80.8), "factscore": (78.0, 87.3), "verifiability": (76.3, 83.4)}
COEFFICIENTS: Path = DEFAULT_COEFFICIENTS  # a test of this test points it at a damaged copy


@cache
def dev_rows() -> list[dict[str, Any]]:
    return train_embedded.load_dev(shared_file("qasem_consistency", "dev.jsonl"))


def bench(name: str) -> ModuleType:
    """A bench/ script as a module: the test recomputes exactly what the script prints."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def oof_scores() -> np.ndarray:
    """bench_adaptive's out-of-fold embedded scores of dev (five refits: computed once for the replay tests)."""
    return bench("bench_adaptive").out_of_fold_embedded(dev_rows())


def embedded_dev_figures(coefficients: Path) -> dict[str, dict[str, float]]:
    rows = dev_rows()
    scores = EmbeddedScorer(coefficients).score_batch([(r["reference"], r["claim"]) for r in rows])
    p = np.array([s.value for s in scores])
    y = np.array([r["label"] for r in rows])
    return train_embedded.per_dataset(y, p, np.array([r["dataset"] for r in rows]))


def test_the_shipped_embedded_model_scores_dev_above_minicheck_and_a_floor():
    figures = embedded_dev_figures(COEFFICIENTS)
    assert figures["all"]["items"] == 1542
    assert figures["all"]["bacc"] >= 78.0 and figures["all"]["auc"] >= 87.0, figures["all"]
    for dataset, (bacc, auc) in MINICHECK.items():
        assert figures[dataset]["bacc"] > bacc and figures[dataset]["auc"] > auc, (dataset, figures[dataset])


def test_a_model_with_most_weights_zeroed_fails_the_floor(tmp_path):
    """The guard above guards: the same check on a damaged copy of the shipped file fails."""
    import json

    model = json.loads(DEFAULT_COEFFICIENTS.read_text())
    for spec in model["heads"].values():
        spec["coef"] = [c if i == 0 else 0.0 for i, c in enumerate(spec["coef"])]
    damaged = tmp_path / "zeroed.json"
    damaged.write_text(json.dumps(model))
    figures = embedded_dev_figures(damaged)
    assert figures["all"]["bacc"] < 78.0 or figures["all"]["auc"] < 87.0


@pytest.mark.slow  # ~5 s: features of 1,542 QAs, five refits, 20 vote orders per policy
def test_the_adaptive_replay_keeps_its_figures():
    """bench/bench_adaptive.py's score-based policy (out-of-fold embedded scores, margin 0.25): about half of the
    labels saved at >= 99% agreement with the full majority; two-plus-one exact."""
    from annotation_tasks.analysis.adaptive import simulate

    module = bench("bench_adaptive")
    path = shared_file("qasem_consistency", "dev.jsonl")
    votes = module.votes_of(path)
    scores = oof_scores()
    assert votes.shape == (1542, 3)
    two_plus_one = simulate(votes, np.full(len(votes), 0.5), margin=0.5)
    assert two_plus_one["agreement_pct"] == 100.0 and 28.0 <= two_plus_one["saved_pct"] <= 31.0
    scored = simulate(votes, scores, margin=0.25)
    assert scored["saved_pct"] >= 47.0 and scored["agreement_pct"] >= 99.0, scored


@pytest.mark.slow  # ~10 s: the models' EM and 20 vote orders per threshold
def test_the_posterior_policy_beats_the_margin_rule_at_99_percent():
    """bench/bench_adaptive.py's posterior policy (one model per dataset fitted on dev, threshold 0.97 chosen there):
    more labels saved than the margin rule's 49.3% at >= 99% agreement with the full majority."""
    from annotation_tasks.analysis.adaptive import fit_posteriors, simulate_posterior

    module = bench("bench_adaptive")
    path = shared_file("qasem_consistency", "dev.jsonl")
    votes, datasets = module.votes_of(path), module.datasets_of(path)
    scores = oof_scores()
    models = fit_posteriors(votes, scores, datasets)
    result = simulate_posterior(votes, scores, models, 0.97, groups=datasets)
    assert result["agreement_pct"] >= 99.0 and result["saved_pct"] >= 50.5, result


@pytest.mark.slow  # ~15 s: one EM fit and 20 vote orders per item and per unit
def test_the_shipped_routing_posterior_is_the_dev_fit_and_keeps_its_replay_figures():
    """Live routing's model (analysis/routing_posterior.json, pooled) is what fitting dev gives, and replayed on dev
    at its shipped threshold it keeps >= 99% agreement with the full majority: about half of the QA labels saved
    per item, and at least a seventh per unit (a live unit is given out again unless all its QAs are confident)."""
    from annotation_tasks.analysis.adaptive import fit_posterior, shipped_models

    module = bench("bench_adaptive")
    path = shared_file("qasem_consistency", "dev.jsonl")
    votes, scores = module.votes_of(path), oof_scores()
    model, threshold = shipped_models()["pooled"]
    refit = fit_posterior(votes, scores)
    assert np.allclose([refit.a, refit.b, *refit.supported, *refit.unsupported],
                       [model.a, model.b, *model.supported, *model.unsupported], rtol=0.05), (refit, model)
    live = module.live_routing(votes, scores, module.units_of(path))
    assert live["threshold"] == threshold
    assert live["per_item"]["agreement_pct"] >= 99.0 and live["per_item"]["saved_pct"] >= 48.5, live
    assert live["per_unit"]["agreement_pct"] >= 99.0 and live["per_unit"]["saved_pct"] >= 14.0, live


@pytest.mark.slow  # ~10 s: nested CV by source (5 outer x 4 inner logistic fits per first-label value)
def test_calibrated_first_label_stopping_keeps_its_held_out_figures():
    """bench/bench_adaptive.py --calibrated (issue 26 item 3): first-label stopping with the score calibrated per
    dataset and asymmetric thresholds chosen on the training sources only, replayed on held-out sources. Its held-out
    figure at the 99% target (50.7% saved at 99.07%) stays near the posterior's, and the 2-1 vs unanimous AUC that
    explains why 55% is out of reach stays low; a broken score (constant) loses the savings."""
    module = bench("bench_adaptive")
    path = shared_file("qasem_consistency", "dev.jsonl")
    votes, datasets = module.votes_of(path), module.datasets_of(path)
    sources = module.structure_of(path)["sources"]
    x = module._prior_features(oof_scores(), datasets)
    held_out = module.calibrated_policy(votes, x, sources, 99.0)
    assert held_out["agreement_pct"] >= 98.9 and 49.5 <= held_out["saved_pct"] < 55.0, held_out
    assert module.split_auc(votes, x, sources) < 0.7
    broken = module.calibrated_policy(votes, module._prior_features(np.full(len(votes), 0.5), datasets), sources, 99.0)
    assert broken["saved_pct"] < 45.0, broken
