"""Nominal predicates (QANom): which nouns are events, and their arguments read off the noun phrase and clause.

QANom asks about a deverbal noun with the verb's questions in the past tense ("his return" -> "Who returned?"):
the possessor, compounds and 'by' give the agent, 'of' the theme, PPs and the clause around the noun adjuncts.
"""
from __future__ import annotations

import json
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Final

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
from parser.embedded.linear import DATA_DIR, LinearModel, load_linear
from parser.embedded.questions import VerbInfo, add_qas, make_question
from parser.embedded.scoring import interned, probability, round4
from parser.embedded.syntax import (
    NOUN_TAGS,
    PROPER_TAGS,
    PUNCT_TAGS,
    RELATIVE_WORDS,
    SUBJ_DEPS,
    VERB_TAGS,
    covers,
    first_child,
    np_antecedent,
    subtree_span,
    trim,
)
from parser.embedded.view import as_view
from parser.embedded.viewbuild import TokenView
from parser.embedded.wordclass import core_wh, filler, is_person, is_time
from parser.types import PredicateFrame

AGENT_SUFFIXES: Final = ("er", "or", "ist", "ant", "ent", "eer")
ARGUMENT_FEATURE_VERSION: Final = 3
ARGUMENT_MODEL_PATH: Final = DATA_DIR / "nominal_arguments.json"
TIME_ADJECTIVES: Final = frozenset("early earlier late later recent previous former initial final first last next".split())
SELF_RULES: Final = frozenset({"agent_noun_self", "self_np"})  # answers that are the noun's own phrase
CLAUSE_ADJUNCT_WH: Final = frozenset({"when", "where", "why", "how", "how long"})
# tag unions built once (a `NOUN_TAGS | PROPER_TAGS` in a test builds a new set on every call)
_NOMINAL: Final = NOUN_TAGS | PROPER_TAGS
_NOMINAL_CD: Final = _NOMINAL | {"CD"}
_NOMINAL_PRP_CD: Final = _NOMINAL | {"PRP", "CD"}
Question = tuple[tuple[str, ...] | None, Arg]


# ------------------------------------------------------------------------------------------------ detection


def detect_nominal(tok: TokenView | SpacyToken) -> tuple[str, float] | None:
    """_detect_nominal for a view's or a spaCy token."""
    return _detect_nominal(as_view(tok))


def _detect_nominal(tok: TokenView) -> tuple[str, float] | None:
    """(verb, probability) when the trained detector calls a candidate noun an event, else None."""
    verb = candidate_verb(tok)
    if verb is None:
        return None
    detector = load_detector()
    p = detector.probability(tok, verb)
    return (verb, p) if p >= detector.threshold else None


