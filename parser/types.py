"""The parser's output model: plain dataclasses, so any caller (Django, CLI, evaluation) can use them.

Token indices are global to the parsed text (flattened across sentences) and spans are half-open [start, end),
the same convention as Response.tokens and the QASemConsistency release, so nothing needs re-indexing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

SLOT_NAMES: tuple[str, ...] = ("wh", "aux", "subj", "verb", "obj", "prep", "obj2")
PredicateKind = Literal["verbal", "nominal", "copular"]


@dataclass(slots=True)  # not frozen: frozen dataclasses construct ~2x slower, and we build one per token
class Token:
    index: int
    text: str
    start: int  # character offset in the parsed text
    end: int
    sentence: int = 0


@dataclass(frozen=True, slots=True)
class Sentence:
    index: int
    start: int  # first token index (global)
    end: int  # one past the last token index
    text: str
    char_start: int = 0
    char_end: int = 0


@dataclass(slots=True)
class Answer:
    start: int  # token span, global, half-open
    end: int
    text: str = ""


@dataclass(slots=True)
class QAPair:
    raw_question: tuple[str, ...]  # the 7 QA-SRL slots, "_" for an empty slot
    question: str
    answers: list[Answer]
    role: str = ""
    # How likely the QA is right (0..1): the predicate's detection probability times the argument rule's
    # precision measured on training data; a project's policy (parser.policy) drops QAs below its minimum.
    confidence: float = 1.0

    @property
    def slots(self) -> dict[str, str]:
        return dict(zip(SLOT_NAMES, self.raw_question, strict=True))


@dataclass(slots=True)
class PredicateFrame:
    token_index: int  # global token index of the predicate
    text: str
    verb_form: str  # the verb's stem (for nominal predicates: the verb the noun derives from)
    kind: PredicateKind = "verbal"
    sentence_index: int = 0
    pos: str = ""  # VERB, NOUN, AUX as in the QASemConsistency release
    qas: list[QAPair] = field(default_factory=list)
    confidence: float = 1.0  # that the token is a predicate at all (nominal: the detector's probability)


@dataclass(slots=True)
class ParsedText:
    text: str
    tokens: list[Token]
    sentences: list[Sentence]
    frames: list[PredicateFrame]
    backend: str = ""
    # QAs a policy left out, by reason ("kind", "confidence", "per_predicate"): see parser.policy.apply_policy
    dropped: dict[str, int] = field(default_factory=dict)

    def token_rows(self) -> list[list]:
        """Tokens in Response.tokens form: [[text, char_start, char_end], ...]."""
        return [[t.text, t.start, t.end] for t in self.tokens]

    def sentence_rows(self) -> list[dict]:
        """Sentences in Response.sentences form."""
        return [
            {"start": s.start, "end": s.end, "text": s.text, "char_start": s.char_start, "char_end": s.char_end}
            for s in self.sentences
        ]

    def span_text(self, start: int, end: int) -> str:
        """The text a token span covers, with the original spacing."""
        if start >= end:
            return ""
        return self.text[self.tokens[start].start : self.tokens[end - 1].end]
