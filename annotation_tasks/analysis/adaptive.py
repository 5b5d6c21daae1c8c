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

from collections.abc import Iterable
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