def is_agent_noun(n: TokenView, verb: str) -> bool:
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

    n: TokenView
    agent: Arg | None = None
    theme: Arg | None = None
    adjuncts: list[Arg] = field(default_factory=list)
    extra: list[Arg] = field(default_factory=list)  # further agent / theme candidates, each its own question
    generated: list[Arg] = field(default_factory=list)  # the learned generator's spans (see generated_arguments)

    def possessor(self, c: TokenView) -> None:
        if c.tag_ == "WP$":
            return
        if c.tag_ == "PRP$":  # QANom answers name the antecedent ("his return" -> Dürer), not the pronoun
            found = antecedent(c)
            if found is not None:
                self.agent = Arg("agent", found[0], found[1], core_wh(found[1]), rule="poss_pronoun",
                                 mention=(c.i, c.i + 1))
        else:
            self.agent = Arg("agent", _without_case(c), c, core_wh(c), rule="poss")

    def compound(self, c: TokenView) -> None:
        if c.tag_ not in _NOMINAL_CD:
            return
        span = (c.left_edge.i, c.i + 1)
        if is_time(c):  # "the November elections", "2013 elections"
            self.adjuncts.append(Arg("adj", span, c, "when", rule="compound_time"))
        elif c.tag_ == "CD" or c.dep_ == "nmod" and c.tag_ not in PROPER_TAGS:
            return
        elif is_person(c) and self.agent is None:
            self.agent = Arg("agent", span, c, core_wh(c), rule="compound_person")
        elif self.theme is None:
            self.theme = Arg("obj", span, c, core_wh(c), rule="compound")

    def clause(self, c: TokenView) -> None:
        if c.i > self.n.i and self.theme is None and any(
            g.dep_ == "aux" and g.lower_ == "to" or g.dep_ == "mark" and g.lower_ == "that" for g in c.children
        ):  # "his decision to resign", "the claim that prices rose"
            self.theme = Arg("obj", subtree_span(c), c, "what", rule="clause_theme")
        elif c.dep_ == "acl" and c.tag_ == "VBN" and lexicon.verb_stem(c.lower_, c.tag_) in W.LIGHT_VERBS:
            # "damage caused by Katrina", "decisions made by parliament": the light verb's agent does the noun
            by = first_child(c, "agent")
            pobj = first_child(by, "pobj") if by is not None else None
            if pobj is not None and self.agent is None:
                self.agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by", rule="light_verb_by")
        elif c.dep_ == "acl" and c.i > self.n.i and c.tag_ in {"VBG", "VBN"}:
            # "delays processing the applications", "provisions guaranteeing freedom": what the event is about
            self.extra.append(Arg("obj", subtree_span(c), c, "what", rule=f"acl_{c.tag_}"))

    def relative(self, c: TokenView) -> None:
        """'the song she wrote', 'the speech he gave': the relative clause's own subject does the event."""
        subj = next((s for s in c.children if s.dep_ == "nsubj"), None)
        if subj is None or subj.lower_ in RELATIVE_WORDS or subj.tag_ in {"WDT", "WP", "EX"}:
            return
        found = _subject_arg(subj, "relcl_subject")
        if found is not None and found.head is not None and not covers(found.head, self.n.i):
            self.extra.append(found)

    def apposition(self, c: TokenView) -> None:
        """'a span of 75 miles, the longest closure': the appositive restates the event or its theme."""
        if c.tag_ in _NOMINAL and c.i > self.n.i:
            self.extra.append(Arg("obj", subtree_span(c), c, core_wh(c), rule="appos_child"))

    def number(self, c: TokenView) -> None:
        if c.tag_ == "CD" and c.i < self.n.i:
            self.adjuncts.append(Arg("adj", (c.left_edge.i, c.i + 1), c, "how much", rule="number"))  # "five attempts"

    def adjective(self, c: TokenView) -> None:
        if c.tag_ not in {"JJ", "JJR", "JJS"} or c.i > self.n.i:
            return
        span = (c.left_edge.i, c.i + 1)
        if c.text[:1].isupper() and not c.is_sent_start:  # "the Soviet invasion": the nation does it
            if self.agent is None:
                self.agent = Arg("agent", span, c, "who", rule="adjective_proper")
        elif c.lower_ in W.REFERENCE_ADJECTIVES:  # "his early commitment", "the first attempt"
            wh = "when" if c.lower_ in TIME_ADJECTIVES else "how"
            self.adjuncts.append(Arg("adj", span, c, wh, rule=f"adjective_reference_{wh}"))
        else:
            self.adjuncts.append(Arg("adj", span, c, "how", rule="adjective"))  # "poor harvests"

    def prep(self, c: TokenView) -> None:
        pobj = first_child(c, "pobj")
        if pobj is None:
            return
        prep = c.lower_
        if prep == "of" and (self.theme is None or self.theme.rule == "compound"):  # of-phrases are surer themes
            self.theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj), rule="of")
        elif prep == "by":
            self.agent = Arg("agent", subtree_span(pobj), pobj, core_wh(pobj), "by", rule="by")
        else:
            arg = prep_argument(self.n, c)
            if arg is not None:
                arg.rule = f"pp_{arg.kind}_{arg.wh}"
                self.adjuncts.append(arg)
        if prep in {"of", "to", "on", "for", "against"}:  # "damage to railway lines in Dawlish": where it happened
            for c2 in pobj.children:
                if c2.dep_ == "prep":
                    arg = prep_argument(self.n, c2)
                    if arg is not None and arg.kind == "adj":
                        arg.rule = f"pp2_{arg.wh}"
                        self.adjuncts.append(arg)

    def verbal_object(self, c: TokenView) -> None:
        """A noun parsed with a verb's dependents ("the killing civilians"): its object is the theme."""
        if self.theme is None:
            self.theme = Arg("obj", subtree_span(c), c, core_wh(c), rule=f"child_{c.dep_}")

    def verbal_subject(self, c: TokenView) -> None:
        if self.agent is None and c.i < self.n.i:
            self.agent = Arg("agent", subtree_span(c), c, core_wh(c), rule="child_nsubj")

    def around(self) -> None:
        """The noun phrase the event noun modifies ("conference attendees", "skiers in the race") as its doer."""
        n = self.n
        head = n.head
        if self.agent is not None or head is n:
            return
        if n.dep_ == "compound" and head.tag_ in _NOMINAL and head.i > n.i:
            self.agent = Arg("agent", trim(n.doc, n.i + 1, head.i + 1), head, core_wh(head), rule="compound_head")
        elif n.dep_ == "pobj" and head.dep_ == "prep" and head.head.tag_ in _NOMINAL:
            noun = head.head
            self.agent = Arg("agent", np_antecedent(noun, head), noun, core_wh(noun), rule=f"pp_head_{head.lower_}")

    def around_extra(self) -> None:
        """The phrase the noun modifies when the agent slot is taken: "several weeks of protests" (how long),
        "nearly 1 billion in donations" (what was donated), "investment approach"."""
        n, head = self.n, self.n.head
        have = {a.span for a in (self.agent, self.theme, *self.extra) if a is not None}
        arg = None
        if n.dep_ == "compound" and head.tag_ in _NOMINAL and head.i > n.i:
            arg = Arg("obj", trim(n.doc, n.i + 1, head.i + 1), head, core_wh(head), rule="compound_head_extra")
        elif n.dep_ == "pobj" and head.dep_ == "prep" and head.head.tag_ in _NOMINAL_CD:
            noun = head.head
            wh = "how long" if is_time(noun) and head.lower_ == "of" else core_wh(noun)
            kind = "adj" if wh == "how long" else "obj"
            arg = Arg(kind, np_antecedent(noun, head), noun, wh, rule=f"pp_head_extra_{head.lower_}")
        if arg is not None and arg.span not in have:
            if arg.kind == "adj":
                self.adjuncts.append(arg)
            else:
                self.extra.append(arg)

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
                        self.theme = Arg("obj", subtree_span(pobj), pobj, core_wh(pobj), rule="conj_of")
                elif self.agent is None and c.dep_ == "poss" and c.tag_ != "PRP$" and c.i < n.i:
                    self.agent = Arg("agent", _without_case(c), c, core_wh(c), rule="conj_poss")


