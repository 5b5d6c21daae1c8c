"""Arguments read off the dependency tree, shared by verbal and nominal predicates.

A predicate's subject may sit outside its own dependents (conjuncts, xcomp, participles, relative clauses
inherit the controlling clause's); prepositional phrases, adverbs and adverbial clauses become core
'what/who ... prep' arguments or adjuncts (when, where, why, how, how long, how much).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from spacy.tokens import Token as SpacyToken

from parser import lexicon, qasrl_slots
from parser.embedded import words as W
from parser.embedded.syntax import (
    NOUN_TAGS,
    PROPER_TAGS,
    RELATIVE_WORDS,
    SUBJ_DEPS,
    VERB_TAGS,
    first_child,
    np_antecedent,
    subtree_span,
)
from parser.embedded.view import as_view
from parser.embedded.viewbuild import TokenView
from parser.embedded.wordclass import core_wh, is_amount, is_duration, is_person, is_place, is_time

EMPTY_PREP: Final = "_"
_NOMINAL: Final = NOUN_TAGS | PROPER_TAGS  # built once, not in every test
PRONOUN_PERSON: Final = frozenset("he him his she her hers i me my we us our they them their".split())
Found = tuple[tuple[int, int], TokenView]


@dataclass(slots=True)
class Arg:
    """One argument before its question is written: what kind it is and where it is."""

    kind: str  # subj, agent, obj, obj2, xcomp, prep, adj
    span: tuple[int, int]
    head: TokenView | None = None
    wh: str = ""
    prep: str = EMPTY_PREP
    rule: str = ""  # which rule found it (nominal arguments: features of the trained scorer)
    mention: tuple[int, int] | None = None  # another mention answering the same question (the pronoun resolved)


def governor(v: TokenView) -> TokenView | None:
    """The verb whose clause `v` belongs to (through prepositions), for tense and controlled subjects."""
    head = v.head
    if head is v:
        return None
    if head.dep_ == "prep" and head.head is not head:
        head = head.head
    return head if head.tag_ in VERB_TAGS or head.tag_ == "MD" else None


def noun_governor(n: TokenView | SpacyToken) -> TokenView | None:
    """_noun_governor for a view's or a spaCy token."""
    return _noun_governor(as_view(n))


def _noun_governor(n: TokenView) -> TokenView | None:
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
            if head.head.tag_ in _NOMINAL:
                tok = head.head
            else:
                return None
        else:
            return None
    return None


def find_subject(v: TokenView, depth: int = 0) -> Found | None:
    """The span (and head) of v's logical subject, looking up through control and coordination."""
    if depth > 4:
        return None
    for c in v.children:
        if c.dep_ in SUBJ_DEPS:
            if c.lower_ in RELATIVE_WORDS and v.dep_ == "relcl":
                return np_antecedent(v.head, v), v.head
            if c.tag_ == "EX":
                return None
            return subtree_span(c), c
    return _inherited_subject(v, depth)


def _inherited_subject(v: TokenView, depth: int) -> Found | None:
    """The subject a verb without its own takes from the clause around it."""
    dep, head = v.dep_, v.head
    if dep == "relcl":
        return np_antecedent(head, v), head
    if dep in {"acl", "amod"} and head.tag_ not in VERB_TAGS:
        return _modified_noun_subject(v, head, depth)
    if dep == "conj" and (head.tag_ in VERB_TAGS or head.tag_ == "MD"):
        return find_subject(head, depth + 1)
    if dep == "xcomp":
        objs = [c for c in head.children if c.dep_ in {"dobj", "dative"}]
        if objs and lexicon.verb_stem(head.lower_, head.tag_) in W.OBJECT_CONTROL:
            return subtree_span(objs[0]), objs[0]
        return find_subject(head, depth + 1) if head.tag_ in VERB_TAGS else None
    if dep in {"advcl", "pcomp", "ccomp", "prep"} or (dep == "pobj" and head.dep_ == "prep"):
        gov = governor(v)
        if gov is not None and gov is not v and (dep != "ccomp" or v.tag_ in {"VBG", "VB"}):
            return find_subject(gov, depth + 1)
    if dep == "prep" and head.tag_ in _NOMINAL:
        return np_antecedent(head, v), head
    return None


def _modified_noun_subject(v: TokenView, noun: TokenView, depth: int) -> Found | None:
    """A participle or infinitive modifying a noun: that noun, except for 'decision to appear' (the decider)."""
    if v.tag_ == "VB" and any(c.lower_ == "to" and c.dep_ == "aux" for c in v.children):
        # "announced her decision to appear": the one deciding, not the decision, appears
        gov = _noun_governor(noun)
        if gov is not None:
            found = find_subject(gov, depth + 1)
            if found is not None:
                return found
    return np_antecedent(noun, v), noun


