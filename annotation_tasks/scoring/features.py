"""Lexical alignment features of a claim against its reference, for the overlap and embedded scorers.

Why these: in the QASemConsistency data most unsupported QAs carry a word the reference never says (a first
name the article does not give, a wrong number, a place), or put true words together wrongly (the right
event with the wrong runner); both show up as words missing from the reference, or as words present but not
near the predicate in any one reference sentence. Each feature is a number in [0, 1] (or a 0/1 flag) so the
coefficients stored in data/embedded.json stay readable.

The reference is indexed once (ReferenceIndex) and reused for every claim against it: a response's QAs
share one reference.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from annotation_tasks.scoring.base import Claim, Reference
from annotation_tasks.scoring.text import MONTHS, NEGATIONS, Token, sentences, tokens

WINDOW = 4  # two content words count as adjacent when at most this many content words apart in the reference

QA_FEATURES = (
    "answer_coverage",
    "answer_missing",
    "answer_no_content",
    "answer_pairs",
    "question_coverage",
    "predicate_in_reference",
    "sentence_coverage",
    "predicate_answer_sentence",
    "number_missing",
    "name_missing",
    "date_missing",
    "negation_mismatch",
    "context_coverage",
    "answer_length",
)
STATEMENT_FEATURES = (
    "statement_coverage",
    "statement_missing",
    "statement_pairs",
    "sentence_coverage",
    "number_missing",
    "name_missing",
    "date_missing",
    "negation_mismatch",
    "context_coverage",
    "statement_length",
)


@dataclass
class ReferenceIndex:
    """Stems of a reference: all of them, per sentence, and their content-word positions (for adjacency)."""

    stems: frozenset[str]
    lowers: frozenset[str]
    sentence_stems: list[frozenset[str]]
    sentence_negated: list[bool]
    positions: dict[str, list[int]]

    @classmethod
    def build(cls, reference: Reference) -> ReferenceIndex:
        parts = reference.passages or (reference.text,)
        sentence_stems: list[Any] = []
        negated: list[Any] = []
        positions: dict[Any, Any] = {}
        all_stems: set[Any] = set()
        lowers: set[Any] = set()
        position = 0
        for part in parts:
            for start, end in sentences(part):
                words = tokens(part[start:end])
                stems = {t.stem for t in words}
                sentence_stems.append(frozenset(stems))
                negated.append(any(t.lower in NEGATIONS for t in words))
                all_stems |= stems
                lowers |= {t.lower for t in words}
                for t in words:
                    if t.is_content:
                        positions.setdefault(t.stem, []).append(position)
                        position += 1
                position += WINDOW + 1  # no adjacency across sentences
        return cls(frozenset(all_stems), frozenset(lowers), sentence_stems, negated, positions)

    def adjacent(self, a: str, b: str) -> bool:
        """Whether stems a and b occur within WINDOW content words of each other somewhere in the reference."""
        pa, pb = self.positions.get(a), self.positions.get(b)
        if not pa or not pb:
            return False
        if len(pa) * len(pb) > 4000:  # frequent words: adjacency says nothing, count it as found
            return True
        return any(abs(x - y) <= WINDOW for x in pa for y in pb)


def _coverage(stems: Sequence[str], found: frozenset[str]) -> float:
    return sum(s in found for s in stems) / len(stems) if stems else 1.0


def _pairs(stems: Sequence[str], index: ReferenceIndex) -> float:
    """Share of consecutive content-word pairs of the claim that are near each other in the reference."""
    pairs = [(a, b) for a, b in zip(stems, stems[1:], strict=False) if a != b]
    return sum(index.adjacent(a, b) for a, b in pairs) / len(pairs) if pairs else 1.0


def _content(words: Sequence[Token]) -> list[str]:
    return [t.stem for t in words if t.is_content]


def _best_sentence(stems: Sequence[str], index: ReferenceIndex) -> tuple[float, int]:
    """(coverage of `stems` by the best single reference sentence, that sentence's position)."""
    if not stems or not index.sentence_stems:
        return (1.0 if not stems else 0.0), -1
    unique = set(stems)
    best, where = -1.0, -1
    for i, found in enumerate(index.sentence_stems):
        value = len(unique & found) / len(unique)
        if value > best:
            best, where = value, i
    return best, where


def _flags(words: Sequence[Token], index: ReferenceIndex) -> tuple[float, float, float]:
    """(a number missing, a capitalised name missing, a month missing) from the reference."""
    numbers = [t for t in words if t.is_number]
    names = [t for i, t in enumerate(words) if t.is_capitalised and t.is_content and not t.is_number]
    months = [t for t in words if t.lower in MONTHS and t.is_capitalised]
    missing = lambda group: float(any(t.stem not in index.stems and t.lower not in index.lowers for t in group))  # noqa: E731
    return missing(numbers), missing(names), missing(months)


def _negation_mismatch(words: Sequence[Token], index: ReferenceIndex, sentence: int) -> float:
    claim_negated = any(t.lower in NEGATIONS for t in words)
    reference_negated = index.sentence_negated[sentence] if sentence >= 0 else False
    return float(claim_negated != reference_negated)


def qa_features(claim: Claim, index: ReferenceIndex) -> dict[str, float]:
    """The QA_FEATURES of one QA against an indexed reference."""
    answer = tokens(claim.answer)
    question = tokens(claim.question)
    predicate = tokens(claim.predicate)
    answer_stems = _content(answer)
    question_stems = _content(question)
    predicate_stems = [t.stem for t in predicate]
    missing = sum(s not in index.stems for s in set(answer_stems))
    together = [*predicate_stems, *question_stems, *answer_stems]
    sentence_cov, best = _best_sentence(together, index)
    with_predicate = [
        _coverage(answer_stems, found)
        for found in index.sentence_stems
        if predicate_stems and all(p in found for p in predicate_stems)
    ]
    number, name, date = _flags([*question, *answer], index)
    return {
        "answer_coverage": _coverage(answer_stems, index.stems),
        "answer_missing": min(missing, 4) / 4,
        "answer_no_content": float(not answer_stems),
        "answer_pairs": _pairs(answer_stems, index),
        "question_coverage": _coverage(question_stems, index.stems),
        "predicate_in_reference": float(bool(predicate_stems) and all(p in index.stems for p in predicate_stems)),
        "sentence_coverage": sentence_cov,
        "predicate_answer_sentence": max(with_predicate, default=0.0),
        "number_missing": number,
        "name_missing": name,
        "date_missing": date,
        "negation_mismatch": _negation_mismatch([*question, *answer], index, best),
        "context_coverage": _coverage(_content(tokens(claim.context)), index.stems),
        "answer_length": min(math.log1p(len(answer_stems)) / 3, 1.0),
    }


def statement_features(claim: Claim, index: ReferenceIndex) -> dict[str, float]:
    """The STATEMENT_FEATURES of a fact or statement (a QA is read as its statement form)."""
    words = tokens(claim.text)
    stems = _content(words)
    sentence_cov, best = _best_sentence(stems, index)
    number, name, date = _flags(words, index)
    return {
        "statement_coverage": _coverage(stems, index.stems),
        "statement_missing": min(sum(s not in index.stems for s in set(stems)), 4) / 4,
        "statement_pairs": _pairs(stems, index),
        "sentence_coverage": sentence_cov,
        "number_missing": number,
        "name_missing": name,
        "date_missing": date,
        "negation_mismatch": _negation_mismatch(words, index, best),
        "context_coverage": _coverage(_content(tokens(claim.context)), index.stems),
        "statement_length": min(math.log1p(len(stems)) / 3, 1.0),
    }


def head_features(head: str, claim: Claim, index: ReferenceIndex) -> dict[str, float]:
    """Every feature a head may use: a QA gets its QA features and those of its statement form."""
    if head == "qa" and claim.kind == "qa":
        return {**statement_features(claim, index), **qa_features(claim, index)}
    return statement_features(claim, index)


class IndexCache:
    """ReferenceIndex per reference, so the QAs of one response index their reference once."""

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._cache: dict[Reference, ReferenceIndex] = {}

    def get(self, reference: Reference) -> ReferenceIndex:
        index = self._cache.get(reference)
        if index is None:
            if len(self._cache) >= self._size:
                self._cache.pop(next(iter(self._cache)))
            index = self._cache[reference] = ReferenceIndex.build(reference)
        return index
