"""The linear models' sum, compiled (scripts/compile_parser.py): the parser scores every candidate noun and
answer, and `sum(map(weights.get, features, repeat(0.0)), start)` spent most of its time in the map and call
machinery rather than in the lookups (measured: a typed loop takes about half as long).
"""
from __future__ import annotations

import math
from sys import intern
from typing import Any


def weighted_sum(weights: dict[str, float], features: list[str], start: float) -> float:
    """`start` plus the weight of each feature, added left to right in C doubles as `sum` does (the same float:
    a feature without a weight adds 0.0, which leaves the sum as it is)."""
    z = start
    for f in features:
        w = weights.get(f)  # on the typed dict: a direct C lookup (a bound `get` would be called as an object)
        if w is not None:
            z += w
    return z


def probability(weights: dict[str, float], features: list[str], intercept: float) -> float:
    """A logistic model's probability (linear.LinearModel.probability), compiled so that the rules' calls for each
    candidate noun and argument stay in C; math.exp is the same libm exp either way."""
    z = weighted_sum(weights, features, intercept)
    return 1.0 / (1.0 + math.exp(-z)) if z > -30 else 0.0


def model_weights(raw: dict[Any, Any]) -> dict[str, float]:
    """A model's weights with interned feature names: a feature string that is interned too (`interned`) is then
    the key object itself, so its lookup compares pointers, not characters, and reuses the cached hash."""
    return {intern(str(k)): float(v) for k, v in raw.items()}


def interned(features: tuple[str, ...]) -> tuple[str, ...]:
    """The interned copy of feature strings that recur (the feature functions cache such parts per label tuple)."""
    return tuple([intern(f) for f in features])


def round4(x: float) -> float:
    """round(x, 4), the same double, for the confidences (0..1) every kept QA gets: round goes through a decimal
    string and back (~0.4 us, a couple of percent of the rules). For 0 < x <= 1 the error of x * 10^4 stays
    under 1e-8, so unless that product lies within 1e-6 of a tie its nearest integer k is round's digits, and
    k / 10^4 (one correctly rounded division) is the double nearest to k * 10^-4, which is what round returns."""
    if 0.0 < x <= 1.0:  # zeros keep their sign through round
        y = x * 10000.0
        if abs(y - math.floor(y) - 0.5) > 1e-6:
            return math.floor(y + 0.5) / 10000.0
    return round(x, 4)
