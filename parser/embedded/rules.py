"""Which tokens of a sentence become frames of which kind (verbal, copular, nominal): the embedded backend's entry.

The rules themselves live beside this module, one per seam: `syntax` (tag classes, spans), `wordclass`
(person / time / place), `arguments` (subjects, PPs, adverbials shared by all predicates), `questions`
(7-slot question text, QA pairs), `verbal`, `copular` and `nominal` (each kind's arguments and questions).
They read the parse through `view.doc_view` (every token attribute computed once per doc), not through spaCy's
Token objects, which are built anew, with their strings decoded anew, on every access.
"""
from __future__ import annotations

from spacy.tokens import Doc, Span

from parser import lexicon
from parser.embedded.copular import copular_frame
from parser.embedded.nominal import detect_nominal, nominal_frame
from parser.embedded.syntax import AUX_DEPS, NOUN_TAGS, VERB_TAGS
from parser.embedded.verbal import is_verbal_predicate, verbal_frame
from parser.embedded.view import DocView, doc_view
from parser.embedded.viewbuild import TokenView
from parser.types import PredicateFrame

__all__ = ["copular_frame", "detect_nominal", "frames_for", "is_verbal_predicate", "nominal_frame", "verbal_frame"]


def frames_for(
    sent: Span | Doc | DocView,
    offset: int = 0,
    sentence_index: int = 0,
    predicates: list[int] | None = None,
    nominal: bool = True,
    copular: bool = True,
    nominal_predicates: list[int] | None = None,
) -> list[PredicateFrame]:
    """All frames of one sentence; `predicates` (sentence-relative indices) overrides verbal detection."""
    view = doc_view(sent)
    tokens: list[TokenView]  # typed, so that the compiled loop reads each token's fields directly
    if isinstance(sent, Span):
        base, tokens = sent.start, view.tokens[sent.start : sent.end]
    else:
        base, tokens = 0, view.tokens
    frames: list[PredicateFrame] = []
    chosen = {base + i for i in predicates} if predicates is not None else None
    noms = {base + i for i in nominal_predicates} if nominal_predicates is not None else None
    for tok in tokens:
        tag = tok.tag_
        if chosen is not None:
            if tok.i in chosen:
                frames.append(verbal_frame(tok, offset, sentence_index))
                continue
        elif tag in VERB_TAGS and tok.dep_ not in AUX_DEPS and tok.is_alpha:
            stem = lexicon.verb_stem(tok.lower_, tag)
            if stem != "be":
                if lexicon.is_known_verb(stem):  # else a noun or a name spaCy tagged as a verb ("Wales")
                    frames.append(verbal_frame(tok, offset, sentence_index))
            elif copular:
                frame = copular_frame(tok, offset, sentence_index)
                if frame is not None:
                    frames.append(frame)
            continue
        if noms is not None:
            if tok.i in noms:
                verb = lexicon.nominalization_verb(tok.lower_) or tok.lower_
                frames.append(nominal_frame(tok, verb, offset, sentence_index))
        elif nominal and chosen is None and tag in NOUN_TAGS:
            found = detect_nominal(tok)
            if found is not None:
                # argument-less nouns are kept: detection is reported on its own, the T5 model asks about them
                frames.append(nominal_frame(tok, found[0], offset, sentence_index, confidence=found[1]))
    return frames