def _without_case(c: TokenView) -> tuple[int, int]:
    """A possessor's span without its "'s" ("the minister's rejection" -> "the minister"), as QANom answers are."""
    start, end = subtree_span(c)
    doc = c.doc
    if end - start > 1 and doc[end - 1].tag_ == "POS":
        end -= 1
    return start, end


_HANDLERS: Final[dict[str, Callable[[NounArgs, TokenView], None]]] = {
    "poss": NounArgs.possessor,
    "compound": NounArgs.compound,
    "nmod": NounArgs.compound,
    "acl": NounArgs.clause,
    "ccomp": NounArgs.clause,
    "nummod": NounArgs.number,
    "amod": NounArgs.adjective,
    "prep": NounArgs.prep,
    "dobj": NounArgs.verbal_object,
    "nsubj": NounArgs.verbal_subject,
    "relcl": NounArgs.relative,
    "appos": NounArgs.apposition,
}


def _agent_noun_referent(n: TokenView) -> Arg | None:
    """The named person an agent noun describes: its appositive, the name it is a title of, or its head."""
    for c in n.children:
        if c.dep_ == "appos" and c.tag_ in PROPER_TAGS:
            return Arg("agent", subtree_span(c), c, "who", rule="agent_noun_appos")
    head = n.head
    if head is not n and head.tag_ in PROPER_TAGS:
        if n.dep_ == "compound":  # "head coach Monreal"
            return Arg("agent", trim(n.doc, n.i + 1, head.i + 1), head, "who", rule="agent_noun_title")
        if n.dep_ == "appos":  # "Robert Adrain, editor of ..."
            return Arg("agent", np_antecedent(head, n), head, "who", rule="agent_noun_head")
    return None


def _as_agent_noun(found: NounArgs) -> None:
    """The noun names the doer ("his tutor", "the party leader"): possessor and compound are what it acts on,
    and the doer is the name it stands next to ("coach Monreal", "the writer, Robert Adrain")."""
    agent = found.agent
    if agent is not None and found.theme is None and agent.kind == "agent" and agent.prep == EMPTY_PREP:
        found.theme = Arg("obj", agent.span, agent.head, agent.wh, rule="agent_noun_" + agent.rule)
    found.agent = _agent_noun_referent(found.n)


def _subject_arg(subj: TokenView, rule: str, span: tuple[int, int] | None = None) -> Arg | None:
    """A subject as an agent candidate, a personal pronoun resolved to its antecedent (the pronoun kept as a mention)."""
    found = (span or subtree_span(subj), subj)
    mention = None
    if subj.tag_ == "PRP" and subj.lower_ in PRONOUN_PERSON:
        resolved = antecedent(subj)
        if resolved is not None:
            mention, found = found[0], resolved
    if found[0][0] >= found[0][1]:
        return None
    return Arg("agent", found[0], found[1], core_wh(found[1]), rule=rule, mention=mention)


def _is_passive(v: TokenView) -> bool:
    return any(c.dep_ in {"nsubjpass", "csubjpass", "auxpass"} for c in v.children)


def _clause_subject(n: TokenView, gov: TokenView) -> Arg | None:
    """The subject of the clause around the noun ("Israel conducted an investigation"), pronouns resolved.

    Never a passive clause's subject ("two guards were injured in the robbery": the guards did not rob), nor
    through a compound or a conjunct ("robbed two security guards"): there the clause says nothing of who did it.
    """
    if n.dep_ in {"compound", "conj"} or n.head.dep_ == "compound":
        return None
    if _is_passive(gov):
        return None
    subj = find_subject(gov)
    if subj is None or subj[0][0] <= n.i < subj[0][1]:
        return None
    return _subject_arg(subj[1], "clause_subject", subj[0])


