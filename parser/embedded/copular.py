"""Copular predicates: 'Roselyn Sanchez is an actress' asks who is an actress and what Roselyn Sanchez is."""
from __future__ import annotations

from spacy.tokens import Token as SpacyToken

from parser.embedded.questions import VerbInfo, make_question, qa_pair
from parser.embedded.syntax import span_text, subtree_span
from parser.embedded.view import as_view
from parser.embedded.viewbuild import TokenView
from parser.embedded.wordclass import core_wh, filler
from parser.types import PredicateFrame


def copular_frame(be: TokenView | SpacyToken, offset: int, sentence_index: int) -> PredicateFrame | None:
    """_copular_frame for a view's or a spaCy token."""
    return _copular_frame(as_view(be), offset, sentence_index)


def _copular_frame(be: TokenView, offset: int, sentence_index: int) -> PredicateFrame | None:
    """'Roselyn Sanchez is an actress' -> 'Who is an actress?' Roselyn Sanchez / 'What is Roselyn Sanchez?'."""
    subj = next((c for c in be.children if c.dep_ in {"nsubj", "csubj"}), None)
    attr = next((c for c in be.children if c.dep_ in {"attr", "acomp"}), None)
    if subj is None or attr is None or subj.tag_ == "EX":
        return None
    info = VerbInfo("be", past=be.tag_ == "VBD", negated=any(c.dep_ == "neg" for c in be.children))
    frame = PredicateFrame(be.i + offset, be.text, "be", "copular", sentence_index, "AUX")
    doc = be.doc
    s_span, a_span = subtree_span(subj), subtree_span(attr)
    verb_text = be.text.lower() if be.lower_ in {"is", "was", "are", "were"} else ("was" if info.past else "is")
    neg = " not" if info.negated else ""
    q1 = make_question(info, core_wh(subj), obj=filler(attr))
    if q1 is not None and a_span[0] < a_span[1]:
        qa = qa_pair(q1, s_span, doc, offset)
        if qa is not None:
            qa.question = f"{core_wh(subj).capitalize()} {verb_text}{neg} {span_text(doc, a_span)}?"
            frame.qas.append(qa)
    q2 = make_question(VerbInfo("be", modal="might"), "what" if attr.tag_ not in {"JJ", "JJR", "JJS"} else "how", subj=filler(subj))
    if q2 is not None and s_span[0] < s_span[1]:
        qa = qa_pair(q2, a_span, doc, offset)
        if qa is not None:
            qa.question = f"{'What' if q2[0] == 'what' else 'How'} {verb_text}{neg} {span_text(doc, s_span)}?"
            frame.qas.append(qa)
    return frame if frame.qas else None
