"""Nominal predicates (QANom): which nouns are events, and their arguments read off the noun phrase and clause.

QANom asks about a deverbal noun with the verb's questions in the past tense ("his return" -> "Who returned?"):
the possessor, compounds and 'by' give the agent, 'of' the theme, PPs and the clause around the noun adjuncts.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from spacy.tokens import Token as SpacyToken

from parser import lexicon
from parser.embedded import words as W
from parser.embedded.arguments import (
    EMPTY_PREP,
    PRONOUN_PERSON,
    Arg,
    adverbial_argument,
    adverbial_clause,
    antecedent,
    find_subject,
    noun_governor,
    prep_argument,
)
from parser.embedded.detector import candidate_verb, load_detector
from parser.embedded.questions import VerbInfo, add_qas, make_question
from parser.embedded.syntax import (
    NOUN_TAGS,
    PROPER_TAGS,
    SUBJ_DEPS,
    covers,
    first_child,
    np_antecedent,
    subtree_span,
    trim,
)
from parser.embedded.wordclass import core_wh, filler, is_person, is_time
from parser.types import PredicateFrame

AGENT_SUFFIXES = ("er", "or", "ist", "ant", "ent", "eer")
CLAUSE_ADJUNCT_WH = frozenset({"when", "where", "why", "how", "how long"})
Question = tuple[tuple[str, ...] | None, Arg]


# ------------------------------------------------------------------------------------------------ detection


def detect_nominal(tok: SpacyToken) -> tuple[str, float] | None:
    """(verb, probability) when the trained detector calls a candidate noun an event, else None."""
    verb = candidate_verb(tok)
    if verb is None:
        return None
    detector = load_detector()
    p = detector.probability(tok, verb)
    return (verb, p) if p >= detector.threshold else None


def is_agent_noun(n: SpacyToken, verb: str) -> bool:
    """A noun naming the one who does the verb (leader, governor, player, commentator, tutor)."""
    low = n.lower_
    singular = low[:-1] if n.tag_ == "NNS" and low.endswith("s") else low
    if singular == verb:
        return low in W.PERSON_NOUNS or singular in W.PERSON_NOUNS
    return singular.endswith(AGENT_SUFFIXES) and is_person(n) or low in W.PERSON_NOUNS


# ------------------------------------------------------------------------------------------------ arguments


@dataclass(slots=True)
class NounArgs:
    """The agent, theme and adjuncts found for one event noun."""

    n: SpacyToken
    agent: Arg | None = None
    theme: Arg | None = None
    adjuncts: list[Arg] = field(default_factory=list)

    def possessor(self, c: SpacyToken) -> None:
        if c.tag_ == "WP$":
            return
        if c.tag_ == "PRP$":  # QANom answers name the antecedent ("his return" -> Dürer), not the pronoun
            found = antecedent(c)
            if found is not None:
                self.agent = Arg("agent", found[0], found[1], core_wh(found[1]))
        else:
            self.agent = Arg("agent", subtree_span(c), c, core_wh(c))

    def compound(self, c: SpacyToken) -> None:
        if c.tag_ not in NOUN_TAGS | PROPER_TAGS | {"CD"}:
            return
        span = (c.left_edge.i, c.i + 1)
        if is_time(c):  # "the November elections", "2013 elections"
            self.adjuncts.append(Arg("adj", span, c, "when"))
        elif c.tag_ == "CD" or c.dep_ == "nmod" and c.tag_ not in PROPER_TAGS:
            return
        elif is_person(c) and self.agent is None:
            self.agent = Arg("agent", span, c, core_wh(c))
        elif self.theme is None:
            self.theme = Arg("obj", span, c, core_wh(c))

    def clause(self, c: SpacyToken) -> None:
        if c.i > self.n.i and self.theme is None and any(
            g.dep_ == "aux" and g.lower_ == "to" or g.dep_ == "mark" and g.lower_ == "that" for g in c.children
        ):  # "his decision to resign", "the claim that prices rose"
            self.theme = Arg("obj", subtree_span(c), c, "what")
        elif c.dep_ == "acl" and c.tag_ == "VBN" and lexicon.verb_stem(c.lower_, c.tag_) in W.LIGHT_VERBS:
            # "damage caused by Katrina", "decisions made by parliament": the light verb's agent does the noun
            by = first_child(c, "agent")
            pobj = first_child(by, "pobj") if by is not None else None
            if pobj is not None and self.agent is None:
                self.agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by")

    def number(self, c: SpacyToken) -> None:
        if c.tag_ == "CD" and c.i < self.n.i:
            self.adjuncts.append(Arg("adj", (c.left_edge.i, c.i + 1), c, "how much"))  # "five attempts"

    def adjective(self, c: SpacyToken) -> None:
        if (c.tag_ in {"JJ", "JJR", "JJS"} and c.i < self.n.i
                and (not c.text[:1].isupper() or c.is_sent_start) and c.lower_ not in W.REFERENCE_ADJECTIVES):
            self.adjuncts.append(Arg("adj", (c.left_edge.i, c.i + 1), c, "how"))  # "poor harvests"

    def prep(self, c: SpacyToken) -> None:
        pobj = first_child(c, "pobj")
        if pobj is None:
            return
        prep = c.lower_
        if prep == "of" and self.theme is None:
            self.theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj))
        elif prep == "by":
            self.agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by")
        else:
            arg = prep_argument(self.n, c)
            if arg is not None:
                self.adjuncts.append(arg)

    def shared_from_conjuncts(self) -> None:
        """'the production and distribution of goods': conjuncts share the of-phrase and the possessor."""
        n = self.n
        sharing = [c for c in n.children if c.dep_ == "conj" and c.tag_ in NOUN_TAGS]
        if n.dep_ == "conj" and n.head.tag_ in NOUN_TAGS:
            sharing.append(n.head)
        for other in sharing:
            for c in other.children:
                if self.theme is None and c.dep_ == "prep" and c.lower_ == "of" and c.i > n.i:
                    pobj = first_child(c, "pobj")
                    if pobj is not None:
                        self.theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj))
                elif self.agent is None and c.dep_ == "poss" and c.tag_ != "PRP$" and c.i < n.i:
                    self.agent = Arg("agent", subtree_span(c), c, core_wh(c))


_HANDLERS: dict[str, Callable[[NounArgs, SpacyToken], None]] = {
    "poss": NounArgs.possessor,
    "compound": NounArgs.compound,
    "nmod": NounArgs.compound,
    "acl": NounArgs.clause,
    "ccomp": NounArgs.clause,
    "nummod": NounArgs.number,
    "amod": NounArgs.adjective,
    "prep": NounArgs.prep,
}


def _agent_noun_referent(n: SpacyToken) -> Arg | None:
    """The named person an agent noun describes: its appositive, the name it is a title of, or its head."""
    for c in n.children:
        if c.dep_ == "appos" and c.tag_ in PROPER_TAGS:
            return Arg("agent", subtree_span(c), c, "who")
    head = n.head
    if head is not n and head.tag_ in PROPER_TAGS:
        if n.dep_ == "compound":  # "head coach Monreal"
            return Arg("agent", trim(n.doc, n.i + 1, head.i + 1), head, "who")
        if n.dep_ == "appos":  # "Robert Adrain, editor of ..."
            return Arg("agent", np_antecedent(head, n), head, "who")
    return None


def _as_agent_noun(found: NounArgs) -> None:
    """The noun names the doer ("his tutor", "the party leader"): possessor and compound are what it acts on,
    and the doer is the name it stands next to ("coach Monreal", "the writer, Robert Adrain")."""
    agent = found.agent
    if agent is not None and found.theme is None and agent.kind == "agent" and agent.prep == EMPTY_PREP:
        found.theme = Arg("obj", agent.span, agent.head, agent.wh)
    found.agent = _agent_noun_referent(found.n)


def _clause_subject(n: SpacyToken, gov: SpacyToken) -> Arg | None:
    """The subject of the clause around the noun ("Israel conducted an investigation"), pronouns resolved."""
    subj = find_subject(gov)
    if subj is not None and subj[1].tag_ == "PRP" and subj[1].lower_ in PRONOUN_PERSON:
        subj = antecedent(subj[1]) or subj
    if subj is not None and subj[0][0] < subj[0][1] and not (subj[0][0] <= n.i < subj[0][1]):
        return Arg("agent", subj[0], subj[1], core_wh(subj[1]))
    return None


def _clause_adjuncts(n: SpacyToken, gov: SpacyToken) -> list[Arg]:
    """Time, place and reason of the clause around the noun ("the public exploded in whistles")."""
    out: list[Arg] = []
    for c in gov.children:
        if c.dep_ == "prep" and not covers(c, n.i):
            arg = prep_argument(gov, c)
            if arg is not None and arg.kind == "adj" and arg.wh in CLAUSE_ADJUNCT_WH:
                out.append(arg)
        elif c.dep_ == "npadvmod" and c.i != n.i:  # the clause's "already", "now" rarely answer (dev: 0.22)
            arg = adverbial_argument(c)
            if arg is not None and arg.wh == "when":
                out.append(arg)
        elif c.dep_ == "advcl" and not covers(c, n.i):
            arg = adverbial_clause(c)
            if arg is not None:
                out.append(arg)
    return out


def nominal_arguments(n: SpacyToken, verb: str) -> NounArgs:
    """Agent, theme and adjuncts of an event noun: its own dependents, its conjuncts', then its clause's."""
    found = NounArgs(n)
    for c in n.children:
        handler = _HANDLERS.get(c.dep_)
        if handler is not None:
            handler(found, c)
    if found.theme is None or found.agent is None:
        found.shared_from_conjuncts()
    agentive = is_agent_noun(n, verb)
    if agentive:
        _as_agent_noun(found)
    gov = noun_governor(n)
    if gov is not None:
        if found.agent is None and n.dep_ not in SUBJ_DEPS and (not agentive or n.dep_ in {"attr", "oprd"}):
            found.agent = _clause_subject(n, gov)
        found.adjuncts.extend(_clause_adjuncts(n, gov))
    return found


# ------------------------------------------------------------------------------------------------ questions


def nominal_questions(verb: str, found: NounArgs) -> list[Question]:
    """QANom's questions: the verb in the past tense, the theme passive unless the verb is unaccusative."""
    info = VerbInfo(verb, past=True)
    agent, theme = found.agent, found.theme
    qas: list[Question] = []
    if theme is not None:
        if agent is None and verb in W.UNACCUSATIVE:
            qas.append((make_question(info, theme.wh), theme))
        else:
            qas.append((make_question(replace(info, passive=True), theme.wh), theme))
    if agent is not None:
        qas.append((make_question(info, agent.wh, obj="something" if theme is None else filler(theme.head)), agent))
    for a in found.adjuncts:
        if a.kind == "prep":
            q = make_question(info, a.wh, subj="someone", prep=a.prep)
        else:
            q = make_question(info, a.wh, subj="something")
        qas.append((q, a))
    return qas


def nominal_frame(n: SpacyToken, verb: str, offset: int, sentence_index: int, confidence: float = 1.0) -> PredicateFrame:
    """QANom-style QAs for a deverbal noun: possessor / compound / 'by' as agent, 'of' as theme, adjunct PPs.

    `confidence` is the detector's probability that the noun is an event (1.0 when the predicate was given).
    """
    frame = PredicateFrame(n.i + offset, n.text, verb, "nominal", sentence_index, "NOUN", confidence=confidence)
    questions = nominal_questions(verb, nominal_arguments(n, verb))
    add_qas(frame.qas, [(q, a) for q, a in questions if not (a.span[0] <= n.i < a.span[1])], n.doc, offset)
    for qa in frame.qas:
        qa.confidence = confidence
    return frame
