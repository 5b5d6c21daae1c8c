"""Which QAs a project shows its workers: a pure filter over a parse, counting what it leaves out and why.

A policy names the predicate kinds it keeps (verbal, copular, nominal), the least confidence a QA needs, per kind
(QAPair.confidence: the measured precision of its question class for verbs, detection x argument probability for
nouns) and the most QAs a predicate may bring (the surest first). The default puts precision first: verbal QAs
need 0.5 (every class but the weakest 'how' ones passes), nominal QAs 0.6 (the detector and the argument scorer
both fairly sure: guesses such as the clause's subject of an ordinary verb stay out), at most four per predicate.
The parser itself never filters by policy, so evaluation measures all it finds; the app applies a project's
policy to the parse before writing it, and stores `dropped` with it.

    policy = QAPolicy.from_dict({"kinds": ["verbal", "nominal"], "min_confidence": {"nominal": 0.7},
                                 "max_qas_per_predicate": 3})
    shown = apply_policy(parsed, policy)      # a new ParsedText; shown.dropped == {"confidence": 12, ...}
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from parser.types import ParsedText, PredicateFrame

KINDS = ("verbal", "copular", "nominal")
REASONS = ("kind", "confidence", "per_predicate")


class PolicyError(ValueError):
    """A policy setting is invalid; the message names the field path."""


DEFAULT_MIN_CONFIDENCE = {"verbal": 0.5, "copular": 0.5, "nominal": 0.6}


@dataclass(frozen=True)
class QAPolicy:
    kinds: frozenset[str] = field(default_factory=lambda: frozenset(KINDS))
    min_confidence: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_MIN_CONFIDENCE))
    max_qas_per_predicate: int | None = 4

    def threshold(self, kind: str) -> float:
        return self.min_confidence.get(kind, 0.0)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None, path: str = "policy") -> QAPolicy:
        """A policy from settings or a project's JSON; missing fields take the default, unknown ones are refused.

        min_confidence is one number for every kind, or an object by kind (kinds it leaves out keep the default).
        """
        if data is None:
            return DEFAULT_POLICY
        if not isinstance(data, Mapping):
            raise PolicyError(f"{path}: expected an object, got {type(data).__name__}")
        unknown = set(data) - {"kinds", "min_confidence", "max_qas_per_predicate"}
        if unknown:
            raise PolicyError(f"{path}.{sorted(unknown)[0]}: unknown field")
        kinds = data.get("kinds", sorted(DEFAULT_POLICY.kinds))
        if not isinstance(kinds, list | tuple) or not all(isinstance(k, str) for k in kinds):
            raise PolicyError(f"{path}.kinds: expected a list of predicate kinds")
        for i, kind in enumerate(kinds):
            if kind not in KINDS:
                raise PolicyError(f"{path}.kinds[{i}]: {kind!r} is not one of {', '.join(KINDS)}")
        cap = data.get("max_qas_per_predicate", DEFAULT_POLICY.max_qas_per_predicate)
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise PolicyError(f"{path}.max_qas_per_predicate: expected a whole number >= 1, or null for no cap")
        return cls(frozenset(kinds), _min_confidence(data.get("min_confidence"), f"{path}.min_confidence"), cap)

    def to_dict(self) -> dict[str, Any]:
        return {"kinds": sorted(self.kinds), "min_confidence": dict(self.min_confidence),
                "max_qas_per_predicate": self.max_qas_per_predicate}


def _confidence_value(value: Any, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise PolicyError(f"{path}: expected a number from 0 to 1")
    return float(value)


def _min_confidence(value: Any, path: str) -> dict[str, float]:
    if value is None:
        return dict(DEFAULT_MIN_CONFIDENCE)
    if isinstance(value, Mapping):
        out = dict(DEFAULT_MIN_CONFIDENCE)
        for kind, v in value.items():
            if kind not in KINDS:
                raise PolicyError(f"{path}.{kind}: not one of {', '.join(KINDS)}")
            out[kind] = _confidence_value(v, f"{path}.{kind}")
        return out
    number = _confidence_value(value, path)
    return dict.fromkeys(KINDS, number)


DEFAULT_POLICY = QAPolicy()


def filter_frames(frames: list[PredicateFrame], policy: QAPolicy = DEFAULT_POLICY) -> tuple[list[PredicateFrame], dict[str, int]]:
    """Copies of the frames the policy keeps, with the QAs it keeps, and the count of dropped QAs by reason."""
    dropped = dict.fromkeys(REASONS, 0)
    kept: list[PredicateFrame] = []
    for frame in frames:
        if frame.kind not in policy.kinds:
            dropped["kind"] += len(frame.qas)
            continue
        least = policy.threshold(frame.kind)
        sure = [qa for qa in frame.qas if qa.confidence >= least]
        dropped["confidence"] += len(frame.qas) - len(sure)
        if policy.max_qas_per_predicate is not None and len(sure) > policy.max_qas_per_predicate:
            ranked = sorted(range(len(sure)), key=lambda i: -sure[i].confidence)[: policy.max_qas_per_predicate]
            dropped["per_predicate"] += len(sure) - len(ranked)
            sure = [sure[i] for i in sorted(ranked)]
        kept.append(replace(frame, qas=sure))
    return kept, dropped


def apply_policy(parsed: ParsedText, policy: QAPolicy = DEFAULT_POLICY) -> ParsedText:
    """The parse with only the QAs the policy keeps (the input is not changed), and `dropped` counting the rest.

    Frames of excluded kinds go with their QAs; frames left without QAs stay (the predicate was still found).
    """
    frames, dropped = filter_frames(parsed.frames, policy)
    total = dict(parsed.dropped)
    for reason, n in dropped.items():
        total[reason] = total.get(reason, 0) + n
    return replace(parsed, frames=frames, dropped=total)
