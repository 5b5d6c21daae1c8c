"""Verbal predicates: the verb's conjugation, its arguments (own dependents and the controlling clause's), QAs."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from typing import Final

from spacy.tokens import Doc
from spacy.tokens import Token as SpacyToken

from parser import lexicon, qasrl_slots
from parser.embedded import words as W
from parser.embedded.arguments import (
    Arg,
    adverbial_argument,
    adverbial_clause,
    antecedent,
    clause_adjunct,
    find_subject,
    governor,
    prep_argument,
)
from parser.embedded.linear import DATA_DIR, LinearModel, ModelUnavailable, load_linear
from parser.embedded.questions import EMPTY, VerbInfo, add_qas, answer_spans, conjunct_spans, make_question
from parser.embedded.scoring import interned, model_weights, probability, round4, weighted_sum
from parser.embedded.syntax import (
    AUX_DEPS,
    RELATIVE_WORDS,
    SUBJ_DEPS,
    VERB_TAGS,
    covers,
    doc_text,
    first_child,
    np_antecedent,
    subtree_span,
    trim,
    without,
)
from parser.embedded.view import as_view
from parser.embedded.viewbuild import TokenView
from parser.embedded.wordclass import core_wh, filler, is_person, is_time
from parser.types import Answer, PredicateFrame, QAPair

PRECISION_PATH: Final = DATA_DIR / "verbal_precision.json"
INHERIT_ADJUNCTS: Final = True
INHERIT_DEPS: Final = frozenset({"xcomp", "conj", "advcl"})
INHERIT_WH: Final = frozenset({"when", "where", "why"})
Question = tuple[tuple[str, ...] | None, Arg]


def is_verbal_predicate(tok: TokenView | SpacyToken) -> bool:
    """_is_verbal_predicate for a view's or a spaCy token (the T5 backend)."""
    return _is_verbal_predicate(as_view(tok))


def _is_verbal_predicate(tok: TokenView) -> bool:
    """A verb that heads its own frame: not an auxiliary, not a form of 'be' (copular frames handle those)."""
    if tok.tag_ not in VERB_TAGS or tok.dep_ in AUX_DEPS or not tok.is_alpha:
        return False
    stem = lexicon.verb_stem(tok.lower_, tok.tag_)
    return stem != "be" and lexicon.is_known_verb(stem)


# ------------------------------------------------------------------------------------------------ conjugation


def own_aux(v: TokenView) -> list[TokenView]:
    return [c for c in v.children if c.dep_ in AUX_DEPS and c.i < v.i]


@dataclass(slots=True)
class _Tense:
    modal: str = ""
    perfect: bool = False
    progressive: bool = False
    passive: bool = False
    past: bool = False
    finite_seen: bool = False


def _read_auxiliaries(v: TokenView, auxes: list[TokenView], t: _Tense) -> None:
    """Modality, perfect, progressive, passive and tense from the auxiliaries, in order."""
    for a in auxes:
        low = a.lower_
        if a.tag_ == "MD" or low in W.MODAL_MAP and a.tag_ not in {"VBP", "VBZ", "VBD"}:
            t.modal = t.modal or W.MODAL_MAP.get(low, "might")
            t.finite_seen = True
        elif low == "to":
            t.modal = t.modal or "might"
        else:
            a_stem = lexicon.verb_stem(low, a.tag_)
            if not t.finite_seen and a.tag_ in {"VBD", "VBZ", "VBP"}:
                t.past = a.tag_ == "VBD"
                t.finite_seen = True
            if a_stem == "have":
                t.perfect = True
            elif a_stem == "be":
                if a.dep_ == "auxpass" or v.tag_ == "VBN":
                    t.passive = True
                else:
                    t.progressive = t.progressive or v.tag_ == "VBG"
            elif a_stem == "get" and v.tag_ == "VBN":
                t.passive = True


def verb_info(v: TokenView, stem: str) -> VerbInfo:
    auxes = own_aux(v)
    if not auxes and v.dep_ == "conj" and v.tag_ in {"VBN", "VBG"} and v.head.tag_ == v.tag_:
        auxes = own_aux(v.head)
    deps = {c.dep_ for c in v.children}  # one pass over the children for both checks
    negated = "neg" in deps
    t = _Tense(past=v.tag_ == "VBD")
    _read_auxiliaries(v, auxes, t)
    if "nsubjpass" in deps or "csubjpass" in deps:
        t.passive = True
    if v.tag_ == "VBN" and not auxes and v.dep_ in {"acl", "amod", "advcl", "conj", "xcomp", "ccomp", "oprd",
                                                     "prep", "pcomp", "advmod", "npadvmod", "relcl", "parataxis"}:
        t.passive = v.dep_ != "conj" or _passive_head(v)  # a bare past participle is passive ("given by P")
    if v.tag_ == "VBG" and not auxes:
        t.progressive = True
    if not t.finite_seen and not t.modal:
        _tense_from_governor(v, auxes, t)
    if v.tag_ == "VBN" and t.perfect and not t.passive:
        t.progressive = False
    participle = v.lower_ if v.tag_ == "VBN" and v.lower_ in lexicon.ALTERNATE_PARTICIPLES else ""
    key = (stem, t.past, t.modal, t.perfect, t.progressive and not t.passive, t.passive, negated, participle)
    info = _INFOS.get(key)
    if info is None:  # a frozen dataclass sets each field through object.__setattr__: the same few recur
        if len(_INFOS) >= _INFOS_CAP:
            _INFOS.clear()
        info = _INFOS[key] = VerbInfo(*key)
    return info


