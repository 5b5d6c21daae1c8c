"""The linear models' sum, compiled (scripts/compile_parser.py): the parser scores every candidate noun and
answer, and `sum(map(weights.get, features, repeat(0.0)), start)` spent most of its time in the map and call
machinery rather than in the lookups (measured: a typed loop takes about half as long).
"""
from __future__ import annotations

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


def model_weights(raw: dict[Any, Any]) -> dict[str, float]:
    """A model's weights with interned feature names: a feature string that is interned too (`interned`) is then
    the key object itself, so its lookup compares pointers, not characters, and reuses the cached hash."""
    return {intern(str(k)): float(v) for k, v in raw.items()}


def interned(features: tuple[str, ...]) -> tuple[str, ...]:
    """The interned copy of feature strings that recur (the feature functions cache such parts per label tuple)."""
    return tuple([intern(f) for f in features])