UPPER_DEPS: Final = frozenset({"xcomp", "ccomp", "advcl", "conj", "pcomp", "relcl", "acl", "prep", "pobj"})


def _upper_subjects(n: TokenView, gov: TokenView | None, have: set[tuple[int, int]]) -> list[Arg]:
    """Subjects of the clauses above the noun's own ("FIFA claims they were not involved in the selection",
    "Turing died from poisoning" when the PP hangs lower): candidates the scorer weighs by how far up they are.
    Never through a compound or conjunct noun, nor the subject of a passive clause."""
    if n.dep_ in {"compound", "conj"} or n.head.dep_ == "compound":
        return []
    found: list[Arg] = []
    v = gov if gov is not None else n
    hops = 0
    while hops < 3:
        head = v.head
        if head == v or v.dep_ not in UPPER_DEPS and v != n:
            break
        # the next verb above
        tok = head
        while tok.tag_ not in VERB_TAGS and tok.head != tok and tok.dep_ in UPPER_DEPS | {"dobj", "attr", "nsubj"}:
            tok = tok.head
        if tok.tag_ not in VERB_TAGS:
            break
        hops += 1
        v = tok
        if _is_passive(v):
            continue
        subj = find_subject(v)
        if subj is None or subj[0] in have or subj[0][0] <= n.i < subj[0][1]:
            continue
        arg = _subject_arg(subj[1], f"upper_subject_{hops}{'_nogov' if gov is None else ''}", subj[0])
        if arg is not None and arg.span not in have:
            have.add(arg.span)
            found.append(arg)
    return found


def _passive_subject(n: TokenView, gov: TokenView) -> Arg | None:
    """A passive clause's subject as what the event was done to ("the photo was removed from circulation",
    "two guards were injured in the robbery" -> who was robbed): the theme, never the doer."""
    if n.dep_ not in {"pobj", "dobj", "dative"} or n.head.dep_ in {"compound", "agent"} or not _is_passive(gov):
        return None  # "services were affected by damage to the lines": the by-phrase's event did it, to the lines
    subj = first_child(gov, "nsubjpass")
    if subj is None or covers(subj, n.i):
        return None
    return _subject_arg(subj, "clause_passive_subject")


def _clause_adjuncts(n: TokenView, gov: TokenView) -> list[Arg]:
    """Time, place and reason of the clause around the noun ("the public exploded in whistles")."""
    i = n.i
    return [arg for first, last, c_i, arg in _clause_adjunct_candidates(gov) if not first <= i <= last and c_i != i]


def _clause_adjunct_candidates(gov: TokenView) -> list[tuple[int, int, int, Arg]]:
    """(subtree start, end, index, argument) of every adjunct a clause's verb offers its nouns, once per verb:
    every event noun of the clause asks for them."""
    cache = gov.doc.user_data.setdefault("_factcrowd_clause_adjuncts", {})
    found = cache.get(gov.i)
    if found is not None:
        return found
    found = []
    for c in gov.children:
        dep = c.dep_
        if dep == "prep":
            arg = prep_argument(gov, c)
            if arg is not None and (arg.kind == "adj" and arg.wh in CLAUSE_ADJUNCT_WH or arg.kind == "prep"):
                arg.rule = f"clause_pp_{arg.wh}" if arg.kind == "adj" else "clause_pp_core"
                found.append((c.left_edge.i, c.right_edge.i, -1, arg))
        elif dep == "npadvmod":  # the clause's "already", "now" rarely answer (dev: 0.22)
            arg = adverbial_argument(c)
            if arg is not None and arg.wh == "when":
                arg.rule = "clause_npadvmod"
                found.append((-1, -2, c.i, arg))
        elif dep == "advcl":
            arg = adverbial_clause(c)
            if arg is not None:
                arg.rule = f"clause_advcl_{arg.wh}"
                found.append((c.left_edge.i, c.right_edge.i, -1, arg))
    cache[gov.i] = found
    return found



# ------------------------------------------------------------------------------------------------ generator

GEN_DISTANCE: Final = 3  # dependency edges between the noun and a generated answer's head
GEN_SKIP_DEPS: Final = frozenset({"det", "aux", "auxpass", "cc", "punct", "case", "mark", "neg", "prep", "predet", "expl",
                           "prt", "dep", "meta", "intj"})
COPULAR_COMPLEMENTS: Final = frozenset({"acomp", "attr", "oprd"})
GEN_CONTAINS: Final = "C"  # signature prefix of a phrase that holds the noun itself ("a two-year prison sentence")
GEN_ADJUNCT_WH: Final = frozenset({"when", "where", "why", "how", "how long", "how much"})
_TRAINING: Final[dict[str, object]] = {"everything": False, "table": None, "prefixes": None}  # training only (see use_generator)