_INFOS: Final[dict[tuple[str, bool, str, bool, bool, bool, bool, str], VerbInfo]] = {}
_INFOS_CAP: Final = 1 << 16


def _tense_from_governor(v: TokenView, auxes: list[TokenView], t: _Tense) -> None:
    """A non-finite verb takes its tense from the clause it belongs to; bare infinitives read as 'might'."""
    gov = governor(v)
    if gov is not None:
        t.past = gov.tag_ == "VBD" or any(a.tag_ == "VBD" for a in own_aux(gov))
    if v.tag_ == "VB" and not any(a.lower_ in {"do", "does", "did"} for a in auxes) and v.dep_ != "ROOT":
        t.modal = "might" if v.dep_ in {"xcomp", "advcl", "acl", "relcl", "ccomp", "conj", "pcomp"} else ""


def _passive_head(v: TokenView) -> bool:
    head = v.head
    return any(c.dep_ == "auxpass" for c in head.children) or head.dep_ in {"acl", "amod"}


# ------------------------------------------------------------------------------------------------ arguments


@dataclass(slots=True)
class _VerbArgs:
    """The arguments collected from a verb's dependents, in order, and whether it has a direct object."""

    v: TokenView
    args: list[Arg] = field(default_factory=list)
    has_obj: bool = False
    particle: str = ""

    def add(self, arg: Arg | None, is_obj: bool = False) -> None:
        if arg is not None:
            self.args.append(arg)
            self.has_obj = self.has_obj or is_obj

    def prt(self, c: TokenView) -> None:
        self.particle = c.lower_

    def direct_object(self, c: TokenView) -> None:
        if c.tag_ in {"EX"}:
            return
        v = self.v
        if c.lower_ in RELATIVE_WORDS and v.dep_ == "relcl":
            self.add(Arg("obj", np_antecedent(v.head, v), v.head), is_obj=True)
        else:
            self.add(Arg("obj", subtree_span(c), c), is_obj=True)

    def dative(self, c: TokenView) -> None:
        if c.tag_ == "IN" and any(g.dep_ == "pobj" for g in c.children):
            pobj = next(g for g in c.children if g.dep_ == "pobj")
            self.add(Arg("prep", subtree_span(pobj), pobj, core_wh(pobj), c.lower_))
        else:
            self.add(Arg("obj2", subtree_span(c), c, core_wh(c), "to"))

    def ccomp(self, c: TokenView) -> None:
        doc = self.v.doc
        span = subtree_span(c)
        if span[0] < span[1] and doc[span[0]].dep_ == "mark" and doc[span[0]].lower_ in {"that", "whether", "if"}:
            span = (span[0] + 1, span[1])
        if span[0] < span[1] and not (span[0] <= self.v.i < span[1]):
            self.add(Arg("obj", span, None, "what"), is_obj=True)

    def xcomp(self, c: TokenView) -> None:
        v = self.v
        span = subtree_span(c)
        if c.tag_ in VERB_TAGS:
            purpose = (
                any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children)
                and lexicon.verb_stem(v.lower_, v.tag_) not in W.INFINITIVE_TAKERS
            )
            # "were carried to reclining chairs to help them": a purpose, not what was carried
            self.add(Arg("adj", span, c, "why") if purpose else Arg("xcomp", span, c, "what"))
        elif c.tag_ in {"JJ", "JJR", "JJS", "RB"}:
            self.add(Arg("adj", span, c, "how"))
        else:
            self.add(Arg("obj", span, c, "what"), is_obj=True)

    def complement(self, c: TokenView) -> None:
        span = subtree_span(c)
        self.add(Arg("adj", span, c, "how") if c.tag_.startswith("JJ") else Arg("obj2", span, c, "what"))

    def agent(self, c: TokenView) -> None:
        pobj = first_child(c, "pobj")
        if pobj is not None:
            self.add(Arg("agent", subtree_span(pobj), pobj, core_wh(pobj)))

    def prep(self, c: TokenView) -> None:
        self.add(prep_argument(self.v, c))

    def adverb(self, c: TokenView) -> None:
        self.add(adverbial_argument(c))

    def advcl(self, c: TokenView) -> None:
        self.add(adverbial_clause(c))

    def pobj(self, c: TokenView) -> None:
        if self.v.dep_ == "prep":  # participles used as prepositions ("including X", "according to X")
            self.add(Arg("obj", subtree_span(c), c), is_obj=True)


