"""Nominal argument candidates (parser.embedded.nominal): which rule proposes what for an event noun, and which
candidates a question must never state. Sentences written by hand; expected answers read off the sentence."""
from __future__ import annotations

from parser.embedded import EmbeddedParser
from parser.embedded.arguments import noun_governor
from parser.embedded.nominal import arguments_in_clause, scored_questions
from parser.types import ParsedText, PredicateFrame


def _noun(embedded: EmbeddedParser, text: str, word: str):
    doc = embedded.nlp(text)
    return next(t for t in doc if t.text == word)


def _candidates(embedded: EmbeddedParser, text: str, word: str, verb: str) -> dict[str, str]:
    """rule -> answer text of every candidate argument the rules propose for the noun `word`."""
    n = _noun(embedded, text, word)
    found = arguments_in_clause(n, verb, noun_governor(n))
    args = [a for a in (found.agent, found.theme, *found.extra, *found.adjuncts) if a is not None]
    return {a.rule: n.doc[a.span[0]:a.span[1]].text for a in args}


def _frame(parsed: ParsedText, word: str) -> PredicateFrame:
    return next(f for f in parsed.frames if f.text == word and f.kind == "nominal")


def test_possessive_agent_and_of_theme_are_asked_and_kept(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The minister's rejection of the offer surprised the unions.")
    qas = {qa.question: parsed.span_text(qa.answers[0].start, qa.answers[0].end) for qa in _frame(parsed, "rejection").qas}
    assert qas.get("Who rejected something?") == "The minister"
    assert qas.get("What was rejected?") == "the offer"


def test_subject_of_a_higher_clause_is_a_candidate(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "Smith said that the company would begin an investigation.", "investigation",
                        "investigate")
    assert found.get("clause_subject") == "the company"
    assert any(rule.startswith("upper_subject") and text == "Smith" for rule, text in found.items())


def test_passive_subject_is_only_ever_the_theme(embedded: EmbeddedParser) -> None:
    """'two guards were injured in the robbery' does not say the guards robbed: they can only be who was robbed."""
    n = _noun(embedded, "Two security guards were injured in the robbery.", "robbery")
    asked = [(q, n.doc[a.span[0]:a.span[1]].text, a.kind) for q, a, _ in scored_questions(n, "rob")]
    guards = [(q, kind) for q, text, kind in asked if "guards" in text]
    assert guards and all(kind == "obj" and q[1] != "_" for q, kind in guards)  # passive question: "Who was robbed?"


def test_second_level_place_phrase_and_relative_clause_subject(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "Trains were delayed by damage to railway lines in Dawlish.", "damage", "damage")
    assert found.get("pp2_where") == "in Dawlish"
    found = _candidates(embedded, "Everyone liked the speech she gave at the dinner.", "speech", "speak")
    assert found.get("relcl_subject") == "she"


def test_the_phrase_around_the_noun_gives_duration_and_theme(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "The country has had several weeks of protests.", "protests", "protest")
    assert found.get("pp_head_extra_of") == "several weeks"


def test_agent_noun_appositive_is_the_doer_not_the_theme(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "The party praised its leader, John Smith.", "leader", "lead")
    assert "appos_child" not in found and found.get("agent_noun_appos") == "John Smith"



def test_agent_noun_participle_is_no_theme(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "The four shooters selected for the operation received training.", "shooters", "shoot")
    assert not any(rule.startswith("acl_") for rule in found)  # "selected for the operation" was not shot
    found = _candidates(embedded, "Trains were delayed by damage to railway lines in Dawlish.", "damage", "damage")
    assert "clause_passive_subject" not in found  # the damage was done to the lines, not to the trains


def test_agent_noun_names_its_own_doer_and_a_bare_noun_is_no_answer_about_itself(embedded: EmbeddedParser) -> None:
    found = _candidates(embedded, "The four shooters selected for the operation received training.", "shooters", "shoot")
    assert found.get("agent_noun_self") == "The four shooters"
    found = _candidates(embedded, "The four shooters selected for the operation received training.", "training", "train")
    assert "self_np" not in found  # "What was trained? training" says nothing
    found = _candidates(embedded, "The minister's rejection of the offer surprised the unions.", "rejection", "reject")
    assert "self_np" not in found  # the of-phrase is the theme: the noun's own phrase is not asked beside it
