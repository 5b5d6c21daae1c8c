"""One interface for every automatic scorer: s(reference, claim) in [0, 1], the probability that the claim is supported.

A claim is what humans judge: a QASem QA, a FActScore atomic fact, or a Ragas-style statement. Scorers see
only text (no Django): the service builds Reference and Claim from the database, and the same scorers run in
tests, benches and the training script. Scorers are built by name through the registry (scoring/registry.py),
lazily, so importing this package loads no model.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

KINDS = ("qa", "fact", "statement")


@dataclass(frozen=True)
class Reference:
    """What a claim is checked against: the source text, or retrieved passages (then text joins them)."""

    text: str
    passages: tuple[str, ...] = ()

    @classmethod
    def of_passages(cls, passages: Sequence[str]) -> Reference:
        return cls(text="\n".join(passages), passages=tuple(passages))


@dataclass(frozen=True)
class Claim:
    """A judged item. For a QA, question/answer/predicate are set and text is their statement form
    ("question answer"); for a fact or a statement only text is. context is the response sentence it came
    from (optional: scorers may use it, the QA alone is what is judged)."""

    kind: str
    text: str
    question: str = ""
    answer: str = ""
    predicate: str = ""
    context: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim kind must be one of {', '.join(KINDS)}, not {self.kind!r}")

    @classmethod
    def qa(cls, question: str, answer: str, predicate: str = "", context: str = "") -> Claim:
        return cls("qa", f"{question.strip()} {answer.strip()}".strip(), question, answer, predicate, context)

    @classmethod
    def fact(cls, text: str, context: str = "") -> Claim:
        return cls("fact", text, context=context)


@dataclass(frozen=True)
class Score:
    """A probability of support and what it rests on (features, the matched passage, the model's reply...)."""

    value: float
    evidence: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a score must lie in [0, 1], got {self.value!r}")


class Scorer(Protocol):
    """name and version are stored with every score: a new version (new coefficients, another model directory,
    another prompt) is a new column of scores, never an overwrite of the old ones."""

    name: str
    version: str

    def score_batch(self, pairs: Sequence[tuple[Reference, Claim]]) -> list[Score]: ...


class ScorerError(RuntimeError):
    """A scorer that cannot run (a missing model directory, an endpoint that fails); the job records it."""


def score_one(scorer: Scorer, reference: Reference, claim: Claim) -> Score:
    """s(reference, claim) for one pair (batched scorers are faster on many)."""
    return scorer.score_batch([(reference, claim)])[0]