_HANDLERS: Final[dict[str, Callable[[_VerbArgs, TokenView], None]]] = {
    "prt": _VerbArgs.prt,
    "dobj": _VerbArgs.direct_object,
    "attr": _VerbArgs.direct_object,
    "dative": _VerbArgs.dative,
    "ccomp": _VerbArgs.ccomp,
    "xcomp": _VerbArgs.xcomp,
    "acomp": _VerbArgs.complement,
    "oprd": _VerbArgs.complement,
    "agent": _VerbArgs.agent,
    "prep": _VerbArgs.prep,
    "advmod": _VerbArgs.adverb,
    "npadvmod": _VerbArgs.adverb,
    "tmod": _VerbArgs.adverb,
    "advcl": _VerbArgs.advcl,
    "pobj": _VerbArgs.pobj,
}


def verbal_arguments(v: TokenView) -> tuple[list[Arg], bool]:
    """The arguments of a verb, and whether it has a direct object (the questions mention it then)."""
    found = _VerbArgs(v)
    subj = find_subject(v)
    if subj is not None and subj[0][0] < subj[0][1] and not (subj[0][0] <= v.i < subj[0][1]):
        found.add(Arg("subj", subj[0], subj[1], rule=_subject_rule(v, subj[1])))
        _add_antecedent(found.args[-1], v)
    for c in v.children:
        handler = _HANDLERS.get(c.dep_)
        if handler is not None:
            before = len(found.args)
            handler(found, c)
            for arg in found.args[before:]:
                arg.rule = arg.rule or c.dep_
    if INHERIT_ADJUNCTS and v.dep_ in INHERIT_DEPS and v.head.tag_ in VERB_TAGS:
        before = len(found.args)
        _inherit_adjuncts(v, found.args)
        for arg in found.args[before:]:
            arg.rule = "inherit"
    if not found.has_obj:
        _shared_object(v, found)
    if not found.has_obj:
        before = len(found.args)
        _quoted_clause(v, found)
        for arg in found.args[before:]:
            arg.rule = "quote"
    if found.particle:
        for arg in found.args:
            if arg.kind == "obj":
                arg.prep = found.particle
    # only a one-word argument may be a bare relative word (_resolve_relative): the others pass as they are
    resolved = [a if a.span[1] - a.span[0] != 1 else _resolve_relative(a, v) for a in found.args]
    return [a for a in resolved if a is not None], found.has_obj


def _add_antecedent(arg: Arg, v: TokenView) -> None:
    """A pronoun argument answers beside the noun phrase it stands for: QA-SRL GS annotators often give the
    antecedent ("Who collapsed?" -> "the Zambian President" for "he"); the scorer weighs that second answer."""
    head = arg.head
    if head is None or head.tag_ != "PRP" or arg.span[1] - arg.span[0] != 1:
        return
    found = antecedent(head)
    if found is not None and not (found[0][0] <= v.i < found[0][1]):
        arg.mention = found[0]


def _subject_rule(v: TokenView, head: TokenView) -> str:
    """How the subject was found: the verb's own dependent, or taken from the clause around it (and how)."""
    if head.head.i == v.i and head.dep_ in SUBJ_DEPS:  # spaCy builds a new Token per access: compare indices
        return "subj"
    if v.dep_ == "relcl" and head.i == v.head.i:
        return "subj_relcl"
    return f"subj_from_{v.dep_}"


def _resolve_relative(arg: Arg, v: TokenView) -> Arg | None:
    """A bare relative word answers nothing ("which"): the noun its clause modifies does, or no one."""
    start, end = arg.span
    if end - start != 1:
        return arg
    word = v.doc[start]
    if word.lower_ not in RELATIVE_WORDS or word.tag_ not in {"WDT", "WP", "WP$"}:
        return arg
    clause = word.head
    for _ in range(4):
        if clause.dep_ == "relcl" and clause.head is not clause:
            span = np_antecedent(clause.head, clause)
            if span[0] < span[1] and not span[0] <= v.i < span[1]:
                return replace(arg, span=span, head=clause.head)
            return None
        if clause.head.i == clause.i:
            break
        clause = clause.head
    return None


def _inherit_adjuncts(v: TokenView, args: list[Arg]) -> None:
    """Verbs in a chain (xcomp, conjoined verbs) share the head clause's time, place and reason."""
    covered = {a.wh for a in args if a.kind == "adj"}
    for c in v.head.children:
        if c.i == v.i or c.dep_ not in {"prep", "advmod", "npadvmod", "advcl"} or covers(c, v.i):
            continue
        arg = clause_adjunct(v.head, c)
        if arg is not None and arg.kind == "adj" and arg.wh in INHERIT_WH and arg.wh not in covered:
            args.append(arg)


def _shared_object(v: TokenView, found: _VerbArgs) -> None:
    """Coordinated verbs share the last one's object ("the Gliders met and defeated Mexico": Mexico was met)."""
    if v.tag_ not in {"VBD", "VBZ", "VBP", "VB", "VBN"} or any(c.dep_ in {"prep", "ccomp", "xcomp", "dative"} for c in v.children):
        return
    for c in v.children:
        if c.dep_ == "conj" and c.tag_ == v.tag_ and c.i > v.i and not any(g.dep_ in SUBJ_DEPS for g in c.children):
            obj = first_child(c, "dobj")
            if obj is not None and obj.lower_ not in RELATIVE_WORDS and c.left_edge.i == c.i:
                found.add(Arg("obj", subtree_span(obj), obj, rule="shared_obj"), is_obj=True)
            return


