"""Dependency rules that turn a spaCy parse into QA-SRL predicate frames (verbal, nominal, copular).

Each predicate's arguments are read off its dependents (and, for verbs without their own subject, off the clause
that controls them: conjuncts, xcomp, participles, relative clauses); each argument becomes one QA whose
question is generated in the 7-slot template from the verb's voice, tense, modality and negation. Every question
is checked against the QA-SRL slot grammar before it is kept, so the backend never emits an invalid one.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from spacy.tokens import Doc, Span
from spacy.tokens import Token as SpacyToken

from parser import lexicon, qasrl_slots
from parser.embedded import words as W
from parser.types import Answer, PredicateFrame, QAPair

EMPTY = "_"
PUNCT_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP", '"', "$"}) - {"$"}
EDGE_DEPS = frozenset({"cc", "punct", "preconj"})
VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"})
NOUN_TAGS = frozenset({"NN", "NNS"})
SUBJ_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass"})
AUX_DEPS = frozenset({"aux", "auxpass"})
RELATIVE_WORDS = frozenset({"who", "whom", "which", "that", "whose", "where", "when"})
INHERIT_ADJUNCTS = True
INHERIT_DEPS = frozenset({"xcomp", "conj", "advcl"})
INHERIT_WH = frozenset({"when", "where", "why"})
SPLIT_KINDS = frozenset({"subj", "obj", "agent", "prep", "obj2"})
NOMINAL_SUFFIXES = ("tion", "sion", "ment", "ance", "ence", "ure", "al", "ing", "age", "sis", "ery", "ity")


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


# ------------------------------------------------------------------------------------------------ question text


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
    """7 slots for a question, or None when the combination is not a valid QA-SRL question."""
    aux, verb = aux_and_verb(info, wh_is_subject=subj == EMPTY)
    slots = (wh, aux, subj, verb, obj, prep, obj2)
    return slots if qasrl_slots.is_valid(slots) else None


# ------------------------------------------------------------------------------------------------ spans


def trim(doc: Doc | Span, start: int, end: int) -> tuple[int, int]:
    """Drop punctuation, conjunctions and complementisers at the edges of a span."""
    while start < end and (doc[start].tag_ in PUNCT_TAGS or doc[start].dep_ in EDGE_DEPS):
        start += 1
    while end > start and (doc[end - 1].tag_ in PUNCT_TAGS or doc[end - 1].dep_ in {"cc", "punct"}):
        end -= 1
    return start, end


def subtree_span(tok: SpacyToken, stop: SpacyToken | None = None) -> tuple[int, int]:
    """The token's subtree as a span; when `stop` (a dependent inside it) is given, cut the span before it.

    (Cutting appositions or long trailing clauses from noun phrases was measured: no gain on QA-SRL GS.)
    """
    start, end = tok.left_edge.i, tok.right_edge.i + 1
    if stop is not None:
        if stop.i > tok.i:
            end = min(end, stop.left_edge.i)
        else:
            start = max(start, stop.right_edge.i + 1)
    return trim(tok.doc, start, end)


def without(tok: SpacyToken, inner: SpacyToken) -> tuple[int, int]:
    """`tok`'s subtree minus the part that holds `inner` (e.g. the quoted clause minus 'he said')."""
    start, end = tok.left_edge.i, tok.right_edge.i + 1
    if inner.left_edge.i > tok.i:
        end = inner.left_edge.i
    elif inner.right_edge.i < tok.i:
        start = inner.right_edge.i + 1
    return trim(tok.doc, start, end)


# ------------------------------------------------------------------------------------------------ word classes


def _doc_text(doc: Doc) -> str:
    """doc.text rebuilds the string from every token on each access: keep it once per doc."""
    text = doc.user_data.get("_factcrowd_text")
    if text is None:
        text = doc.user_data["_factcrowd_text"] = doc.text
    return text


def is_person(tok: SpacyToken) -> bool:
    """Cached per token: the same subject is asked about for every predicate it belongs to."""
    cache = tok.doc.user_data.setdefault("_factcrowd_person", {})
    found = cache.get(tok.i)
    if found is None:
        found = cache[tok.i] = _is_person(tok)
    return found


def _is_person(tok: SpacyToken) -> bool:
    low = tok.lower_
    if tok.tag_ in {"PRP", "WP"}:
        return low in W.PERSON_PRONOUNS
    if low in W.PERSON_NOUNS:
        return True
    if tok.tag_ in {"NNP", "NNPS"}:
        return not any(c.lower_ in W.PLACE_NOUNS for c in tok.children)
    if tok.tag_ in NOUN_TAGS and len(low) > 5:
        for suffix in ("ist", "ists", "ian", "ians"):
            if low.endswith(suffix):
                return True
        for suffix, cut in (("ers", 3), ("er", 2), ("ors", 3), ("or", 2)):
            if low.endswith(suffix) and lexicon.is_known_verb(low[:-cut]) and len(low) - cut > 3:
                return True
    return False


def filler(tok: SpacyToken | None) -> str:
    return "someone" if tok is not None and is_person(tok) else "something"