def _edge(t: TokenView) -> str:
    """The label of the edge from a token to its head, with the preposition's word ("prep:of")."""
    return f"prep:{t.lower_}" if t.dep_ == "prep" else t.dep_


def path_candidates(n: TokenView | SpacyToken, wanted: Container[str] | None = None,
                    prefixes: Container[str] | None = None,
                    distance: int | None = None) -> list[tuple[str, TokenView, tuple[int, int]]]:
    """_path_candidates for a view's or a spaCy token."""
    return _path_candidates(as_view(n), wanted, prefixes, distance)


def _path_candidates(n: TokenView, wanted: Container[str] | None = None, prefixes: Container[str] | None = None,
                    distance: int | None = None) -> list[tuple[str, TokenView, tuple[int, int]]]:
    """(signature, head, span) of every phrase whose head lies within `distance` dependency edges of the noun:
    the signature is the path, the relations up to the shared ancestor and those down from it
    ("pobj^prep:in|nsubj": the subject of the verb whose in-phrase holds the noun); the noun's ancestors give
    their whole phrase ("C^compound": "the detention facilities"). With `wanted` (signatures) and `prefixes`
    (signature_prefixes of them), only paths leading to a wanted signature are walked."""
    if distance is None:
        distance = GEN_DISTANCE
    found: list[tuple[str, TokenView, tuple[int, int]]] = []
    ups: list[str] = []
    below = -1
    a = n
    for j in range(distance + 1):
        upsig = "^".join(ups)
        if prefixes is not None and "U" + upsig not in prefixes:
            break
        if j == 0 or a.tag_ in _NOMINAL:
            sig = GEN_CONTAINS + ("^" + upsig if upsig else "")
            if wanted is None or sig in wanted:
                found.append((sig, a, subtree_span(a)))
        if j < distance:
            stack = [(c, f"{upsig}|{_edge(c)}", j + 1) for c in a.children if c.i != below]
            while stack:
                t, sig, d = stack.pop()
                if prefixes is not None and sig not in prefixes:
                    continue
                if (wanted is None or sig in wanted) and t.dep_ not in GEN_SKIP_DEPS and t.tag_ not in PUNCT_TAGS \
                        and not (d == 2 and j == 1 and t.dep_ in COPULAR_COMPLEMENTS and n.dep_ in SUBJ_DEPS):
                    found.append((sig, t, subtree_span(t)))  # "the claim was false" says nothing of how it was claimed
                if d < distance:
                    stack.extend((c, f"{sig}>{_edge(c)}", d + 1) for c in t.children)
        head = a.head
        if head.i == a.i:
            break
        ups.append(_edge(a))
        below = a.i
        a = head
    return found


def signature_prefixes(table: Iterable[str]) -> frozenset[str]:
    """Every prefix of the signatures' paths ("U" + the way up, then the way up "|" each start of the way down):
    what path_candidates needs to walk only towards them."""
    keys: set[str] = set()
    for sig in table:
        if sig.startswith(GEN_CONTAINS):
            up, down = sig[len(GEN_CONTAINS) + 1:], None
        else:
            up, _, down = sig.partition("|")
        parts = up.split("^") if up else []
        keys.update("U" + "^".join(parts[:k]) for k in range(len(parts) + 1))
        if down is not None:
            steps = down.split(">")
            keys.update(up + "|" + ">".join(steps[:k]) for k in range(1, len(steps) + 1))
    return frozenset(keys)


def _default_slot(sig: str, head: TokenView) -> tuple[str, str]:
    """(kind, wh) asked of a signature before training has seen it: subjects do the event, other nominal phrases
    undergo it, anything else says how."""
    last = sig.rsplit(">", 1)[-1].rsplit("|", 1)[-1]
    if head.tag_ in _NOMINAL_PRP_CD or sig.startswith(GEN_CONTAINS):
        return ("agent" if last == "nsubj" and agent_allowed(sig) else "obj"), core_wh(head)
    return "adj", "how"


def agent_allowed(sig: str) -> bool:
    """A generated doer must be an active clause's subject reached without a compound, a conjunct or a by-phrase
    on the way (the validity rules of _clause_subject and _passive_subject)."""
    up, _, down = sig.partition("|")
    return down.endswith("nsubj") and not any(e in {"compound", "conj", "agent", "nsubjpass"}
                                             for e in up.split("^") + down.split(">"))