def _quoted_clause(v: TokenView, found: _VerbArgs) -> None:
    """A quote's "he said": the quoted clause is what was said."""
    if v.dep_ in {"parataxis", "ccomp", "conj"} and lexicon.verb_stem(v.lower_, v.tag_) in W.SAY_VERBS:
        head = v.head
        if head.tag_ in VERB_TAGS:
            span = without(head, v)
            if span[0] < span[1]:
                found.add(Arg("obj", span, None, "what"), is_obj=True)


# ------------------------------------------------------------------------------------------------ questions


@lru_cache(maxsize=4096)
def _active(info: VerbInfo) -> VerbInfo:
    """The active twin of a passive conjugation (the agent's question), cached: dataclasses.replace is slow."""
    return replace(info, passive=False)


def questions_for(info: VerbInfo, args: list[Arg], has_obj: bool) -> list[Question]:
    """One question per argument, phrased with the other core arguments as someone/something."""
    subj = obj = None
    for a in args:  # the first subject and the first object, in one pass
        if a.kind == "subj":
            if subj is None:
                subj = a
        elif a.kind == "obj" and obj is None:
            obj = a
    subj_fill = filler(subj.head) if subj else "someone"
    obj_fill = filler(obj.head) if obj and obj.head is not None else "something"
    own_obj = obj_fill if has_obj and not info.passive else EMPTY
    active = _active(info) if info.passive else info  # replace() is slow; most verbs are active
    out: list[Question] = []
    for a in args:
        wh = a.wh or (core_wh(a.head) if a.head is not None else "what")
        if a.kind == "subj":
            q = make_question(info, wh, obj=own_obj)
        elif a.kind == "agent":
            q = make_question(active, wh, obj=filler(subj.head) if subj else "something")
        elif a.kind == "obj":
            q = make_question(info, wh, subj=subj_fill, prep=a.prep if a.prep else EMPTY)
            if q is None:
                q = make_question(info, wh, subj=subj_fill)
        elif a.kind == "obj2":
            q = _second_object_question(info, wh, a, subj_fill, own_obj)
        elif a.kind == "xcomp":
            q = make_question(info, "what", subj=subj_fill, obj2="to do")
        elif a.kind == "prep":
            q = make_question(info, wh, subj=subj_fill, obj=own_obj, prep=a.prep)
        else:  # adjuncts
            q = make_question(info, wh, subj=subj_fill, obj=own_obj)
        out.append((q, a))
    return out


def _second_object_question(info: VerbInfo, wh: str, a: Arg, subj_fill: str, base_obj: str) -> tuple[str, ...] | None:
    prep = a.prep if base_obj != EMPTY else EMPTY
    q = make_question(info, wh, subj=subj_fill, obj=base_obj if base_obj != EMPTY else "something", prep=prep)
    if q is None:
        q = make_question(info, wh, subj=subj_fill, obj=base_obj)
    return q


def dedupe(args: list[Arg], predicate: int) -> list[Arg]:
    seen: set[tuple[int, int]] = set()
    kept = []
    for a in args:
        if a.span in seen or a.span[0] >= a.span[1] or a.span[0] <= predicate < a.span[1]:
            continue
        seen.add(a.span)
        kept.append(a)
    return kept


# Sentence connectives the adverb and PP rules read as when/where/how adjuncts ("Yet , the government tried",
# "In other words , ..."): they link the sentence to the one before and answer no question about the verb
# (on QA-SRL GS wikipedia dev 4 of the 34 answers these words make matched gold, "then" 0 of 7)
CONNECTIVES: Final = frozenset(
    """then still yet otherwise furthermore moreover however therefore thus hence henceforth nevertheless
    nonetheless instead conversely indeed consequently accordingly additionally likewise similarly besides
    anyway alternatively notably namely traditionally typically""".split())
CONNECTIVE_PHRASES: Final = frozenset(
    """in addition|in other words|for example|for instance|in fact|in particular|in contrast|by contrast|of course|
    in turn|on the other hand|in general|in short|in summary|in any case|as well|at least""".replace("\n    ", "").split("|"))


_CONNECTIVE_FIRST: Final = frozenset(p.split()[0] for p in CONNECTIVE_PHRASES)


def _is_connective(doc: Doc, span: tuple[int, int]) -> bool:
    start, end = span
    n = end - start
    if n == 1:
        return doc[start].lower_ in CONNECTIVES
    if n > 4 or doc[start].lower_ not in _CONNECTIVE_FIRST:  # most adjuncts: one look at the first word
        return False
    return " ".join(doc[i].lower_ for i in range(start, end)) in CONNECTIVE_PHRASES