def core_wh(tok: SpacyToken) -> str:
    return "who" if is_person(tok) else "what"


def is_time(tok: SpacyToken) -> bool:
    low = tok.lower_
    if low in W.TIME_NOUNS:
        return True
    if tok.tag_ == "CD" and len(low) == 4 and low.isdigit() and 1000 <= int(low) <= 2100:
        return True
    return any(c.lower_ in W.TIME_NOUNS or c.lower_ == "ago" for c in tok.children if c.dep_ in {"compound", "amod", "npadvmod", "advmod"})


def is_place(tok: SpacyToken) -> bool:
    return tok.lower_ in W.PLACE_NOUNS or (tok.tag_ in {"NNP", "NNPS"} and tok.dep_ == "pobj")


def is_duration(tok: SpacyToken) -> bool:
    return tok.lower_ in W.DURATION_UNITS and any(c.tag_ == "CD" or c.lower_ in {"several", "many", "few", "a"} for c in tok.children)


def is_amount(tok: SpacyToken) -> bool:
    return tok.tag_ == "CD" or tok.lower_ in {"%", "percent", "million", "billion"} or any(
        c.tag_ == "CD" for c in tok.children if c.dep_ in {"nummod", "compound", "quantmod"}
    )


# ------------------------------------------------------------------------------------------------ verbs


def _own_aux(v: SpacyToken) -> list[SpacyToken]:
    return [c for c in v.children if c.dep_ in AUX_DEPS and c.i < v.i]


def _governor(v: SpacyToken) -> SpacyToken | None:
    """The verb whose clause `v` belongs to (through prepositions), for tense and controlled subjects."""
    head = v.head
    if head is v:
        return None
    if head.dep_ == "prep" and head.head is not head:
        head = head.head
    return head if head.tag_ in VERB_TAGS or head.tag_ == "MD" else None


def verb_info(v: SpacyToken, stem: str) -> VerbInfo:
    auxes = _own_aux(v)
    if not auxes and v.dep_ == "conj" and v.tag_ in {"VBN", "VBG"} and v.head.tag_ == v.tag_:
        auxes = _own_aux(v.head)
    negated = any(c.dep_ == "neg" for c in v.children)
    modal, perfect, progressive, passive, past = "", False, False, False, v.tag_ == "VBD"
    finite_seen = False
    for a in auxes:
        low = a.lower_
        if a.tag_ == "MD" or low in W.MODAL_MAP and a.tag_ not in {"VBP", "VBZ", "VBD"}:
            modal = modal or W.MODAL_MAP.get(low, "might")
            finite_seen = True
        elif low == "to":
            modal = modal or "might"
        else:
            a_stem = lexicon.verb_stem(low, a.tag_)
            if not finite_seen and a.tag_ in {"VBD", "VBZ", "VBP"}:
                past = a.tag_ == "VBD"
                finite_seen = True
            if a_stem == "have":
                perfect = True
            elif a_stem == "be":
                if a.dep_ == "auxpass" or v.tag_ == "VBN":
                    passive = True
                else:
                    progressive = progressive or v.tag_ == "VBG"
            elif a_stem == "get" and v.tag_ == "VBN":
                passive = True
    if any(c.dep_ in {"nsubjpass", "csubjpass"} for c in v.children):
        passive = True
    if v.tag_ == "VBN" and not auxes and v.dep_ in {"acl", "amod", "advcl", "conj", "xcomp", "ccomp", "oprd"}:
        passive = v.dep_ != "conj" or _verb_info_passive_head(v)
    if v.tag_ == "VBG" and not auxes:
        progressive = True
    if not finite_seen and not modal:
        gov = _governor(v)
        if gov is not None:
            past = gov.tag_ == "VBD" or any(a.tag_ == "VBD" for a in _own_aux(gov))
        if v.tag_ == "VB" and not any(a.lower_ in {"do", "does", "did"} for a in auxes) and v.dep_ != "ROOT":
            modal = "might" if v.dep_ in {"xcomp", "advcl", "acl", "relcl", "ccomp", "conj", "pcomp"} else ""
    if v.tag_ == "VBN" and perfect and not passive:
        progressive = False
    participle = v.lower_ if v.tag_ == "VBN" and v.lower_ in lexicon.ALTERNATE_PARTICIPLES else ""
    return VerbInfo(stem, past, modal, perfect, progressive and not passive, passive, negated, participle)


def _verb_info_passive_head(v: SpacyToken) -> bool:
    head = v.head
    return any(c.dep_ == "auxpass" for c in head.children) or head.dep_ in {"acl", "amod"}


# ------------------------------------------------------------------------------------------------ arguments


@dataclass(slots=True)
class Arg:
    """One argument before its question is written: what kind it is and where it is."""

    kind: str  # subj, agent, obj, obj2, xcomp, prep, adj
    span: tuple[int, int]
    head: SpacyToken | None = None
    wh: str = ""
    prep: str = EMPTY