def _prep_object(p: TokenView) -> tuple[TokenView | None, str]:
    """The object of a preposition and the preposition's text ("because of", "out of" through the inner one)."""
    prep = p.lower_
    pobj = first_child(p, {"pobj", "pcomp"})
    if pobj is None:
        inner = first_child(p, "prep")  # "because of", "out of"
        if inner is not None:
            pobj = first_child(inner, {"pobj", "pcomp"})
            prep = f"{prep} {inner.lower_}"
    return pobj, prep


def prep_argument(v: TokenView, p: TokenView) -> Arg | None:
    """A prepositional phrase: a core 'what/who ... prep' question, or an adjunct (when, where, how long...)."""
    if p.tag_ not in {"IN", "TO", "RP", "RB"}:
        return None
    pobj, prep = _prep_object(p)
    if pobj is None:
        return None
    full = subtree_span(p)
    if full[0] <= v.i < full[1]:
        return None
    vocab = qasrl_slots.slot_vocabulary()["prep"]
    if pobj.dep_ == "pcomp" and pobj.tag_ in VERB_TAGS:
        return _clausal_prep(prep, pobj, full, vocab)
    adjunct = _adjunct_prep(prep, pobj)
    if adjunct:
        return Arg("adj", full, pobj, adjunct)
    if prep not in vocab:
        return Arg("adj", full, pobj, "how")
    return Arg("prep", subtree_span(pobj), pobj, core_wh(pobj), prep)


def _clausal_prep(prep: str, pcomp: TokenView, full: tuple[int, int], vocab: frozenset[str] | set[str]) -> Arg:
    """A preposition with a verb phrase ("after leaving", "by cutting costs", "for helping")."""
    if prep in W.TEMPORAL_PREPS:
        return Arg("adj", full, pcomp, "when")
    if prep in {"by", "through", "with", "without"}:
        return Arg("adj", full, pcomp, "how")
    if prep in {"for", "of", "about", "in", "on", "to", "from", "against", "into"} and prep in vocab:
        return Arg("prep", subtree_span(pcomp), pcomp, "what", prep)
    return Arg("adj", full, pcomp, "why" if prep in W.CAUSAL_PREPS else "how")


def _adjunct_prep(prep: str, pobj: TokenView) -> str:
    """The adjunct wh-word of a nominal prepositional phrase, or '' when it is a core argument."""
    if prep in {"because of", "due to", "despite"} or prep in W.CAUSAL_PREPS:
        return "why"
    if prep == "for" and is_duration(pobj):
        return "how long"
    if prep in W.TEMPORAL_PREPS or (prep in {"in", "on", "at", "by", "within", "from", "over"} and is_time(pobj)):
        return "when"
    if prep in {"by"} and is_amount(pobj):
        return "how much"
    if prep in W.LOCATIVE_PREPS and is_place(pobj) and not is_person(pobj) or (prep in {"in", "at", "near"} and pobj.tag_ in PROPER_TAGS):
        return "where"
    if prep in W.SPATIAL_PREPS and not is_person(pobj) and pobj.tag_ in _NOMINAL:
        # QA-SRL annotators ask "where" of nearly every spatial phrase ("in the head", "at a low depth")
        return "where"
    return ""


def adverbial_argument(c: TokenView) -> Arg | None:
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


def adverbial_clause(c: TokenView) -> Arg | None:
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


def clause_adjunct(head: TokenView, c: TokenView) -> Arg | None:
    """The adjunct a dependent of a clause's verb gives (a PP, an adverb or an adverbial clause)."""
    if c.dep_ == "prep":
        return prep_argument(head, c)
    if c.dep_ == "advcl":
        return adverbial_clause(c)
    return adverbial_argument(c)


def antecedent(pron: TokenView) -> Found | None:
    """The noun phrase a personal pronoun most likely refers to: the nearest earlier subject in the sentence
    that is not itself a pronoun (its/their may name things; he/she/his/her only people). Cached per token: the
    same pronoun is asked about for every predicate it belongs to."""
    cache = pron.doc.user_data.setdefault("_factcrowd_antecedent", {})
    if pron.i not in cache:
        cache[pron.i] = _antecedent(pron)
    return cache[pron.i]


def _antecedent(pron: TokenView) -> Found | None:
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