def question_class(slots: tuple[str, ...], role: str) -> str:
    """The class a verbal QA's measured precision is kept under: wh-word and role ("who:R0", "when:when")."""
    return f"{slots[0]}:{role}"


@cache
def _precision_table() -> dict[str, float]:
    """Measured precision per question class (parser/training/measure_verbal_precision.py); empty if absent."""
    try:
        return {str(k): float(v) for k, v in json.loads(PRECISION_PATH.read_text(encoding="utf-8"))["precision"].items()}
    except (OSError, ValueError, KeyError):
        return {}


def qa_confidence(qa: QAPair) -> float:
    """How often QAs of this class were right on QA-SRL GS (wikipedia dev, IOU 0.5); 1.0 when never measured."""
    return _class_confidence(qa.raw_question[0], qa.role)


@lru_cache(maxsize=4096)
def _class_confidence(wh: str, role: str) -> float:
    table = _precision_table()
    for key in (f"{wh}:{role}", f"role:{role}", "all"):
        if key in table:
            return table[key]
    return 1.0


VERBAL_ARGUMENT_FEATURE_VERSION: Final = 1
ARGUMENT_MODEL_PATH: Final = DATA_DIR / "verbal_arguments.json"
_FUNCTION_TAGS: Final = frozenset({"DT", "IN", "TO", "WDT", "WP", "WRB", "PRP", "PRP$", "CC", "RB", "EX", "MD", "PDT"})
Candidate = tuple[QAPair, list[list[str]]]


def _bucket(n: int) -> str:
    return _BUCKETS[n] if 0 <= n < 9 else str(n) if n < 3 else "9"


_BUCKETS: Final = ("0", "1", "2", "3", "3", "5", "5", "5", "5")  # what the comparisons give for 0..8


def _verb_context(v: TokenView, info: VerbInfo, stem: str, has_obj: bool) -> tuple[str, ...]:
    """Features every argument of the verb shares: its relation, tag, voice and lemma."""
    return (f"vdep={v.dep_}", f"vtag={v.tag_}", f"voice={'pass' if info.passive else 'act'}", f"v={stem}",
            f"hasobj={has_obj}", f"modal={bool(info.modal)}")


def argument_features(v: TokenView, arg: Arg, span: tuple[int, int], pieces: int, cls: str,
                      voice: str) -> list[str]:
    """Features of one answer span of a verbal QA: the rule that found it, its question class and where it
    lies, for the scorer trained on QA-SRL GS (parser/training/train_verbal_arguments.py); the verb's own
    features (`_verb_context`) are added once per verb. Spans are sentence-relative token indices of `v.doc`;
    only a few tokens are read (this runs for every answer)."""
    rule = arg.rule or arg.kind
    doc = v.doc
    start, end = span
    first, last = doc[start], doc[end - 1]
    vi = v.i
    side = "R" if start > vi else "L"
    gap = start - vi if start > vi else vi - end + 1
    length = _bucket(end - start)
    key = (rule, cls, v.dep_, voice)
    prefix = _PREFIXES.get(key)
    if prefix is None:  # the parts that depend only on the rule, the question class and the verb: few, recurring
        prefix = _PREFIXES[key] = interned(("bias", f"r={rule}", f"cls={cls}", f"r_cls={rule}:{cls}",
                                            f"r_vdep={rule}:{v.dep_}", f"r_voice={rule}:{voice}"))
    first_label = first.lower_ if first.tag_ in _FUNCTION_TAGS else first.tag_
    skey = (rule, cls, length, side, _bucket(gap), first_label, last.tag_)
    where = _SPAN_PARTS.get(skey)
    if where is None:  # the span's parts: also few label tuples (buckets, tags), built once each
        if len(_SPAN_PARTS) >= _PARTS_CAP:
            _SPAN_PARTS.clear()
        where = _SPAN_PARTS[skey] = interned((f"len={rule}:{length}", f"dist={rule}:{side}{skey[4]}",
                                              f"first={rule}:{first_label}", f"last={last.tag_}",
                                              f"r_last={rule}:{last.tag_}", f"cls_len={cls}:{length}"))
    feats = [*prefix, *where]
    head = arg.head
    if head is not None:
        htag = head.tag_
        hclass = "person" if is_person(head) else "time" if is_time(head) else "other"
        hkey = (rule, cls, htag, head.dep_, hclass, head.lower_ if htag in _FUNCTION_TAGS else None)
        part = _HEAD_PARTS.get(hkey)
        if part is None:
            part = _HEAD_PARTS[hkey] = interned((f"htag={rule}:{htag}", f"hdep={rule}:{head.dep_}", f"hclass={cls}:{hclass}",
                                                 *((f"hword={rule}:{hkey[5]}",) if hkey[5] is not None else ())))
        feats += part
    if span == arg.mention:
        feats += ["mention", f"mention={rule}:{first.tag_}"]
    elif pieces > 1:
        feats += [f"conj={rule}", f"conj_n={_bucket(pieces)}"]
    if arg.prep != EMPTY:
        feats.append(f"prep={rule}:{arg.prep}")
    return feats