def _np_antecedent(noun: SpacyToken, clause: SpacyToken) -> tuple[int, int]:
    """The noun phrase a relative or participial clause modifies, without that clause."""
    return subtree_span(noun, stop=clause)


def find_subject(v: SpacyToken, depth: int = 0) -> tuple[tuple[int, int], SpacyToken] | None:
    """The span (and head) of v's logical subject, looking up through control and coordination."""
    if depth > 4:
        return None
    for c in v.children:
        if c.dep_ in SUBJ_DEPS:
            if c.lower_ in RELATIVE_WORDS and v.dep_ == "relcl":
                return _np_antecedent(v.head, v), v.head
            if c.tag_ == "EX":
                return None
            return subtree_span(c), c
    dep, head = v.dep_, v.head
    if dep == "relcl":
        return _np_antecedent(head, v), head
    if dep in {"acl", "amod"} and head.tag_ not in VERB_TAGS:
        if v.tag_ == "VB" and any(c.lower_ == "to" and c.dep_ == "aux" for c in v.children):
            # "announced her decision to appear": the one deciding, not the decision, appears
            gov = _noun_governor(head)
            if gov is not None:
                found = find_subject(gov, depth + 1)
                if found is not None:
                    return found
        return _np_antecedent(head, v), head
    if dep == "conj" and (head.tag_ in VERB_TAGS or head.tag_ == "MD"):
        return find_subject(head, depth + 1)
    if dep == "xcomp":
        objs = [c for c in head.children if c.dep_ in {"dobj", "dative"}]
        if objs and lexicon.verb_stem(head.lower_, head.tag_) in W.OBJECT_CONTROL:
            return subtree_span(objs[0]), objs[0]
        return find_subject(head, depth + 1) if head.tag_ in VERB_TAGS else None
    if dep in {"advcl", "pcomp", "ccomp", "prep"} or (dep == "pobj" and head.dep_ == "prep"):
        gov = _governor(v)
        if gov is not None and gov is not v and (dep != "ccomp" or v.tag_ in {"VBG", "VB"}):
            return find_subject(gov, depth + 1)
    if dep == "prep" and head.tag_ in NOUN_TAGS | {"NNP", "NNPS"}:
        return _np_antecedent(head, v), head
    return None


def verbal_arguments(v: SpacyToken) -> tuple[list[Arg], bool]:
    """The arguments of a verb, and whether it has a direct object (the questions mention it then)."""
    args: list[Arg] = []
    doc = v.doc
    subj = find_subject(v)
    if subj is not None and subj[0][0] < subj[0][1] and not (subj[0][0] <= v.i < subj[0][1]):
        args.append(Arg("subj", subj[0], subj[1]))
    has_obj = False
    particle = ""
    for c in v.children:
        dep = c.dep_
        low = c.lower_
        if dep == "prt":
            particle = low
        elif dep in {"dobj", "attr"} and c.tag_ not in {"EX"}:
            if low in RELATIVE_WORDS and v.dep_ == "relcl":
                args.append(Arg("obj", _np_antecedent(v.head, v), v.head))
            else:
                args.append(Arg("obj", subtree_span(c), c))
            has_obj = True
        elif dep == "dative":
            if c.tag_ == "IN" and any(g.dep_ == "pobj" for g in c.children):
                pobj = next(g for g in c.children if g.dep_ == "pobj")
                args.append(Arg("prep", subtree_span(pobj), pobj, core_wh(pobj), low))
            else:
                args.append(Arg("obj2", subtree_span(c), c, core_wh(c), "to"))
        elif dep == "ccomp":
            span = subtree_span(c)
            if span[0] < span[1] and doc[span[0]].dep_ == "mark" and doc[span[0]].lower_ in {"that", "whether", "if"}:
                span = (span[0] + 1, span[1])
            if span[0] < span[1] and not (span[0] <= v.i < span[1]):
                args.append(Arg("obj", span, None, "what"))
                has_obj = True
        elif dep == "xcomp":
            span = subtree_span(c)
            if c.tag_ in VERB_TAGS:
                purpose = (
                    any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children)
                    and lexicon.verb_stem(v.lower_, v.tag_) not in W.INFINITIVE_TAKERS
                )
                # "were carried to reclining chairs to help them": a purpose, not what was carried
                args.append(Arg("adj", span, c, "why") if purpose else Arg("xcomp", span, c, "what"))
            elif c.tag_ in {"JJ", "JJR", "JJS", "RB"}:
                args.append(Arg("adj", span, c, "how"))
            else:
                args.append(Arg("obj", span, c, "what"))
                has_obj = True
        elif dep in {"acomp", "oprd"}:
            args.append(Arg("adj", subtree_span(c), c, "how") if c.tag_.startswith("JJ") else Arg("obj2", subtree_span(c), c, "what"))
        elif dep == "agent":
            pobj = next((g for g in c.children if g.dep_ == "pobj"), None)
            if pobj is not None:
                args.append(Arg("agent", subtree_span(pobj), pobj, core_wh(pobj)))
        elif dep == "prep":
            arg = prep_argument(v, c)
            if arg is not None:
                args.append(arg)
        elif dep in {"advmod", "npadvmod", "tmod"}:
            arg = adverbial_argument(c)
            if arg is not None:
                args.append(arg)
        elif dep == "advcl":
            arg = adverbial_clause(c)
            if arg is not None:
                args.append(arg)
        elif dep == "pobj" and v.dep_ == "prep":
            # participles used as prepositions ("including X", "according to X")
            args.append(Arg("obj", subtree_span(c), c))
            has_obj = True
    # verbs in a chain (xcomp, conjoined verbs) share the head clause's time, place and reason
    if INHERIT_ADJUNCTS and v.dep_ in INHERIT_DEPS and v.head.tag_ in VERB_TAGS:
        covered = {a.wh for a in args if a.kind == "adj"}
        for c in v.head.children:
            if c.i == v.i or c.dep_ not in {"prep", "advmod", "npadvmod", "advcl"}:
                continue
            if c.left_edge.i <= v.i <= c.right_edge.i:
                continue
            arg = prep_argument(v.head, c) if c.dep_ == "prep" else (
                adverbial_clause(c) if c.dep_ == "advcl" else adverbial_argument(c))
            if arg is not None and arg.kind == "adj" and arg.wh in INHERIT_WH and arg.wh not in covered:
                args.append(arg)
    # a quote's "he said": the quoted clause is what was said
    if not has_obj and v.dep_ in {"parataxis", "ccomp", "conj"} and lexicon.verb_stem(v.lower_, v.tag_) in W.SAY_VERBS:
        head = v.head
        if head.tag_ in VERB_TAGS:
            span = without(head, v)
            if span[0] < span[1]:
                args.append(Arg("obj", span, None, "what"))
                has_obj = True
    if particle:
        for arg in args:
            if arg.kind == "obj":
                arg.prep = particle
    # participles modifying a noun: that noun is also the object of an active participle
    return args, has_obj


