"""Adaptive number of assignments, simulated on released votes: ask more workers only where it can matter.

Humans where the model is unsure, and never the model's answer shown to a worker: the score only decides
whether an item needs another label. Per item, labels are drawn one at a time in the workers' order and the
item stops as soon as
- the labels so far already fix the majority of the full `cap` labels (two of three agree), or
- at least `first` labels agree with each other AND with the score (score >= 0.5 means supported) AND the
  score is confident, |score - 0.5| >= margin;
otherwise it gets the next label, up to `cap`. The verdict is the majority of the labels drawn (the analysis's
tie rule: a tie is not supported). margin >= 0.5 never trusts the score: that is the classic "two, and a third
on disagreement" scheme, which reproduces the full majority exactly; smaller margins stop more items after one
label, trading agreement for labels.

The full majority is that of all `cap` released votes. The release's vote positions are anonymous, so each
simulation runs over `permutations` seeded shuffles of every item's votes and reports the mean.
Input: votes, an (items x cap) boolean array (True = supported); scores, one P(supported) per item.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


def full_majority(votes: np.ndarray) -> np.ndarray:
    """Majority of every item's votes; a tie is not supported (the analysis's tie rule)."""
    return votes.sum(axis=1) * 2 > votes.shape[1]


def _run(votes: np.ndarray, scores: np.ndarray, first: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """(labels drawn per item, verdict per item) for votes already in drawing order."""
    n, cap = votes.shape
    predicted = scores >= 0.5
    confident = np.abs(scores - 0.5) >= margin if margin < 0.5 else np.zeros(n, dtype=bool)
    drawn = np.zeros(n, dtype=np.int64)
    verdict = np.zeros(n, dtype=bool)
    active = np.ones(n, dtype=bool)
    for k in range(1, cap + 1):
        drawn[active] = k
        seen = votes[:, :k]
        yes = seen.sum(axis=1)
        fixed = (yes * 2 > cap) | ((k - yes) * 2 >= cap)  # no later label can change the full majority
        unanimous = (yes == k) | (yes == 0)
        trusted = (k >= first) & unanimous & (seen[:, 0] == predicted) & confident
        stop = active & (fixed | trusted | (k == cap))
        verdict[stop] = yes[stop] * 2 > k
        active &= ~stop
        if not active.any():
            break
    return drawn, verdict


def simulate(votes: np.ndarray, scores: np.ndarray, *, first: int = 1, margin: float = 0.2, permutations: int = 20,
             seed: int = 0) -> dict[str, Any]:
    """Labels used and agreement with the full majority of one policy, averaged over vote orders."""
    votes = np.asarray(votes, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    if votes.ndim != 2 or len(votes) != len(scores):
        raise ValueError("votes must be items x cap and scores one per item")
    n, cap = votes.shape
    if not 1 <= first <= cap:
        raise ValueError(f"first must lie in 1..{cap}")
    truth = full_majority(votes)
    rng = np.random.default_rng(seed)
    labels, agreement = [], []
    for _ in range(max(permutations, 1)):
        order = np.argsort(rng.random(votes.shape), axis=1)
        drawn, verdict = _run(np.take_along_axis(votes, order, axis=1), scores, first, margin)
        labels.append(drawn.sum())
        agreement.append((verdict == truth).mean())
    used = float(np.mean(labels))
    return {
        "items": int(n),
        "cap": int(cap),
        "first": int(first),
        "margin": float(margin),
        "labels": used,
        "labels_per_item": used / n if n else None,
        "saved_pct": (1 - used / (n * cap)) * 100.0 if n else None,
        "agreement_pct": float(np.mean(agreement) * 100.0),
    }


def fixed_budget(votes: np.ndarray, k: int, permutations: int = 20, seed: int = 0) -> dict[str, Any]:
    """The non-adaptive baseline: k labels for every item (majority of those k, tie = not supported)."""
    votes = np.asarray(votes, dtype=bool)
    n, cap = votes.shape
    truth = full_majority(votes)
    rng = np.random.default_rng(seed)
    agreement = []
    for _ in range(max(permutations, 1)):
        order = np.argsort(rng.random(votes.shape), axis=1)
        seen = np.take_along_axis(votes, order, axis=1)[:, :k]
        agreement.append(((seen.sum(axis=1) * 2 > k) == truth).mean())
    return {"items": int(n), "k": int(k), "labels": float(n * k), "saved_pct": (1 - k / cap) * 100.0,
            "agreement_pct": float(np.mean(agreement) * 100.0)}


def sweep(votes: np.ndarray, scores: np.ndarray, margins: Iterable[float], **options: Any) -> list[dict[str, Any]]:
    """simulate() for each margin (0.5 = the score never trusted)."""
    return [simulate(votes, scores, margin=m, **options) for m in margins]


def cheapest_at(results: list[dict[str, Any]], agreement_pct: float) -> dict[str, Any] | None:
    """The policy using the fewest labels among those reaching the agreement (None when none does)."""
    reaching = [r for r in results if r["agreement_pct"] >= agreement_pct - 1e-9]
    return min(reaching, key=lambda r: (r["labels"], -r["agreement_pct"])) if reaching else None


# -- routing by information: the posterior of each item's final majority --------------------------------------
#
# Each item's crowd has a share theta of "supported" votes; theta follows a beta distribution whose shape depends on
# the item's true class z (a two-component beta-binomial mixture), and the scorer gives the prior P(z = supported)
# once calibrated (Platt scaling of its logit). Given k supported labels of j drawn so far, the posterior of z and
# of theta give the probability that the majority of all `cap` labels will be "supported" (beta-binomial predictive
# of the cap - j labels still to come; a tie is not supported). An item stops when that probability, or its
# complement, reaches the threshold; its verdict is the more probable majority. The next label goes to the items
# whose posterior one more label moves most (expected entropy reduction), so a budget is spent where it informs.


@dataclass(frozen=True)
class PosteriorModel:
    """Calibration of the score (a, b: prior = sigmoid(a * logit(score) + b)) and the two beta components."""

    a: float
    b: float
    supported: tuple[float, float]  # beta (alpha, beta) of theta when the item is supported
    unsupported: tuple[float, float]
    cap: int

    def prior(self, scores: np.ndarray) -> np.ndarray:
        s = np.clip(np.asarray(scores, dtype=float), 1e-6, 1 - 1e-6)
        return 1.0 / (1.0 + np.exp(-(self.a * np.log(s / (1 - s)) + self.b)))

    def final_majority(self, k: np.ndarray, j: int | np.ndarray, prior: np.ndarray) -> np.ndarray:
        """P(the majority of all cap labels is supported | k supported of the j drawn, the scorer's prior)."""
        k = np.asarray(k, dtype=float)
        j = np.broadcast_to(np.asarray(j, dtype=float), k.shape)
        weights, chances = [], []
        for (alpha, beta), p in ((self.supported, prior), (self.unsupported, 1.0 - prior)):
            weights.append(np.log(np.maximum(p, 1e-300)) + betaln(k + alpha, j - k + beta) - betaln(alpha, beta))
            chances.append(_predictive_majority(k, j, self.cap, alpha + k, beta + j - k))
        w = 1.0 / (1.0 + np.exp(np.clip(weights[1] - weights[0], -700, 700)))
        return w * chances[0] + (1 - w) * chances[1]

    def information_gain(self, k: np.ndarray, j: int | np.ndarray, prior: np.ndarray) -> np.ndarray:
        """Expected reduction of the final majority's entropy (bits) from one more label."""
        now = self.final_majority(k, j, prior)
        j1 = np.asarray(j, dtype=float) + 1
        p_yes = _next_yes(self, np.asarray(k, dtype=float), np.asarray(j, dtype=float), prior)
        after = p_yes * _entropy(self.final_majority(np.asarray(k) + 1, j1, prior)) + \
            (1 - p_yes) * _entropy(self.final_majority(np.asarray(k), j1, prior))
        return np.where(np.asarray(j) >= self.cap, 0.0, _entropy(now) - after)


def betaln(a: Any, b: Any) -> Any:
    from scipy.special import betaln as _betaln

    return _betaln(a, b)


def _entropy(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return -(p * np.log2(p) + (1 - p) * np.log2(1 - p))


def _bb_pmf(x: np.ndarray | float, m: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln

    return np.exp(gammaln(m + 1) - gammaln(x + 1) - gammaln(m - x + 1) + betaln(x + alpha, m - x + beta)
                  - betaln(alpha, beta))


def _predictive_majority(k: np.ndarray, j: np.ndarray, cap: int, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
    remaining = cap - j
    out = np.zeros(np.broadcast(k, alpha).shape)
    for x in range(cap + 1):
        ok = (x <= remaining) & (2 * (k + x) > cap)
        out += np.where(ok, _bb_pmf(np.minimum(x, remaining), remaining, alpha, beta), 0.0)
    return out


def _next_yes(model: PosteriorModel, k: np.ndarray, j: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """P(the next label is supported | k of j, prior) under the mixture."""
    weights, means = [], []
    for (alpha, beta), p in ((model.supported, prior), (model.unsupported, 1.0 - prior)):
        weights.append(np.log(np.maximum(p, 1e-300)) + betaln(k + alpha, j - k + beta) - betaln(alpha, beta))
        means.append((alpha + k) / (alpha + beta + j))
    w = 1.0 / (1.0 + np.exp(np.clip(weights[1] - weights[0], -700, 700)))
    return w * means[0] + (1 - w) * means[1]


def fit_posterior(votes: np.ndarray, scores: np.ndarray, iterations: int = 30) -> PosteriorModel:
    """Platt calibration of the scores on the full majority, then EM for the two beta components (pure numpy /
    scipy; on released votes: the dev data the threshold is chosen on)."""
    from scipy.optimize import minimize
    from scipy.special import expit, gammaln

    votes = np.asarray(votes, dtype=bool)
    n, cap = votes.shape
    yes = votes.sum(axis=1).astype(float)
    truth = full_majority(votes).astype(float)
    s = np.clip(np.asarray(scores, dtype=float), 1e-6, 1 - 1e-6)
    x = np.log(s / (1 - s))

    def platt(p: np.ndarray) -> float:
        z = p[0] * x + p[1]
        return float(np.sum(np.logaddexp(0, z) - truth * z))

    a, b = minimize(platt, [1.0, 0.0]).x
    prior = expit(a * x + b)

    def loglik(alpha: float, beta: float) -> np.ndarray:
        return gammaln(cap + 1) - gammaln(yes + 1) - gammaln(cap - yes + 1) + betaln(yes + alpha, cap - yes + beta) \
            - betaln(alpha, beta)

    weight = prior.copy()
    params = [np.array([1.0, -1.0]), np.array([-1.0, 1.0])]
    for _ in range(iterations):
        for c, w in enumerate((weight, 1 - weight)):
            params[c] = minimize(lambda p, w=w: -float(np.sum(w * loglik(*np.exp(p)))), params[c]).x
        l1 = np.log(prior) + loglik(*np.exp(params[0]))
        l0 = np.log(1 - prior) + loglik(*np.exp(params[1]))
        weight = expit(l1 - l0)
    one, zero = np.exp(params[0]), np.exp(params[1])
    return PosteriorModel(float(a), float(b), (float(one[0]), float(one[1])), (float(zero[0]), float(zero[1])), cap)


Models = dict[str, PosteriorModel]


def fit_posteriors(votes: np.ndarray, scores: np.ndarray, groups: np.ndarray | None = None) -> Models:
    """One PosteriorModel per group (e.g. the dataset: its crowd's agreement and the score's calibration differ);
    a single "" group when none is given."""
    votes = np.asarray(votes, dtype=bool)
    keys = np.full(len(votes), "", dtype=object) if groups is None else np.asarray(groups, dtype=object)
    return {str(g): fit_posterior(votes[keys == g], np.asarray(scores)[keys == g]) for g in sorted(set(keys.tolist()))}


class _Grouped:
    """The per-group models applied item by item (prior and final-majority posterior)."""

    def __init__(self, models: Models, groups: np.ndarray | None, n: int) -> None:
        self.models = models
        keys = np.full(n, "", dtype=object) if groups is None else np.asarray(groups, dtype=object).astype(str)
        unknown = set(keys.tolist()) - set(models)
        if unknown:
            raise ValueError(f"no posterior model for group(s) {sorted(unknown)}")
        self.masks = {g: keys == g for g in models}

    def prior(self, scores: np.ndarray) -> np.ndarray:
        out = np.zeros(len(scores))
        for g, mask in self.masks.items():
            out[mask] = self.models[g].prior(np.asarray(scores)[mask])
        return out

    def final_majority(self, k: np.ndarray, j: int, prior: np.ndarray) -> np.ndarray:
        out = np.zeros(len(k))
        for g, mask in self.masks.items():
            out[mask] = self.models[g].final_majority(k[mask], j, prior[mask])
        return out


def simulate_posterior(votes: np.ndarray, scores: np.ndarray, models: Models | PosteriorModel, threshold: float, *,
                       groups: np.ndarray | None = None, permutations: int = 20, seed: int = 0) -> dict[str, Any]:
    """Labels used and agreement with the full majority when items stop at a posterior threshold (simulate()'s
    protocol: seeded shuffles of every item's votes, means reported). `models` per group of `groups`."""
    votes = np.asarray(votes, dtype=bool)
    n, cap = votes.shape
    model = _Grouped(models if isinstance(models, dict) else {"": models}, groups, n)
    prior = model.prior(np.asarray(scores, dtype=float))
    truth = full_majority(votes)
    rng = np.random.default_rng(seed)
    labels, agreement = [], []
    for _ in range(max(permutations, 1)):
        order = np.argsort(rng.random(votes.shape), axis=1)
        drawn_votes = np.take_along_axis(votes, order, axis=1)
        active = np.ones(n, dtype=bool)
        drawn = np.zeros(n, dtype=np.int64)
        verdict = np.zeros(n, dtype=bool)
        for j in range(1, cap + 1):
            drawn[active] = j
            p = model.final_majority(drawn_votes[:, :j].sum(axis=1), j, prior)
            stop = active & ((np.maximum(p, 1 - p) >= threshold) | (j == cap))
            verdict[stop] = p[stop] >= 0.5
            active &= ~stop
            if not active.any():
                break
        labels.append(drawn.sum())
        agreement.append((verdict == truth).mean())
    used = float(np.mean(labels))
    return {"items": int(n), "cap": int(cap), "threshold": float(threshold), "labels": used,
            "labels_per_item": used / n if n else None, "saved_pct": (1 - used / (n * cap)) * 100.0 if n else None,
            "agreement_pct": float(np.mean(agreement) * 100.0)}


def route(k: np.ndarray, j: np.ndarray, prior: np.ndarray, model: PosteriorModel, threshold: float,
          slots: int) -> np.ndarray:
    """Indices of the (at most `slots`) open items to send the next labels to, most informative first: items whose
    posterior has not passed the threshold and that can take another label, by information_gain."""
    k, j = np.asarray(k), np.asarray(j)
    p = model.final_majority(k, j, prior)
    open_ = (np.maximum(p, 1 - p) < threshold) & (j < model.cap)
    gain = np.where(open_, model.information_gain(k, j, prior), -np.inf)
    order = np.argsort(-gain, kind="stable")
    return order[: int(min(slots, open_.sum()))]


# -- the shipped posterior for live routing (services/routing.py) ---------------------------------------------
#
# Fitted on the shared QASem dev votes with out-of-fold embedded scores by `bench/bench_adaptive.py --write`: one
# model per dataset and a pooled one (a live batch names none of the release's datasets unless its settings do),
# each with the cheapest threshold reaching 99% agreement with the full majority in the dev replay.
SHIPPED = Path(__file__).resolve().parent / "routing_posterior.json"


def model_from_dict(data: dict[str, Any]) -> PosteriorModel:
    """A PosteriorModel from its JSON form (dataclasses.asdict)."""
    return PosteriorModel(float(data["a"]), float(data["b"]), (float(data["supported"][0]), float(data["supported"][1])),
                          (float(data["unsupported"][0]), float(data["unsupported"][1])), int(data["cap"]))


def shipped_models(path: Path = SHIPPED) -> dict[str, tuple[PosteriorModel, float]]:
    """{model name ("pooled", a dataset): (model, its shipped threshold)}."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {name: (model_from_dict(entry["model"]), float(entry["threshold"])) for name, entry in data["models"].items()}


def simulate_units(votes: np.ndarray, scores: np.ndarray, units: np.ndarray, models: Models | PosteriorModel,
                   threshold: float, *, groups: np.ndarray | None = None, permutations: int = 20, seed: int = 0
                   ) -> dict[str, Any]:
    """simulate_posterior at the granularity live routing buys (services/routing.py): a worker labels a whole unit,
    so the j-th label of every item of a unit comes from one draw (one shuffle of vote positions per unit: within a
    QASem release record the positions are the same workers), and a unit gets its next assignment unless every item
    already passed the threshold. Labels counted are QA labels (every item of a unit given out is labelled)."""
    votes = np.asarray(votes, dtype=bool)
    n, cap = votes.shape
    model = _Grouped(models if isinstance(models, dict) else {"": models}, groups, n)
    prior = model.prior(np.asarray(scores, dtype=float))
    truth = full_majority(votes)
    _, unit = np.unique(np.asarray(units), return_inverse=True)
    rng = np.random.default_rng(seed)
    labels, agreement = [], []
    for _ in range(max(permutations, 1)):
        order = np.argsort(rng.random((unit.max() + 1, cap)), axis=1)[unit]
        drawn_votes = np.take_along_axis(votes, order, axis=1)
        open_units = np.ones(unit.max() + 1, dtype=bool)
        drawn = np.zeros(n, dtype=np.int64)
        verdict = np.zeros(n, dtype=bool)
        for j in range(1, cap + 1):
            active = open_units[unit]
            drawn[active] = j
            p = model.final_majority(drawn_votes[:, :j].sum(axis=1), j, prior)
            verdict[active] = p[active] >= 0.5
            unsure = active & (np.maximum(p, 1 - p) < threshold)
            open_units &= np.bincount(unit, weights=unsure, minlength=len(open_units)) > 0
            if not open_units.any():
                break
        labels.append(drawn.sum())
        agreement.append((verdict == truth).mean())
    used = float(np.mean(labels))
    return {"items": int(n), "units": int(unit.max() + 1), "cap": int(cap), "threshold": float(threshold),
            "labels": used, "saved_pct": (1 - used / (n * cap)) * 100.0 if n else None,
            "agreement_pct": float(np.mean(agreement) * 100.0)}