# argument_features' parts that depend only on a few labels, built once per label tuple (the strings are the
# same; building ~12 f-strings per answer was a tenth of the rule time); interned, as the models'
# feature names are (scoring.interned: their lookups compare pointers, not characters)
_PREFIXES: Final[dict[tuple[str, str, str, str], tuple[str, ...]]] = {}
_HEAD_PARTS: Final[dict[tuple[str, str, str, str, str, str | None], tuple[str, ...]]] = {}
_SPAN_PARTS: Final[dict[tuple[str, str, str, str, str, str, str], tuple[str, ...]]] = {}
_PARTS_CAP: Final = 1 << 16


def _head_class(head: TokenView) -> str:
    """'time' or 'other' (is_time caches per token)."""
    return "time" if is_time(head) else "other"


@dataclass(slots=True)
class Split:
    """One way to cut a verbal answer in two at a dependent that ends it ("in the middle of the century | in
    Egypt", "a key role | in semiotics"): the head part replaces the answer, the dependent becomes a second
    answer (its own QA when it is a PP the verb could take, else another answer of the same QA)."""

    qa: int  # index of the QA among the verb's candidates
    span: tuple[int, int]  # the answer before the cut, sentence-relative like the parts
    head: tuple[int, int]
    rest: tuple[int, int]
    rest_slots: tuple[str, ...] | None  # the cut-off PP's own question (None: another answer of the same QA)
    features: list[str]


# not relative clauses or participles: "who died in 2005" answers no question about the verb (it only overlaps
# gold's whole noun phrase); cutting them gained 0.0024 CV F1 on wikipedia, through that overlap
SPLIT_DEPS: Final = frozenset({"prep", "appos", "conj", "advcl", "npadvmod"})
_CLOSING_TAGS: Final = frozenset({".", ",", ":", "-RRB-", "''"})


def _split_root(arg: Arg, span: tuple[int, int]) -> TokenView | None:
    """The token of the span whose head lies outside it (the argument's head, or the PP's preposition)."""
    tok = arg.head
    if tok is None:
        return None
    for _ in range(6):
        head = tok.head
        if head.i == tok.i or not span[0] <= head.i < span[1]:
            return tok
        tok = head
    return tok


def _splits(v: TokenView, info: VerbInfo, has_obj: bool, qi: int, qa: QAPair, arg: Arg, cls: str,
            offset: int, asked: set[str]) -> list[Split]:
    """The cuts of a single-answer QA's span at a right dependent of its root that reaches the span's end."""
    span = (qa.answers[0].start - offset, qa.answers[0].end - offset)
    if span[1] - span[0] < 3:
        return []
    root = _split_root(arg, span)
    if root is None:
        return []
    doc = v.doc
    end = span[1] - 1
    if doc[end].tag_ in _CLOSING_TAGS:  # a stop or closing bracket may end the span
        end -= 1
    c = doc[end]  # the root's dependent that ends the span: climb from the span's last word
    ri = root.i
    for _ in range(8):
        up = c.head
        if up.i == ri or up.i == c.i or not span[0] <= up.i < span[1]:
            break
        c = up
    dep = c.dep_
    if c.head.i != ri or c.i <= ri or dep not in SPLIT_DEPS or dep == "prep" and c.lower_ == "of":
        return []  # "a piece of X": an of-phrase was never worth cutting on wikipedia dev (1 in 226 passed)
    left = c.left_edge.i
    head, rest = trim(doc, span[0], left), trim(doc, left, span[1])
    if head[0] >= head[1] or rest[0] >= rest[1]:
        return []
    rule = arg.rule or arg.kind
    rest_slots = None
    word = c.lower_ if dep == "prep" else dep
    feats = ["bias", f"dep={dep}", f"w={word}", f"rule={rule}", f"cls={cls}", f"rule_w={rule}:{word}",
             f"cls_w={cls}:{word}", f"rtag={root.tag_}", f"rtag_w={root.tag_}:{word}",
             f"hlen={_bucket(head[1] - head[0])}", f"rlen={_bucket(rest[1] - rest[0])}",
             f"comma={doc[head[1]].tag_ == ','}", f"side={'R' if head[0] > v.i else 'L'}"]
    if dep == "prep":
        pp = prep_argument(v, c)
        if pp is None:
            return []
        rest_slots = questions_for(info, [pp], has_obj)[0][0]
        if rest_slots is None or pp.span[0] >= pp.span[1] or len(answer_spans(pp)) != 1:
            return []
        rest = pp.span
        pcls = question_class(rest_slots, qasrl_slots.role_of(rest_slots))
        ptag = pp.head.tag_ if pp.head is not None else "none"
        asked_too = rest_slots[0] in asked  # the verb has another answer to the same wh-word
        feats += [f"pcls={pcls}", f"w_pcls={word}:{pcls}", f"ptag={word}:{ptag}", f"cls_pcls={cls}:{pcls}",
                  f"asked={asked_too}", f"asked_pcls={pcls}:{asked_too}",
                  f"pclass={_head_class(pp.head) if pp.head is not None else 'none'}"]
    return [Split(qi, span, head, rest, rest_slots, feats)]