def prep_argument(v: SpacyToken, p: SpacyToken) -> Arg | None:
    """A prepositional phrase: a core 'what/who ... prep' question, or an adjunct (when, where, how long...)."""
    prep = p.lower_
    if p.tag_ not in {"IN", "TO", "RP", "RB"}:
        return None
    pobj = next((g for g in p.children if g.dep_ in {"pobj", "pcomp"}), None)
    if pobj is None:
        inner = next((g for g in p.children if g.dep_ == "prep"), None)  # "because of", "out of"
        if inner is not None:
            pobj = next((g for g in inner.children if g.dep_ in {"pobj", "pcomp"}), None)
            prep = f"{prep} {inner.lower_}"
        if pobj is None:
            return None
    full = subtree_span(p)
    if full[0] <= v.i < full[1]:
        return None
    vocab = qasrl_slots.slot_vocabulary()["prep"]
    if pobj.dep_ == "pcomp" and pobj.tag_ in VERB_TAGS:
        if prep in W.TEMPORAL_PREPS:
            return Arg("adj", full, pobj, "when")
        if prep in {"by", "through", "with", "without"}:
            return Arg("adj", full, pobj, "how")
        if prep in {"for", "of", "about", "in", "on", "to", "from", "against", "into"} and prep in vocab:
            return Arg("prep", subtree_span(pobj), pobj, "what", prep)
        return Arg("adj", full, pobj, "why" if prep in W.CAUSAL_PREPS else "how")
    if prep in {"because of", "due to", "despite"} or prep in W.CAUSAL_PREPS:
        return Arg("adj", full, pobj, "why")
    if prep == "for" and is_duration(pobj):
        return Arg("adj", full, pobj, "how long")
    if prep in W.TEMPORAL_PREPS or (prep in {"in", "on", "at", "by", "within", "from", "over"} and is_time(pobj)):
        return Arg("adj", full, pobj, "when")
    if prep in {"by"} and is_amount(pobj):
        return Arg("adj", full, pobj, "how much")
    if prep in W.LOCATIVE_PREPS and is_place(pobj) and not is_person(pobj) or (prep in {"in", "at", "near"} and pobj.tag_ in {"NNP", "NNPS"}):
        return Arg("adj", full, pobj, "where")
    if prep in W.SPATIAL_PREPS and not is_person(pobj) and pobj.tag_ in NOUN_TAGS | {"NNP", "NNPS"}:
        # QA-SRL annotators ask "where" of nearly every spatial phrase ("in the head", "at a low depth")
        return Arg("adj", full, pobj, "where")
    if prep not in vocab:
        return Arg("adj", full, pobj, "how")
    return Arg("prep", subtree_span(pobj), pobj, core_wh(pobj), prep)


