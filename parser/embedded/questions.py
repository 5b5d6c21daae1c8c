"""Question text in the 7-slot QA-SRL template, and QA pairs with their answer spans.

The questions copy the predicate's conjugation (voice, tense, modality, negation); every question is checked
against the QA-SRL slot grammar before it is kept, so the backend never emits an invalid one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from spacy.tokens import Doc

from parser import lexicon, qasrl_slots
from parser.embedded import words as W
from parser.embedded.arguments import Arg
from parser.embedded.syntax import NOUN_TAGS, PROPER_TAGS, conj_heads, doc_text, trim
from parser.embedded.viewbuild import TokenView
from parser.types import Answer, QAPair

EMPTY: Final = "_"
SPLIT_KINDS: Final = frozenset({"subj", "obj", "agent", "prep", "obj2"})
CONJUNCT_TAGS: Final = NOUN_TAGS | PROPER_TAGS | {"PRP", "CD"}


@dataclass(frozen=True, slots=True)
class VerbInfo:
    """How the predicate is conjugated in the sentence; the questions copy it."""

    stem: str
    past: bool = False
    modal: str = ""
    perfect: bool = False
    progressive: bool = False
    passive: bool = False
    negated: bool = False
    participle: str = ""  # the sentence's own past participle, when the lexicon's differs (born / borne)

    def __hash__(self) -> int:
        """The hash dataclass would generate (make_question's cache hashes an info per question), written out so
        that it compiles: the generated one runs as Python code."""
        return hash((self.stem, self.past, self.modal, self.perfect, self.progressive, self.passive, self.negated,
                     self.participle))


def aux_and_verb(info: VerbInfo, wh_is_subject: bool) -> tuple[str, str]:
    """The aux and verb slots for `info`; QA-SRL's aux vocabulary is singular (is/was/has/does)."""
    forms = lexicon.verb_forms(info.stem)
    if info.participle:
        forms = replace(forms, past_participle=info.participle)
    neg = info.negated
    not_prefix = ""
    if info.modal:
        aux = info.modal
        if neg:
            if aux in W.NEGATED_AUX:
                aux = W.NEGATED_AUX[aux]
            else:
                not_prefix = "not "
        if info.passive:
            verb = ("have been " if info.perfect else "be being " if info.progressive else "be ") + forms.past_participle
        elif info.perfect:
            verb = ("have been " + forms.present_participle) if info.progressive else ("have " + forms.past_participle)
        elif info.progressive:
            verb = "be " + forms.present_participle
        else:
            verb = forms.stem
        return aux, not_prefix + verb
    if info.perfect:
        aux = "had" if info.past else "has"
        if info.passive:
            verb = "been " + forms.past_participle
        elif info.progressive:
            verb = "been " + forms.present_participle
        else:
            verb = forms.past_participle
        return (W.NEGATED_AUX[aux] if neg else aux), verb
    if info.passive or info.progressive:
        aux = "was" if info.past else "is"
        if info.passive:
            verb = ("being " if info.progressive else "") + forms.past_participle
        else:
            verb = forms.present_participle
        return (W.NEGATED_AUX[aux] if neg else aux), verb
    if wh_is_subject and not neg:
        return EMPTY, forms.past if info.past else forms.present3
    aux = "did" if info.past else "does"
    return (W.NEGATED_AUX[aux] if neg else aux), forms.stem


def make_question(
    info: VerbInfo, wh: str, subj: str = EMPTY, obj: str = EMPTY, prep: str = EMPTY, obj2: str = EMPTY
) -> tuple[str, ...] | None:
    """7 slots for a question, or None when the combination is not a valid QA-SRL question.

    Pure, and the same few thousand questions recur: cached in a plain dict (capped), which compiled callers
    reach by a direct call; an lru_cache wrapper was called as an object, with a keyword dict, per question."""
    key = (info, wh, subj, obj, prep, obj2)
    found = _QUESTIONS.get(key, _MISSING)
    if found is not _MISSING:
        return found
    aux, verb = aux_and_verb(info, wh_is_subject=subj == EMPTY)
    slots = (wh, aux, subj, verb, obj, prep, obj2)
    found = slots if qasrl_slots.is_valid(slots) else None
    if len(_QUESTIONS) >= _QUESTIONS_CAP:
        _QUESTIONS.clear()
    _QUESTIONS[key] = found
    return found


_QUESTIONS: Final[dict[tuple[VerbInfo, str, str, str, str, str], tuple[str, ...] | None]] = {}
_QUESTIONS_CAP: Final = 1 << 16
_MISSING: Final[tuple[str, ...]] = ("not cached",)


def qa_pair(slots: tuple[str, ...] | None, span: tuple[int, int], doc: Doc, offset: int) -> QAPair | None:
    """The QA for a question and its answer span (sentence-relative; `offset` makes it global)."""
    if slots is None or span[0] >= span[1]:
        return None
    start, end = span
    last = doc[end - 1]
    text = doc_text(doc)[doc[start].idx : last.idx + len(last.text)]
    rendered = _RENDERED.get(slots)
    if rendered is None:
        if len(_RENDERED) >= _RENDERED_CAP:
            _RENDERED.clear()
        rendered = _RENDERED[slots] = (qasrl_slots.render(slots), qasrl_slots.role_of(slots))
    return QAPair(slots, rendered[0], [Answer(start + offset, end + offset, text)], rendered[1])


# slots -> (question text, role): the same few thousand questions recur in every document
_RENDERED: Final[dict[tuple[str, ...], tuple[str, str]]] = {}
_RENDERED_CAP: Final = 1 << 16


def conjunct_spans(span: tuple[int, int], head: TokenView | None) -> list[tuple[int, int]]:
    """A coordinated noun phrase as one span per conjunct ("A, B and C" answers the question three times)."""
    if head is None or head.tag_ not in CONJUNCT_TAGS or head.i not in conj_heads(head.doc):
        return [span]
    heads = [head]
    i = 0
    while i < len(heads):
        heads.extend(c for c in heads[i].children if c.dep_ == "conj" and c.tag_ in CONJUNCT_TAGS)
        i += 1
    heads = sorted({h.i: h for h in heads if span[0] <= h.i < span[1]}.values(), key=lambda h: h.i)
    if len(heads) < 2:
        return [span]
    doc = head.doc
    out = []
    for k, h in enumerate(heads):
        start = span[0] if k == 0 else h.left_edge.i
        end = heads[k + 1].left_edge.i if k + 1 < len(heads) else span[1]
        piece = trim(doc, start, end)
        if piece[0] < piece[1]:
            out.append(piece)
    return out or [span]


def answer_spans(arg: Arg) -> list[tuple[int, int]]:
    """The answer spans of an argument: one per conjunct for core arguments and nominal adjunct PPs, and the
    pronoun beside its antecedent (QANom answers list both mentions: "he ~!~ Adams")."""
    spans = conjunct_spans(arg.span, arg.head) if arg.kind in SPLIT_KINDS or arg.rule.startswith("pp_adj") else [arg.span]
    if arg.mention is not None and arg.mention not in spans:
        spans.append(arg.mention)
    return spans


def split_conjuncts(qa: QAPair, arg: Arg, doc: Doc, offset: int) -> None:
    """Answer a core question once per conjunct of a coordinated noun phrase (and per mention, see answer_spans)."""
    pieces = answer_spans(arg)
    if len(pieces) > 1:
        text = doc_text(doc)
        qa.answers = [Answer(a + offset, b + offset, text[doc[a].idx : doc[b - 1].idx + len(doc[b - 1].text)])
                      for a, b in pieces]


def add_qas(frame_qas: list[QAPair], questions: list[tuple[tuple[str, ...] | None, Arg]], doc: Doc, offset: int) -> None:
    """Append each (question, argument) as a QA, core answers split per conjunct."""
    for slots, arg in questions:
        qa = qa_pair(slots, arg.span, doc, offset)
        if qa is not None:
            split_conjuncts(qa, arg, doc, offset)
            frame_qas.append(qa)