def candidate_qas(v: TokenView | SpacyToken, offset: int, splits: list[Split] | None = None,
                  stem: str | None = None) -> tuple[list[Candidate], tuple[str, ...]]:
    """_candidate_qas for a view's or a spaCy token (training)."""
    return _candidate_qas(as_view(v), offset, splits, stem)


def _candidate_qas(v: TokenView, offset: int, splits: list[Split] | None = None,
                  stem: str | None = None) -> tuple[list[Candidate], tuple[str, ...]]:
    """Every QA the rules ask about verb `v` with the features of each of its answers, and the features the
    verb's answers share (an answer's full feature set is both; training reads these). With `splits`, the ways
    to cut each single-answer QA's span in two are appended to it (see Split); `stem`: the verb's, when known."""
    if stem is None:
        stem = lexicon.verb_stem(v.lower_, v.tag_)
    info = verb_info(v, stem)
    args, has_obj = verbal_arguments(v)
    args = [a for a in dedupe(args, v.i) if not (a.kind == "adj" and _is_connective(v.doc, a.span))]
    context = _verb_context(v, info, stem, has_obj)
    voice = "pass" if info.passive else "act"
    out: list[Candidate] = []
    single: list[tuple[int, QAPair, Arg, str]] = []
    for slots, arg in questions_for(info, args, has_obj):
        qas: list[QAPair] = []
        add_qas(qas, [(slots, arg)], v.doc, offset)
        rdeps = (() if arg.kind not in APPOSITIVE_KINDS or arg.head is None or not arg.head.n_rights
                 else [c.dep_ for c in arg.head.rights])  # most arguments have no right dependent to look at
        for qa in qas:
            cls = question_class(qa.raw_question, qa.role)
            listed = _example_list(arg, v) if "prep" in rdeps and len(qa.answers) == 1 else []
            if listed:
                qa.answers = [_answer(v.doc, sp, offset) for sp in listed]
                feats = [argument_features(v, arg, sp, len(listed), cls, voice) + (["example"] if k else [])
                         for k, sp in enumerate(listed)]
            else:
                feats = [argument_features(v, arg, (a.start - offset, a.end - offset), len(qa.answers), cls, voice)
                         for a in qa.answers]
            aside = _appositive(arg, v) if "appos" in rdeps else None
            if aside is not None and all((a.start - offset, a.end - offset) != aside for a in qa.answers):
                feats.append([*argument_features(v, arg, aside, 1, cls, voice), "appos", f"appos={arg.rule or arg.kind}"])
                qa.answers.append(_answer(v.doc, aside, offset))
            if splits is not None and len(qa.answers) == 1 and qa.answers[0].end - qa.answers[0].start >= 3:
                single.append((len(out), qa, arg, cls))  # only a single answer may be cut in two (Split)
            out.append((qa, feats))
    if single and splits is not None:
        asked = {qa.raw_question[0] for qa, _ in out}
        for qi, qa, arg, cls in single:
            splits += _splits(v, info, has_obj, qi, qa, arg, cls, offset, asked)
    # verb-level: how many answers the rules found for it and how long its sentence is (busy verbs in long
    # sentences are parsed worse); shared by every answer of the verb, so free at parse time
    context = (*context, f"nans={_bucket(sum(len(qa.answers) for qa, _ in out))}", f"slen={_bucket(len(v.sent) // 5)}")
    return out, context


def _example_list(arg: Arg, v: TokenView) -> list[tuple[int, int]]:
    """A noun phrase with a list of examples ("marine animals such as corals , clams and oysters", "other
    animals , including pigs and horses") as the phrase before the list and each listed item."""
    head = arg.head
    if head is None or arg.kind not in APPOSITIVE_KINDS or not head.n_rights:
        return []
    for c in head.rights:
        if c.dep_ == "prep" and (c.lower_ in {"including", "like"} or c.lower_ == "as" and any(g.lower_ == "such" for g in c.lefts)):
            pobj = first_child(c, "pobj")
            if pobj is None:
                return []
            doc = v.doc
            cut = c.left_edge.i
            first = trim(doc, arg.span[0], min(arg.span[1], cut))
            items = conjunct_spans(subtree_span(pobj), pobj)
            spans = [first, *items] if first[0] < first[1] else items
            if any(sp[0] <= v.i < sp[1] for sp in spans):
                return []
            return spans
    return []


APPOSITIVE_KINDS: Final = frozenset({"subj", "obj", "agent", "prep", "obj2"})


def _appositive(arg: Arg, v: TokenView) -> tuple[int, int] | None:
    """The appositive the argument's noun phrase was cut before ("Henry Ford , the automobile magnate ,"): QA-SRL
    GS annotators give it as a second answer of the same question; the scorer weighs it ("appos" features)."""
    head = arg.head
    if head is None or arg.kind not in APPOSITIVE_KINDS or not head.n_rights:
        return None
    for c in head.rights:
        if c.dep_ == "appos" and c.i >= arg.span[1]:
            span = subtree_span(c)
            if span[0] < span[1] and not span[0] <= v.i < span[1]:
                return span
            return None
    return None