def adverbial_argument(c: SpacyToken) -> Arg | None:
    low = c.lower_
    span = subtree_span(c)
    if span[0] >= span[1]:
        return None
    if c.dep_ in {"npadvmod", "tmod"}:
        if is_time(c) or any(g.lower_ == "ago" for g in c.children):
            return Arg("adj", span, c, "when")
        if is_amount(c):
            return Arg("adj", span, c, "how much")
        return None
    if low in W.TIME_ADVERBS or any(g.lower_ == "ago" for g in c.subtree):
        return Arg("adj", span, c, "when")
    if low in W.PLACE_ADVERBS:
        return Arg("adj", span, c, "where")
    if low in W.FREQUENCY_ADVERBS:
        return Arg("adj", span, c, "when")
    if low in W.DEGREE_ADVERBS or c.tag_ in {"WRB", "WDT", "WP"}:
        return None
    if low.endswith("ly") or c.tag_ in {"RB", "RBR"} and len(low) > 3:
        return Arg("adj", span, c, "how")
    return None


def adverbial_clause(c: SpacyToken) -> Arg | None:
    span = subtree_span(c)
    if span[0] >= span[1]:
        return None
    mark = next((g.lower_ for g in c.children if g.dep_ == "mark"), "")
    adv = next((g.lower_ for g in c.children if g.dep_ == "advmod" and g.tag_ == "WRB"), "")
    if mark in {"because", "since", "so", "as"} and mark != "as" or mark == "so":
        return Arg("adj", span, c, "why")
    if mark in W.TIME_MARKS or adv in {"when", "while"}:
        return Arg("adj", span, c, "when")
    if mark in W.CONDITION_MARKS:
        return Arg("adj", span, c, "when")
    if any(g.dep_ == "aux" and g.lower_ == "to" for g in c.children):
        return Arg("adj", span, c, "why")
    if c.tag_ in {"VBG", "VBN"}:
        return Arg("adj", span, c, "how")
    return Arg("adj", span, c, "when")


# ------------------------------------------------------------------------------------------------ frames


def _qa(slots: tuple[str, ...] | None, span: tuple[int, int], doc: Doc, offset: int) -> QAPair | None:
    if slots is None or span[0] >= span[1]:
        return None
    start, end = span
    first, last = doc[start], doc[end - 1]
    text = _doc_text(doc)[first.idx : last.idx + len(last)]
    return QAPair(slots, qasrl_slots.render(slots), [Answer(start + offset, end + offset, text)], qasrl_slots.role_of(slots))


def conjunct_spans(span: tuple[int, int], head: SpacyToken | None) -> list[tuple[int, int]]:
    """A coordinated noun phrase as one span per conjunct ("A, B and C" answers the question three times)."""
    if head is None or head.tag_ not in NOUN_TAGS | {"NNP", "NNPS", "PRP", "CD"}:
        return [span]
    heads = [head]
    i = 0
    while i < len(heads):
        heads.extend(c for c in heads[i].children if c.dep_ == "conj" and c.tag_ in NOUN_TAGS | {"NNP", "NNPS", "PRP", "CD"})
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


def _split_conjuncts(qa: QAPair, arg: Arg, doc: Doc, offset: int) -> None:
    """Answer a core question once per conjunct of a coordinated noun phrase."""
    if arg.kind not in SPLIT_KINDS:
        return
    pieces = conjunct_spans(arg.span, arg.head)
    if len(pieces) > 1:
        text = _doc_text(doc)
        qa.answers = [Answer(a + offset, b + offset, text[doc[a].idx : doc[b - 1].idx + len(doc[b - 1])]) for a, b in pieces]


def questions_for(info: VerbInfo, args: list[Arg], has_obj: bool) -> list[tuple[tuple[str, ...] | None, Arg]]:
    """One question per argument, phrased with the other core arguments as someone/something."""
    subj = next((a for a in args if a.kind == "subj"), None)
    obj = next((a for a in args if a.kind == "obj"), None)
    subj_fill = filler(subj.head) if subj else "someone"
    obj_fill = filler(obj.head) if obj and obj.head is not None else "something"
    active = replace(info, passive=False, progressive=info.progressive)
    out: list[tuple[tuple[str, ...] | None, Arg]] = []
    for a in args:
        wh = a.wh or (core_wh(a.head) if a.head is not None else "what")
        if a.kind == "subj":
            q = make_question(info, wh, obj=obj_fill if has_obj and not info.passive else EMPTY)
        elif a.kind == "agent":
            patient = filler(subj.head) if subj else "something"
            q = make_question(active, wh, obj=patient)
        elif a.kind == "obj":
            q = make_question(info, wh, subj=subj_fill, prep=a.prep if a.prep else EMPTY)
            if q is None:
                q = make_question(info, wh, subj=subj_fill)
        elif a.kind == "obj2":
            base_obj = obj_fill if (has_obj and not info.passive) else EMPTY
            prep = a.prep if base_obj != EMPTY else EMPTY
            q = make_question(info, wh, subj=subj_fill, obj=base_obj if base_obj != EMPTY else "something", prep=prep)
            if q is None:
                q = make_question(info, wh, subj=subj_fill, obj=base_obj)
        elif a.kind == "xcomp":
            q = make_question(info, "what", subj=subj_fill, obj2="to do")
        elif a.kind == "prep":
            q = make_question(info, wh, subj=subj_fill, obj=obj_fill if has_obj and not info.passive else EMPTY, prep=a.prep)
        else:  # adjuncts
            q = make_question(info, wh, subj=subj_fill, obj=obj_fill if has_obj and not info.passive else EMPTY)
        out.append((q, a))
    return out