@cache
def generator() -> dict[str, tuple[str, str]]:
    """The signatures the generator proposes, each with the (kind, wh) its question asks: learned on QANom train
    (train_nominal_arguments.py, the artefact's "generator" part); empty without it."""
    try:
        data = json.loads(ARGUMENT_MODEL_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("feature_version") != ARGUMENT_FEATURE_VERSION:
        return {}
    return {str(k): (str(v[0]), str(v[1])) for k, v in data.get("generator", {}).items()}


@cache
def _generator_prefixes() -> frozenset[str]:
    return signature_prefixes(generator())


def use_generator(table: dict[str, tuple[str, str]] | None, everything: bool = False) -> None:
    """Training only: propose `table`'s signatures instead of the artefact's, or every signature (each with its
    default question) to learn which to keep; `use_generator(None)` returns to the artefact."""
    _TRAINING["table"] = table
    _TRAINING["prefixes"] = signature_prefixes(table) if table is not None else None
    _TRAINING["everything"] = everything


def generated_arguments(found: NounArgs) -> None:
    """Phrases near the noun the hand rules do not propose, on the paths the generator learned to trust
    ("the withdrawal phase" for "during the withdrawal phase", the subject two clauses up): each its own
    question, the signature its rule, so that the scorer weighs it."""
    n = found.n
    table, given = _TRAINING["table"], _TRAINING["prefixes"]
    wanted: dict[str, tuple[str, str]] | None = None
    prefixes: frozenset[str] | None = None
    if not _TRAINING["everything"]:
        if isinstance(table, dict) and isinstance(given, frozenset):
            wanted, prefixes = table, given
        else:
            wanted, prefixes = generator(), _generator_prefixes()
        if not wanted:
            return
    have = {a.span for a in (found.agent, found.theme, *found.extra, *found.adjuncts) if a is not None}
    for sig, head, span in _path_candidates(n, wanted, prefixes):
        if span in have or span[0] >= span[1]:
            continue
        slot = wanted.get(sig) if wanted is not None else _default_slot(sig, head)
        if slot is None:
            continue
        kind, wh = slot
        if kind == "agent" and not agent_allowed(sig):
            continue  # never a doer the clause does not name as one (nor asked as the theme instead)
        wh = wh or core_wh(head)
        have.add(span)
        found.generated.append(Arg(kind, span, head, wh, rule="gen:" + sig))


def nominal_arguments(n: TokenView, verb: str) -> NounArgs:
    """Agent, theme and adjuncts of an event noun: its own dependents, its conjuncts', then its clause's."""
    return _arguments_in_clause(n, verb, noun_governor(n))


def arguments_in_clause(n: TokenView | SpacyToken, verb: str, gov: TokenView | SpacyToken | None) -> NounArgs:
    """_arguments_in_clause for a view's or spaCy's tokens."""
    return _arguments_in_clause(as_view(n), verb, None if gov is None else as_view(gov))


def _arguments_in_clause(n: TokenView, verb: str, gov: TokenView | None) -> NounArgs:
    """nominal_arguments with the noun's governing verb (noun_governor) already found."""
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
        # the appositive names the doer, a participle describes it ("shooters selected for ..."): neither the theme
        found.extra = [a for a in found.extra if a.rule != "appos_child" and not a.rule.startswith("acl_")]
    if gov is not None:
        if found.agent is None and n.dep_ not in SUBJ_DEPS and (not agentive or n.dep_ in {"attr", "oprd"}):
            found.agent = _clause_subject(n, gov)
        if found.theme is None and n.dep_ in {"pobj", "nsubj", "nsubjpass"}:
            found.theme = _clause_object(n, gov)
        passive = _passive_subject(n, gov)
        if passive is not None:
            passive.kind = "obj"
            found.extra.append(passive)
        found.adjuncts.extend(_clause_adjuncts(n, gov))
    if gov is None or found.agent is None:
        found.around()
    if not agentive:
        found.around_extra()
    if not agentive and n.dep_ not in SUBJ_DEPS:
        have = {a.span for a in (found.agent, found.theme, *found.extra) if a is not None}
        found.extra.extend(_upper_subjects(n, gov, have))
    own = trim(n.doc, n.left_edge.i, n.i + 1)
    if agentive:  # "the four shooters selected ..." -> Who shot? the four shooters: the noun names its doer
        found.extra.append(Arg("agent", own, n, "who" if is_person(n) else core_wh(n), rule="agent_noun_self"))
    elif n.tag_ in NOUN_TAGS and found.theme is None and own[1] - own[0] > 1:  # "the song she wrote", "a proposal"
        found.extra.append(Arg("obj", own, n, core_wh(n), rule="self_np"))
    if n.dep_ == "appos" and n.head.tag_ in _NOMINAL and n.head.i < n.i:
        head = n.head
        found.extra.append(Arg("obj", np_antecedent(head, n), head, core_wh(head), rule="appos_head"))
    generated_arguments(found)
    return found


def _clause_object(n: TokenView, gov: TokenView) -> Arg | None:
    """The object of the clause the noun sits in ("obtained part of the collection at auction")."""
    obj = first_child(gov, "dobj")
    if obj is None or covers(obj, n.i):
        return None
    return Arg("obj", subtree_span(obj), obj, core_wh(obj), rule=f"clause_object_{n.dep_}")


# ------------------------------------------------------------------------------------------------ questions


@lru_cache(maxsize=4096)
def _past_infos(verb: str) -> tuple[VerbInfo, VerbInfo]:
    """The past conjugation of QANom's questions and its passive twin (frozen dataclasses are slow to build)."""
    return VerbInfo(verb, past=True), VerbInfo(verb, past=True, passive=True)


def nominal_questions(verb: str, found: NounArgs) -> list[Question]:
    """QANom's questions: the verb in the past tense, the theme passive unless the verb is unaccusative."""
    info, passive = _past_infos(verb)
    agent, theme = found.agent, found.theme
    qas: list[Question] = []
    if theme is not None:
        if agent is None and verb in W.UNACCUSATIVE:
            qas.append((make_question(info, theme.wh), theme))
        else:
            qas.append((make_question(passive, theme.wh), theme))
    if agent is not None:
        qas.append((make_question(info, agent.wh, obj="something" if theme is None else filler(theme.head)), agent))
    for a in found.extra:
        if a.kind == "obj":
            qas.append((make_question(passive, a.wh), a))
        else:
            qas.append((make_question(info, a.wh, obj="something" if theme is None else filler(theme.head)), a))
    for a in found.generated:
        if a.kind == "agent":
            qas.append((make_question(info, a.wh, obj="something" if theme is None else filler(theme.head)), a))
        elif a.kind == "obj":
            qas.append((make_question(passive, a.wh), a))
        else:
            qas.append((make_question(info, a.wh, subj="something"), a))
    for a in found.adjuncts:
        if a.kind == "prep":
            q = make_question(info, a.wh, subj="someone", prep=a.prep)
        else:
            q = make_question(info, a.wh, subj="something")
        qas.append((q, a))
    return qas


# ------------------------------------------------------------------------------------------------ scoring


def _bucket(n: int) -> str:
    return str(n) if n < 3 else "3-5" if n <= 5 else "6-10" if n <= 10 else "11+"


def _noun_context(n: TokenView, verb: str, gov: TokenView | None) -> tuple[str, str, str, list[str]]:
    """What every argument of one noun shares: its relation (and the preposition it hangs from), tag, verb,
    the clause's verb and voice, determiner."""
    shared = [f"ntag={n.tag_}", f"v={verb}"]
    ndep = n.dep_
    if ndep == "pobj":  # "in response to", "during the interview", "died from poisoning"
        ndep = f"pobj:{n.head.lower_}"
    gov_stem = ""
    if gov is not None:
        gov_stem = lexicon.verb_stem(gov.lower_, gov.tag_)
        shared += [f"gov={gov_stem}", f"govpass={_is_passive(gov)}"]
    det = first_child(n, "det")
    shared.append(f"det={det.lower_ if det is not None else '-'}")
    return ndep, verb, gov_stem, shared


def argument_features(n: TokenView, arg: Arg, context: tuple[str, str, str, list[str]],
                      found: NounArgs | None = None) -> list[str]:
    """Features of one candidate argument of an event noun: the rule that found it, the answer's head, the
    rules that filled the noun's agent and theme slots, and the noun's context."""
    ndep, verb, gov_stem, shared = context
    rule = arg.rule or arg.kind
    key = (rule, arg.wh, ndep, verb)
    prefix = _PREFIXES.get(key)
    if prefix is None:
        if len(_PREFIXES) >= _PARTS_CAP:
            _PREFIXES.clear()
        prefix = _PREFIXES[key] = interned(("bias", f"rule={rule}", f"rule_wh={rule}:{arg.wh}", f"ndep={ndep}",
                                            f"rule_ndep={rule}:{ndep}", f"rule_v={rule}:{verb}", f"v_wh={verb}:{arg.wh}"))
    feats = [*prefix, *shared]
    head = arg.head
    if head is not None:
        cls = "person" if is_person(head) else "time" if is_time(head) else "other"
        hkey = (rule, head.tag_, head.dep_, cls, head.lower_)
        part = _HEAD_PARTS.get(hkey)
        if part is None:
            if len(_HEAD_PARTS) >= _PARTS_CAP:
                _HEAD_PARTS.clear()
            part = _HEAD_PARTS[hkey] = interned((f"htag={rule}:{head.tag_}", f"hdep={rule}:{head.dep_}",
                                                 f"hclass={rule}:{cls}", f"hword={rule}:{head.lower_}"))
        feats += part
    i = n.i
    start, end = arg.span
    right = start > i
    gap = start - i if right else i - end + 1
    skey = (rule, right, gap, end - start)
    where = _SPAN_PARTS.get(skey)
    if where is None:
        if len(_SPAN_PARTS) >= _PARTS_CAP:
            _SPAN_PARTS.clear()
        where = _SPAN_PARTS[skey] = interned((f"dist={rule}:{'R' if right else 'L'}{_bucket(gap)}",
                                              f"len={rule}:{_bucket(end - start)}"))
    feats += where
    if gov_stem:
        feats.append(f"rule_gov={rule}:{gov_stem}")
    if arg.prep != EMPTY_PREP:
        feats.append(f"prep={rule}:{arg.prep}")
    if rule.startswith("gen:"):
        up, _, down = rule[4:].partition("|")
        feats += [f"genup={up}", f"gendown={down}", f"genlast={down.rsplit('>', 1)[-1]}",
                  f"genhtag={head.tag_ if head is not None else '-'}"]
    if found is not None:
        agent, theme = found.agent, found.theme
        fkey = (rule, agent.rule if agent is not None else None, theme.rule if theme is not None else None,
                len(found.extra))
        slots = _SLOT_PARTS.get(fkey)
        if slots is None:
            if len(_SLOT_PARTS) >= _PARTS_CAP:
                _SLOT_PARTS.clear()
            slots = _SLOT_PARTS[fkey] = interned((
                f"slots={rule}:{agent.rule if agent is not None else '-'}/{theme.rule if theme is not None else '-'}",
                f"extras={rule}:{_bucket(len(found.extra))}"))
        feats += slots
    return feats


# argument_features' label-only parts, built once per label tuple (same strings, fewer f-strings per answer) and
# interned, as the models' feature names are (scoring.interned: their lookups compare pointers)
_PREFIXES: Final[dict[tuple[str, str, str, str], tuple[str, ...]]] = {}
_HEAD_PARTS: Final[dict[tuple[str, str, str, str, str], tuple[str, ...]]] = {}
_SPAN_PARTS: Final[dict[tuple[str, bool, int, int], tuple[str, ...]]] = {}  # (rule, right of the noun, gap, length)
_SLOT_PARTS: Final[dict[tuple[str, str | None, str | None, int], tuple[str, ...]]] = {}  # (rule, agent's, theme's, extras)
_PARTS_CAP: Final = 1 << 16


def argument_model() -> LinearModel:
    """The trained scorer of nominal arguments (parser/training/train_nominal_arguments.py)."""
    return load_linear(str(ARGUMENT_MODEL_PATH), ARGUMENT_FEATURE_VERSION)


def scored_questions(n: TokenView | SpacyToken, verb: str) -> list[tuple[tuple[str, ...] | None, Arg, list[str]]]:
    """_scored_questions for a view's or a spaCy token (training)."""
    return _scored_questions(as_view(n), verb)


def _scored_questions(n: TokenView, verb: str) -> list[tuple[tuple[str, ...] | None, Arg, list[str]]]:
    """Every question the rules ask about an event noun, with its argument and that argument's features."""
    gov = noun_governor(n)
    context = _noun_context(n, verb, gov)
    found = _arguments_in_clause(n, verb, gov)
    i = n.i
    return [(q, a, argument_features(n, a, context, found)) for q, a in nominal_questions(verb, found)
            if q is not None and (a.rule in SELF_RULES or a.rule.startswith("gen:C") or not a.span[0] <= i < a.span[1])]


def nominal_frame(n: TokenView | SpacyToken, verb: str, offset: int, sentence_index: int,
                  confidence: float = 1.0) -> PredicateFrame:
    """_nominal_frame for a view's or a spaCy token."""
    return _nominal_frame(as_view(n), verb, offset, sentence_index, confidence)


def _nominal_frame(n: TokenView, verb: str, offset: int, sentence_index: int, confidence: float = 1.0) -> PredicateFrame:
    """QANom-style QAs for a deverbal noun: possessor / compound / 'by' as agent, 'of' as theme, adjunct PPs.

    `confidence` is the detector's probability that the noun is an event (1.0 when the predicate was given);
    each argument the rules find is kept when the trained scorer's probability passes its threshold, and its QA's
    confidence is the product of the two.
    """
    frame = PredicateFrame(n.i + offset, n.text, verb, "nominal", sentence_index, "NOUN", confidence=confidence)
    model = argument_model()
    weights, intercept, threshold = model.weights, model.intercept, model.threshold
    for q, arg, feats in _scored_questions(n, verb):
        p = probability(weights, feats, intercept)  # LinearModel.probability, called in C
        if p < threshold:
            continue
        if arg.mention is not None and probability(weights, [*feats, "mention"], intercept) < threshold:
            arg.mention = None
        before = len(frame.qas)
        add_qas(frame.qas, [(q, arg)], n.doc, offset)
        for qa in frame.qas[before:]:
            qa.confidence = round4(confidence * p)
    return frame