def _answer(doc: Doc, span: tuple[int, int], offset: int) -> Answer:
    a, b = span
    return Answer(a + offset, b + offset, doc_text(doc)[doc[a].idx : doc[b - 1].idx + len(doc[b - 1])])


def argument_model() -> LinearModel | None:
    """The trained scorer of verbal answers, or None when its artefact is missing (then every answer is kept)."""
    try:
        return load_linear(str(ARGUMENT_MODEL_PATH), VERBAL_ARGUMENT_FEATURE_VERSION)
    except ModelUnavailable:
        return None


@cache
def split_model() -> LinearModel | None:
    """The boundary step's scorer (the artefact's "split" part: P(both parts of a cut answer match gold)), or
    None when the artefact has none (then answers are never cut)."""
    try:
        data = json.loads(ARGUMENT_MODEL_PATH.read_text(encoding="utf-8"))
        part = data["split"]
        if data.get("feature_version") != VERBAL_ARGUMENT_FEATURE_VERSION:
            return None
        return LinearModel(model_weights(part["weights"]), float(part["intercept"]),
                           float(part["threshold"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _apply_splits(qas: list[QAPair], candidates: list[Candidate], splits: list[Split], model: LinearModel,
                  v: TokenView, offset: int) -> None:
    """Cut the kept answers (`qas`) whose best split passes the split scorer's threshold; a cut-off PP joins the
    QA that asks its question already, else becomes a QA of its own (appended to `qas`)."""
    best: dict[int, tuple[float, Split]] = {}
    for sp in splits:
        p = model.probability(sp.features)
        if p >= model.threshold and p > best.get(sp.qa, (0.0, sp))[0]:
            best[sp.qa] = (p, sp)
    if not best:
        return
    doc = v.doc
    text = doc_text(doc)

    def answer(span: tuple[int, int]) -> Answer:
        a, b = span
        return Answer(a + offset, b + offset, text[doc[a].idx : doc[b - 1].idx + len(doc[b - 1])])

    for p, sp in best.values():
        qa = candidates[sp.qa][0]
        qa.answers = [answer(sp.head)]
        slots = sp.rest_slots
        same = qa if slots is None else next((q for q in qas if q.raw_question == slots), None)
        if same is not None:
            same.answers.append(answer(sp.rest))
        elif slots is not None:
            # confidence: how often such a cut was right on wikipedia dev
            qas.append(QAPair(slots, qasrl_slots.render(slots), [answer(sp.rest)], qasrl_slots.role_of(slots),
                              round4(p)))


def verbal_frame(v: TokenView | SpacyToken, offset: int, sentence_index: int) -> PredicateFrame:
    """_verbal_frame for a view's or a spaCy token."""
    return _verbal_frame(as_view(v), offset, sentence_index)


def _verbal_frame(v: TokenView, offset: int, sentence_index: int) -> PredicateFrame:
    """A verb's QAs: each answer the rules find is kept when the trained scorer's probability passes its threshold;
    a QA's confidence is the best probability among its kept answers (the class precision without a scorer);
    then the boundary step cuts the answers its scorer says hold two ("in the middle of the century in Egypt")."""
    stem = lexicon.verb_stem(v.lower_, v.tag_)
    frame = PredicateFrame(v.i + offset, v.text, stem, "verbal", sentence_index, "VERB")
    model = argument_model()
    splitter = split_model() if model is not None else None
    splits: list[Split] | None = [] if splitter is not None else None
    candidates, context = _candidate_qas(v, offset, splits, stem)
    if model is None:
        for qa, _ in candidates:
            qa.confidence = qa_confidence(qa)
            frame.qas.append(qa)
        return frame
    weights = model.weights
    threshold = model.threshold
    shared = model.intercept + weighted_sum(weights, list(context), 0.0)  # the verb's part, once per verb (as sum)
    kept_qas: set[int] = set()
    for qi, (qa, feats) in enumerate(candidates):
        kept = []
        best = -1.0
        answers = qa.answers
        if len(answers) != len(feats):
            raise ValueError("every answer has its features")
        for k in range(len(answers)):  # by index: a zip(strict=True) is a generic call and iterator when compiled
            f = feats[k]
            answer = answers[k]
            p = probability(weights, f, shared)  # summed from the verb's part, as a loop of += would: the same float
            if p >= threshold:
                kept.append(answer)
                if p > best:
                    best = p
        if kept:
            qa.answers = kept
            qa.confidence = round4(best)
            frame.qas.append(qa)
            kept_qas.add(qi)
    if splits and splitter is not None:
        taken = {(a.start, a.end) for qa in frame.qas for a in qa.answers}
        usable = [sp for sp in splits if sp.qa in kept_qas and (sp.rest[0] + offset, sp.rest[1] + offset) not in taken]
        _apply_splits(frame.qas, candidates, usable, splitter, v, offset)
    return frame