def _dedupe(args: list[Arg], predicate: int) -> list[Arg]:
    seen: set[tuple[int, int]] = set()
    kept = []
    for a in args:
        if a.span in seen or a.span[0] >= a.span[1] or a.span[0] <= predicate < a.span[1]:
            continue
        seen.add(a.span)
        kept.append(a)
    return kept


def verbal_frame(v: SpacyToken, offset: int, sentence_index: int) -> PredicateFrame:
    stem = lexicon.verb_stem(v.lower_, v.tag_)
    info = verb_info(v, stem)
    args, has_obj = verbal_arguments(v)
    args = _dedupe(args, v.i)
    frame = PredicateFrame(v.i + offset, v.text, stem, "verbal", sentence_index, "VERB")
    for slots, arg in questions_for(info, args, has_obj):
        qa = _qa(slots, arg.span, v.doc, offset)
        if qa is not None:
            _split_conjuncts(qa, arg, v.doc, offset)
            frame.qas.append(qa)
    return frame


def copular_frame(be: SpacyToken, offset: int, sentence_index: int) -> PredicateFrame | None:
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
        qa = _qa(q1, s_span, doc, offset)
        if qa is not None:
            qa.question = f"{core_wh(subj).capitalize()} {verb_text}{neg} {doc[a_span[0]:a_span[1]].text}?"
            frame.qas.append(qa)
    q2 = make_question(VerbInfo("be", modal="might"), "what" if attr.tag_ not in {"JJ", "JJR", "JJS"} else "how", subj=filler(subj))
    if q2 is not None and s_span[0] < s_span[1]:
        qa = _qa(q2, a_span, doc, offset)
        if qa is not None:
            qa.question = f"{'What' if q2[0] == 'what' else 'How'} {verb_text}{neg} {doc[s_span[0]:s_span[1]].text}?"
            frame.qas.append(qa)
    return frame if frame.qas else None


def nominal_verb(tok: SpacyToken) -> str | None:
    """The verb of a deverbal noun candidate, or None: lexicon lookup plus a few non-event classes.

    QANom (dev) calls most lexicon-linked nouns eventive, agent nouns included (leader, player, director: 0.65-0.8
    of -er/-or candidates), so only classes that are mostly not events are dropped: time and place nouns unless
    they take an argument (possessor, of- or by-phrase), and plural nouns for groups of people (people, officials).
    """
    if tok.tag_ not in NOUN_TAGS or not tok.is_alpha or len(tok.text) < 3:
        return None
    low = tok.lower_
    if low in W.TIME_NOUNS or low in W.PLACE_NOUNS:
        if not _has_nominal_argument(tok):
            return None
    elif low in W.PERSON_NOUNS and tok.tag_ == "NNS" or low in W.NON_EVENT_NOUNS:
        return None
    return lexicon.nominalization_verb(low)


def _has_nominal_argument(n: SpacyToken) -> bool:
    for c in n.children:
        if c.dep_ == "poss" or c.dep_ == "prep" and c.lower_ in {"of", "by"}:
            return True
    return False


