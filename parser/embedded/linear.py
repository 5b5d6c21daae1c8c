"""Logistic regressions over feature strings, stored as plain JSON (feature -> weight, intercept, threshold).

The parser's learned parts (eventive-noun detection, nominal argument scoring) are trained by the scripts in
parser/training/ with scikit-learn and read here with the standard library only: no pickle, no download, and a
feature version so that an artefact never meets a feature function it was not trained with.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from parser.embedded.scoring import model_weights, probability

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


class ModelUnavailable(RuntimeError):
    """A trained artefact is missing, unreadable or of another feature version."""


@dataclass(frozen=True)
class LinearModel:
    weights: dict[str, float]
    intercept: float
    threshold: float

    def probability(self, features: Iterable[str]) -> float:
        # summed left to right from the intercept in C doubles (as a loop of += would: the same float as Python
        # 3.11's sum, which pyproject pins; 3.12's compensates), compiled (scoring.py): the parser calls this for
        # every candidate noun and argument
        return probability(self.weights, features if type(features) is list else list(features), self.intercept)


@cache
def load_linear(path: str, feature_version: int) -> LinearModel:
    """The model in `path`, read once per process; refused when trained on another feature version."""
    target = Path(path)
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelUnavailable(f"cannot read the model {target}: {exc}") from exc
    if data.get("feature_version") != feature_version:
        raise ModelUnavailable(
            f"{target} has feature version {data.get('feature_version')}, the code {feature_version}: retrain it"
        )
    return LinearModel(model_weights(data["weights"]), float(data["intercept"]),
                       float(data["threshold"]))
