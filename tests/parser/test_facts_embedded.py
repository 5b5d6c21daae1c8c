"""The dependency-rule atomic-fact splitter (parser/facts/embedded.py) on hand-made biographies."""
from __future__ import annotations

import re

import pytest

from parser.embedded import EmbeddedParser
from parser.facts.embedded import EmbeddedFactSplitter, clean_sentence, finish, singular
from parser.facts.evaluation import words


@pytest.fixture(scope="module")
def splitter(embedded: EmbeddedParser) -> EmbeddedFactSplitter:
    return EmbeddedFactSplitter(nlp=embedded.nlp)


BIO = [
    "Kang Dong-won (born 18 January 1981) is a South Korean actor and model.[1]",
    "He was born in Busan, South Korea, and studied mechanical engineering at Hanyang University.[2][3]",
    "He has appeared in films such as Jeon Woo-chi and The Priests.",
    "He co-founded a production company in 2019.",
]


def test_copular_statements_nationality_coordination_and_the_parenthetical_birth(splitter) -> None:
    facts = splitter.split_sentences(BIO)
    assert facts[0] == [
        "Kang Dong-won was born on 18 January 1981.",
        "Kang Dong-won is South Korean.",
        "Kang Dong-won is an actor.",
        "Kang Dong-won is a model.",
    ]


def test_pronouns_resolve_to_the_entity_and_places_chain(splitter) -> None:
    facts = splitter.split_sentences(BIO)
    assert "Kang Dong-won was born in Busan." in facts[1]
    assert "Busan is in South Korea." in facts[1]
    assert "Kang Dong-won studied mechanical engineering at Hanyang University." in facts[1]
    assert not any(f.startswith("He ") for per in facts for f in per)
    kept = EmbeddedFactSplitter(nlp=splitter.nlp, resolve_pronouns=False).split_sentences(BIO)
    assert "He was born in Busan." in kept[1]


def test_lists_split_into_one_fact_per_member_with_the_category(splitter) -> None:
    facts = splitter.split_sentences(BIO)[2]
    for fact in ("Kang Dong-won has appeared in films.", "Kang Dong-won has appeared in Jeon Woo-chi.",
                 "Kang Dong-won has appeared in The Priests.", "Jeon Woo-chi is a film.", "The Priests is a film."):
        assert fact in facts


def test_meaning_kept_hyphenated_verbs_and_dates(splitter) -> None:
    facts = splitter.split_sentences(BIO)[3]
    assert facts == ["Kang Dong-won co-founded a production company.", "Kang Dong-won co-founded a production company in 2019."]


def test_relative_clauses_appositives_participles_and_conjoined_predicates(splitter) -> None:
    text = [
        "Marie Curie was a physicist who won the Nobel Prize in 1903 and 1911.",
        "Her husband, Pierre Curie, was also a physicist.",
        "She began her career in Paris in 1891, teaching physics and chemistry, and died in 1934.",
    ]
    facts = splitter.split_sentences(text)
    assert facts[0] == ["Marie Curie was a physicist.", "Marie Curie won the Nobel Prize.",
                        "Marie Curie won the Nobel Prize in 1903.", "Marie Curie won the Nobel Prize in 1911."]
    assert set(facts[1]) == {"Pierre Curie was a physicist.", "Her husband was Pierre Curie."}  # 'also' dropped
    assert "Curie taught physics." in facts[2] and "Curie taught chemistry." in facts[2]
    assert "Curie died in 1934." in facts[2]


def test_from_to_periods_and_shared_modifiers(splitter) -> None:
    text = ["Ann Lee is a Canadian poet.", "She taught in Lyon from 1992 to 2006, writing several French novels and plays."]
    facts = splitter.split_sentences(text)[1]
    assert {"Ann Lee taught in Lyon.", "Ann Lee taught from 1992.", "Ann Lee taught until 2006."} <= set(facts)
    assert "Ann Lee wrote several French plays." in facts  # the name as the text gives it: no shorter use


def test_citations_are_removed_whole_and_no_fact_has_a_cut_bracket(splitter) -> None:
    assert clean_sentence("He won.[1][12] It rained [citation needed] again [a].") == "He won. It rained again."
    text = BIO + ["She won the award (her second) in 2004 [4] and retired (in 2010)."]
    for per in splitter.split_sentences(text):
        for fact in per:
            assert "[" not in fact and "]" not in fact
            assert fact.count("(") == fact.count(")")


def test_facts_use_only_the_sentences_words_and_a_few_function_words(splitter) -> None:
    text = BIO + ["Marie Curie was a physicist who won the Nobel Prize in 1903.", "Her husband, Pierre Curie, was a chemist."]
    allowed = {"is", "was", "are", "were", "a", "an", "the", "on", "in", "until", "s", "'s"}
    for sentence, per in zip(text, splitter.split_sentences(text), strict=True):
        context = set(words(" ".join(text)))
        for fact in per:
            # a listed category is named in the singular ('films such as X' -> 'X is a film')
            extra = {w for w in words(fact) if not {w, w.split("'")[0], w + "s"} & context} - allowed
            assert not extra, (sentence, fact, extra)


def test_a_sentence_without_a_clause_is_kept_whole_and_unwanted_ones_are_skipped(splitter) -> None:
    assert splitter.split_sentences(["Ouch!", "Thanks."], wanted=[0]) == [["Ouch!"], []]
    assert splitter.split_sentences(["", '"', "- - -", "((()))", "[1]"]) == [[], [], [], [], []]  # never an empty fact


def test_small_helpers() -> None:
    assert [singular(w) for w in ("films", "series", "stories", "churches", "actress", "shows", "prizes", "boxes")] == [
        "film", "series", "story", "church", "actress", "show", "prize", "box"]
    assert finish("  he won ,  ") == "He won."
    assert finish('he starred in "Dust') == "He starred in Dust."
    assert re.fullmatch(r"[A-Z].*\.", finish("and she retired and"))