def nominal_frame(n: SpacyToken, verb: str, offset: int, sentence_index: int) -> PredicateFrame:
    """QANom-style QAs for a deverbal noun: possessor / compound / 'by' as agent, 'of' as theme, adjunct PPs."""
    frame = PredicateFrame(n.i + offset, n.text, verb, "nominal", sentence_index, "NOUN")
    info = VerbInfo(verb, past=True)
    agent: Arg | None = None
    theme: Arg | None = None
    adjuncts: list[Arg] = []
    for c in n.children:
        if c.dep_ == "poss" and c.tag_ != "WP$":
            if c.tag_ == "PRP$":  # QANom answers name the antecedent ("his return" -> Dürer), not the pronoun
                found = antecedent(c)
                if found is not None:
                    agent = Arg("agent", found[0], found[1], core_wh(found[1]))
            else:
                agent = Arg("agent", subtree_span(c), c, core_wh(c))
        elif c.dep_ in {"compound", "nmod"} and c.tag_ in NOUN_TAGS | {"NNP", "NNPS", "CD"}:
            span = (c.left_edge.i, c.i + 1)
            if is_time(c):  # "the November elections", "2013 elections"
                adjuncts.append(Arg("adj", span, c, "when"))
            elif c.tag_ == "CD" or c.dep_ == "nmod" and c.tag_ not in {"NNP", "NNPS"}:
                continue
            elif is_person(c) and agent is None:
                agent = Arg("agent", span, c, core_wh(c))
            elif theme is None:
                theme = Arg("obj", span, c, core_wh(c))
        elif c.dep_ in {"acl", "ccomp"} and c.i > n.i and theme is None and any(
            g.dep_ == "aux" and g.lower_ == "to" or g.dep_ == "mark" and g.lower_ == "that" for g in c.children
        ):  # "his decision to resign", "the claim that prices rose"
            theme = Arg("obj", subtree_span(c), c, "what")
        elif c.dep_ == "nummod" and c.tag_ == "CD" and c.i < n.i:
            adjuncts.append(Arg("adj", (c.left_edge.i, c.i + 1), c, "how much"))  # "five attempts"
        elif c.dep_ == "acl" and c.tag_ == "VBN" and lexicon.verb_stem(c.lower_, c.tag_) in W.LIGHT_VERBS:
            # "damage caused by Katrina", "decisions made by parliament": the light verb's agent does the noun
            by = next((g for g in c.children if g.dep_ == "agent"), None)
            pobj = next((g for g in by.children if g.dep_ == "pobj"), None) if by is not None else None
            if pobj is not None and agent is None:
                agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by")
        elif (c.dep_ == "amod" and c.tag_ in {"JJ", "JJR", "JJS"} and c.i < n.i
              and (not c.text[:1].isupper() or c.is_sent_start) and c.lower_ not in W.REFERENCE_ADJECTIVES):
            adjuncts.append(Arg("adj", (c.left_edge.i, c.i + 1), c, "how"))  # "poor harvests"
        elif c.dep_ == "prep":
            prep = c.lower_
            pobj = next((g for g in c.children if g.dep_ == "pobj"), None)
            if pobj is None:
                continue
            if prep == "of" and theme is None:
                theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj))
            elif prep == "by":
                agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by")
            else:
                arg = prep_argument(n, c)
                if arg is not None:
                    adjuncts.append(arg)
    if theme is None or agent is None:  # "the production and distribution of goods": conjuncts share of / 's
        sharing = [c for c in n.children if c.dep_ == "conj" and c.tag_ in NOUN_TAGS]
        if n.dep_ == "conj" and n.head.tag_ in NOUN_TAGS:
            sharing.append(n.head)
        for other in sharing:
            for c in other.children:
                if theme is None and c.dep_ == "prep" and c.lower_ == "of" and c.i > n.i:
                    pobj = next((g for g in c.children if g.dep_ == "pobj"), None)
                    if pobj is not None:
                        theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj))
                elif agent is None and c.dep_ == "poss" and c.tag_ != "PRP$" and c.i < n.i:
                    agent = Arg("agent", subtree_span(c), c, core_wh(c))
    agentive = is_agent_noun(n, verb)
    if agentive:
        # the noun names the doer ("his tutor", "the party leader"): possessor and compound are what it acts on,
        # and the doer is the name it stands next to ("coach Monreal", "the writer, Robert Adrain")
        if agent is not None and theme is None and agent.kind == "agent" and agent.prep == EMPTY:
            theme = Arg("obj", agent.span, agent.head, agent.wh)
        agent = _agent_noun_referent(n)
    # the clause around the noun: "the public exploded in whistles", "Israel conducted an investigation"
    gov = _noun_governor(n)
    if gov is not None:
        if agent is None and n.dep_ not in SUBJ_DEPS and (not agentive or n.dep_ in {"attr", "oprd"}):
            subj = find_subject(gov)
            if subj is not None and subj[1].tag_ == "PRP" and subj[1].lower_ in PRONOUN_PERSON:
                subj = antecedent(subj[1]) or subj
            if subj is not None and subj[0][0] < subj[0][1] and not (subj[0][0] <= n.i < subj[0][1]):
                agent = Arg("agent", subj[0], subj[1], core_wh(subj[1]))
        for c in gov.children:
            if c.dep_ == "prep" and not (c.left_edge.i <= n.i <= c.right_edge.i):
                arg = prep_argument(gov, c)
                if arg is not None and arg.kind == "adj" and arg.wh in {"when", "where", "why", "how", "how long"}:
                    adjuncts.append(arg)
            elif c.dep_ == "npadvmod" and c.i != n.i:  # the clause's "already", "now" rarely answer (dev: 0.22)
                arg = adverbial_argument(c)
                if arg is not None and arg.wh == "when":
                    adjuncts.append(arg)
            elif c.dep_ == "advcl" and not (c.left_edge.i <= n.i <= c.right_edge.i):
                arg = adverbial_clause(c)
                if arg is not None:
                    adjuncts.append(arg)
    doc = n.doc
    qas: list[tuple[tuple[str, ...] | None, Arg]] = []
    if theme is not None:
        if agent is None and verb in W.UNACCUSATIVE:
            qas.append((make_question(info, theme.wh), theme))
        else:
            qas.append((make_question(replace(info, passive=True), theme.wh), theme))
    if agent is not None:
        qas.append((make_question(info, agent.wh, obj="something" if theme is None else filler(theme.head)), agent))
    for a in adjuncts:
        if a.kind == "prep":
            q = make_question(info, a.wh, subj="someone", prep=a.prep)
        else:
            q = make_question(info, a.wh, subj="something")
        qas.append((q, a))
    for slots, arg in qas:
        if arg.span[0] <= n.i < arg.span[1]:
            continue
        qa = _qa(slots, arg.span, doc, offset)
        if qa is not None:
            _split_conjuncts(qa, arg, doc, offset)
            frame.qas.append(qa)
    return frame


