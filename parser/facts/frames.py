"""The first embedded atomic-fact backend: one fact per predicate-argument frame, rendered from the frame's QAs
(subject, the verb with its auxiliaries, the other arguments in sentence order). Kept as `frames` to compare the
dependency-rule splitter (parser/facts/embedded.py) against; a sentence with no usable frame is kept whole.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from parser.types import ParsedText, PredicateFrame

AUX_WORDS = frozenset(
    "is are was were be been being am has have had having will would can could may might shall should must "
    "do does did not n't 's 're 've 'd 'll never also".split()
)


class FrameFactBackend:
    """One fact per frame, rendered from its QAs' answers around the verb; no model (the first embedded backend,
    kept to compare against)."""

    name = "frames"

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        """Each sentence parsed alone (frames need the parser's output), then split as `split` does."""
        from parser.embedded import EmbeddedParser

        keep = set(range(len(sentences))) if wanted is None else set(wanted)
        parser = EmbeddedParser()
        out: list[list[str]] = []
        for index, parsed in enumerate(parser.parse_many(sentences)):
            facts = [f for per in self.split(parsed) for f in per] if index in keep else []
            out.append(facts)
        return out

    def split(self, parsed: ParsedText) -> list[list[str]]:
        by_sentence: dict[int, list[PredicateFrame]] = {}
        for frame in parsed.frames:
            by_sentence.setdefault(frame.sentence_index, []).append(frame)
        out = []
        for sentence in parsed.sentences:
            facts: list[str] = []
            for frame in by_sentence.get(sentence.index, []):
                fact = render_frame(parsed, frame)
                if fact and fact not in facts:
                    facts.append(fact)
            out.append(facts or ([sentence.text.strip()] if sentence.text.strip() else []))
        return out


def _verb_group(parsed: ParsedText, frame: PredicateFrame, floor: int) -> tuple[int, int]:
    """The predicate with the auxiliaries and negation right before it ('has not been shot')."""
    start = frame.token_index
    while start - 1 >= floor and parsed.tokens[start - 1].text.lower() in AUX_WORDS:
        start -= 1
    return start, frame.token_index + 1


PLURAL_AUX = {"is": "are", "was": "were", "has": "have", "isn't": "aren't", "wasn't": "weren't", "hasn't": "haven't"}


def _answer_span(parsed: ParsedText, qa) -> tuple[int, int]:
    """The first answer, with its preposition when the question asks through one ('in the office')."""
    answer = qa.answers[0]
    start, prep = answer.start, qa.raw_question[5]
    if prep != "_" and start > 0 and parsed.tokens[start - 1].text.lower() == prep.split()[-1]:
        start -= 1
    return start, answer.end


def render_frame(parsed: ParsedText, frame: PredicateFrame) -> str | None:
    """'<subject> <aux verb> <other arguments in sentence order>.' for a verbal or copular frame with a subject."""
    if frame.kind == "nominal" or not frame.qas:
        return None
    subject_qa = None
    others: list[tuple[int, int]] = []
    for qa in frame.qas:
        if not qa.answers:
            continue
        span = _answer_span(parsed, qa)
        if subject_qa is None and qa.raw_question[2] == "_" and qa.role in {"R0", "R1"} and span[1] <= frame.token_index:
            subject_qa = qa
        elif span not in others:
            others.append(span)
    if subject_qa is None:
        return None
    subject = (subject_qa.answers[0].start, subject_qa.answers[0].end)
    verb = _verb_group(parsed, frame, subject[1])
    verb_text = parsed.span_text(*verb)
    aux = subject_qa.raw_question[1]
    if verb == (frame.token_index, frame.token_index + 1) and aux != "_":
        # a participle without its own auxiliaries ("men armed with rifles", "before making a getaway")
        if aux not in {"is", "was", "isn't", "wasn't", "has", "had"}:
            return None  # infinitives and the like: the sentence does not assert them
        head_word = parsed.tokens[subject[1] - 1].text
        if head_word.lower().endswith("s") and not head_word[:1].isupper():
            aux = PLURAL_AUX.get(aux, aux)
        prefix = " ".join(subject_qa.raw_question[3].split()[:-1])
        verb_text = " ".join(w for w in (aux, prefix, verb_text) if w)
    parts = [subject, verb]
    for span in sorted(others):
        if span[0] >= verb[1] and all(span[0] >= p[1] or span[1] <= p[0] for p in parts):
            parts.append(span)
    pieces = [parsed.span_text(*subject), verb_text] + [parsed.span_text(a, b) for a, b in parts[2:]]
    text = re.sub(r"\s+([,.;:!?])", r"\1", " ".join(pieces).strip())
    text = re.sub(r"\s+('s\b|n't\b)", r"\1", text)
    if not text:
        return None
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
