"""A project's parse policy: which of the parser's QAs reach the database (and so validators and workers).

Pure (no Django): `ParsePolicy.from_dict` checks a stranger's JSON and names the bad field; `apply_policy`
filters frames and says how many QAs it dropped and why, so the parse Job can report it.

Precision-first default: every predicate kind, QAs under confidence 0.5 dropped, at most 4 QAs per predicate
(the most confident first, parse order on ties). Confidence is the parser's (parser.types.QAPair.confidence):
for nominal QAs the detector's probability times the argument rule's precision, so the minimum mostly removes
nouns taken for events; verbal QAs carry 1.0 unless a backend says otherwise. Four QAs per predicate keeps the
core roles (QA-SRL verbs average 2-3 gold questions) and cuts the tail of adverbial guesses.
Facts: `min_fact_confidence` (default 0.0: keep every fact, since a dropped fact changes the FActScore's
denominator; a project raises it knowingly).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from parser.types import PredicateFrame

KINDS = ("verbal", "nominal", "copular")
DEFAULT_POLICY: dict[str, Any] = {
    "kinds": list(KINDS),
    "min_confidence": 0.5,
    "max_qas_per_predicate": 4,
    "min_fact_confidence": 0.0,
}
DROP_REASONS = ("kind", "confidence", "per_predicate")


class PolicyError(ValueError):
    """A policy value is unusable; `field` names it (e.g. "parse_policy.kinds[1]")."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def _fraction(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not 0 <= value <= 1:
        raise PolicyError(path, "must be a number from 0 to 1")
    return float(value)


@dataclass(frozen=True)
class ParsePolicy:
    kinds: frozenset[str] = frozenset(KINDS)
    min_confidence: float = DEFAULT_POLICY["min_confidence"]
    max_qas_per_predicate: int | None = DEFAULT_POLICY["max_qas_per_predicate"]  # None: no limit
    min_fact_confidence: float = DEFAULT_POLICY["min_fact_confidence"]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, path: str = "parse_policy") -> ParsePolicy:
        """A policy from JSON; missing keys take the default; PolicyError names the first bad field."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise PolicyError(path, "must be an object")
        unknown = sorted(set(data) - set(DEFAULT_POLICY))
        if unknown:
            raise PolicyError(f"{path}.{unknown[0]}", f"unknown setting (known: {', '.join(DEFAULT_POLICY)})")
        policy = cls()
        if "kinds" in data:
            kinds = data["kinds"]
            if not isinstance(kinds, list):
                raise PolicyError(f"{path}.kinds", f"must be a list of {', '.join(KINDS)}")
            for i, kind in enumerate(kinds):
                if kind not in KINDS:
                    raise PolicyError(f"{path}.kinds[{i}]", f"must be one of {', '.join(KINDS)}")
            policy = replace(policy, kinds=frozenset(kinds))
        if "min_confidence" in data:
            policy = replace(policy, min_confidence=_fraction(data["min_confidence"], f"{path}.min_confidence"))
        if "min_fact_confidence" in data:
            policy = replace(policy, min_fact_confidence=_fraction(data["min_fact_confidence"],
                                                                   f"{path}.min_fact_confidence"))
        if "max_qas_per_predicate" in data:
            k = data["max_qas_per_predicate"]
            if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 100):
                raise PolicyError(f"{path}.max_qas_per_predicate", "must be an integer from 1 to 100, or null")
            policy = replace(policy, max_qas_per_predicate=k)
        return policy

    def as_dict(self) -> dict[str, Any]:
        return {
            "kinds": [k for k in KINDS if k in self.kinds],
            "min_confidence": self.min_confidence,
            "max_qas_per_predicate": self.max_qas_per_predicate,
            "min_fact_confidence": self.min_fact_confidence,
        }


@dataclass
class PolicyOutcome:
    frames: list[PredicateFrame]
    kept_qas: int = 0
    dropped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(DROP_REASONS, 0))


def apply_policy(frames: Iterable[PredicateFrame], policy: ParsePolicy) -> PolicyOutcome:
    """Frames with only the QAs the policy keeps (a frame left without QAs is left out). Counts are QAs, each
    under the first reason that drops it: its predicate's kind, its confidence, then the per-predicate limit.
    The input frames are not changed."""
    out = PolicyOutcome(frames=[])
    for frame in frames:
        if frame.kind not in policy.kinds:
            out.dropped["kind"] += len(frame.qas)
            continue
        confident = [qa for qa in frame.qas if qa.confidence >= policy.min_confidence]
        out.dropped["confidence"] += len(frame.qas) - len(confident)
        limit = policy.max_qas_per_predicate
        if limit is not None and len(confident) > limit:
            ranked = sorted(range(len(confident)), key=lambda i: (-confident[i].confidence, i))[:limit]
            out.dropped["per_predicate"] += len(confident) - limit
            confident = [confident[i] for i in sorted(ranked)]
        if confident:
            out.frames.append(replace(frame, qas=confident))
            out.kept_qas += len(confident)
    return out