AGENT_SUFFIXES = ("er", "or", "ist", "ant", "ent", "eer")


def is_agent_noun(n: SpacyToken, verb: str) -> bool:
    """A noun naming the one who does the verb (leader, governor, player, commentator, tutor)."""
    low = n.lower_
    singular = low[:-1] if n.tag_ == "NNS" and low.endswith("s") else low
    if singular == verb:
        return low in W.PERSON_NOUNS or singular in W.PERSON_NOUNS
    return singular.endswith(AGENT_SUFFIXES) and is_person(n) or low in W.PERSON_NOUNS


def _agent_noun_referent(n: SpacyToken) -> Arg | None:
    """The named person an agent noun describes: its appositive, the name it is a title of, or its head."""
    for c in n.children:
        if c.dep_ == "appos" and c.tag_ in {"NNP", "NNPS"}:
            return Arg("agent", subtree_span(c), c, "who")
    head = n.head
    if head is not n and head.tag_ in {"NNP", "NNPS"}:
        if n.dep_ == "compound":  # "head coach Monreal"
            return Arg("agent", trim(n.doc, n.i + 1, head.i + 1), head, "who")
        if n.dep_ == "appos":  # "Robert Adrain, editor of ..."
            return Arg("agent", _np_antecedent(head, n), head, "who")
    return None


PRONOUN_PERSON = frozenset("he him his she her hers i me my we us our they them their".split())


def antecedent(pron: SpacyToken) -> tuple[tuple[int, int], SpacyToken] | None:
    """The noun phrase a personal pronoun most likely refers to: the nearest earlier subject in the sentence
    that is not itself a pronoun (its/their may name things; he/she/his/her only people)."""
    person_only = pron.lower_ in {"he", "him", "his", "she", "her", "hers"}
    best = None
    for tok in pron.sent if pron.doc.has_annotation("SENT_START") else pron.doc:
        if tok.i >= pron.i:
            break
        if tok.dep_ in {"nsubj", "nsubjpass"} and tok.tag_ in {"NN", "NNS", "NNP", "NNPS"}:
            if person_only and not is_person(tok):
                continue
            best = tok
    if best is None:
        return None
    span = subtree_span(best)
    if span[0] <= pron.i < span[1]:
        return None
    return span, best


def _noun_governor(n: SpacyToken) -> SpacyToken | None:
    """The verb of the clause the noun sits in: through coordination, compounds and chains of PPs
    ("exploded in whistles of disapproval" -> exploded), at most a few hops away."""
    tok = n
    for _ in range(5):
        head = tok.head
        if head is tok:
            return None
        dep = tok.dep_
        if dep in {"conj", "compound", "appos"}:
            tok = head
        elif dep in {"dobj", "attr", "oprd", "nsubjpass", "dative", "nsubj"}:
            return head if head.tag_ in VERB_TAGS else None
        elif dep == "pobj" and head.dep_ in {"prep", "agent"}:
            if head.head.tag_ in VERB_TAGS:
                return head.head
            if head.head.tag_ in NOUN_TAGS | {"NNP", "NNPS"}:
                tok = head.head
            else:
                return None
        else:
            return None
    return None


def is_verbal_predicate(tok: SpacyToken) -> bool:
    """A verb that heads its own frame: not an auxiliary, not a form of 'be' (copular frames handle those)."""
    if tok.tag_ not in VERB_TAGS or tok.dep_ in AUX_DEPS or not tok.is_alpha:
        return False
    return lexicon.verb_stem(tok.lower_, tok.tag_) != "be"


def frames_for(
    sent: Span | Doc,
    offset: int = 0,
    sentence_index: int = 0,
    predicates: list[int] | None = None,
    nominal: bool = True,
    copular: bool = True,
    nominal_predicates: list[int] | None = None,
) -> list[PredicateFrame]:
    """All frames of one sentence; `predicates` (sentence-relative indices) overrides verbal detection."""
    base = sent.start if isinstance(sent, Span) else 0
    frames: list[PredicateFrame] = []
    chosen = {base + i for i in predicates} if predicates is not None else None
    noms = {base + i for i in nominal_predicates} if nominal_predicates is not None else None
    for tok in sent:  # one pass: every spaCy token access builds a Python object
        tag = tok.tag_
        if chosen is not None:
            if tok.i in chosen:
                frames.append(verbal_frame(tok, offset, sentence_index))
                continue
        elif tag in VERB_TAGS and tok.dep_ not in AUX_DEPS and tok.is_alpha:
            if lexicon.verb_stem(tok.lower_, tag) != "be":
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
            verb = nominal_verb(tok)
            if verb is not None:
                # argument-less nouns are kept: detection is reported on its own, the T5 model asks about them
                frames.append(nominal_frame(tok, verb, offset, sentence_index))
    return frames
