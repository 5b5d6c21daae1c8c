"""The QA-SRL slot grammar: what it accepts, what it rejects, raw-question splitting and roles."""
from __future__ import annotations

import csv

import pytest

from parser import lexicon, qasrl_slots
from tests.conftest import shared_file


@pytest.mark.parametrize(
    "slots",
    [
        ("who", "_", "_", "apologized", "_", "_", "_"),
        ("what", "did", "someone", "apologize", "_", "for", "_"),
        ("what", "is", "_", "being suspended", "_", "_", "_"),
        ("how long", "is", "something", "being suspended", "_", "_", "_"),
        ("who", "might", "_", "have won", "_", "_", "_"),
        ("what", "has", "someone", "been recovering", "_", "from", "_"),
        ("what", "might", "someone", "not be doing", "_", "_", "_"),
        ("who", "was", "_", "born", "_", "_", "_"),
        ("what", "does", "someone", "want", "_", "_", "to do"),
    ],
)
def test_valid_questions(slots: tuple[str, ...]) -> None:
    assert qasrl_slots.invalid_reason(slots) is None


@pytest.mark.parametrize(
    ("slots", "why"),
    [
        (("who", "did", "_", "apologized", "_", "_", "_"), "verb"),  # do-support needs the stem
        (("who", "_", "someone", "apologized", "_", "_", "_"), "subject slot needs an auxiliary"),
        (("which", "did", "someone", "say", "_", "_", "_"), "wh slot"),
        (("what", "are", "someone", "saying", "_", "_", "_"), "aux slot"),  # QA-SRL auxes are singular
        (("what", "is", "someone", "say", "_", "_", "_"), "verb"),
        (("what", "did", "someone", "say", "_", "beneath of", "_"), "prep slot"),
        (("what", "did", "someone", "say", "_", "_"), "7 slots"),
        (("what", "has", "someone", "saying", "_", "_", "_"), "verb"),
    ],
)
def test_invalid_questions(slots: tuple[str, ...], why: str) -> None:
    reason = qasrl_slots.invalid_reason(slots)
    assert reason is not None and why in reason


def test_parse_raw_question_places_multiword_slots() -> None:
    assert qasrl_slots.parse_raw_question("how long is something being suspended _ _ _?") == (
        "how long", "is", "something", "being suspended", "_", "_", "_",
    )
    assert qasrl_slots.parse_raw_question("who _ _ exploded _ in doing something") == (
        "who", "_", "_", "exploded", "_", "in", "doing something",
    )
    assert qasrl_slots.parse_raw_question("what someone something") is None  # no verb
    assert qasrl_slots.parse_raw_question("hello there") is None  # no wh-word


def test_render_and_roles() -> None:
    assert qasrl_slots.render(("what", "did", "someone", "apologize", "_", "for", "_")) == "What did someone apologize for?"
    assert qasrl_slots.role_of(("who", "_", "_", "apologized", "_", "_", "_")) == "R0"
    assert qasrl_slots.role_of(("what", "was", "_", "shot", "_", "_", "_")) == "R1"  # passive subject
    assert qasrl_slots.role_of(("who", "was", "someone", "shot", "_", "by", "_")) == "R0"
    assert qasrl_slots.role_of(("who", "did", "someone", "tell", "something", "to", "_")) == "R2_to"
    assert qasrl_slots.role_of(("where", "did", "someone", "go", "_", "_", "_")) == "where"


INFLECTION = {
    "Stem": "stem",
    "Past": "past",
    "PastParticiple": "past_participle",
    "PresentParticiple": "present_participle",
    "PresentSingular3rd": "present3",
}


def test_grammar_accepts_real_gold_questions() -> None:
    """The checker is not stricter than QA-SRL itself: the annotated gold questions pass it."""
    path = shared_file("qasrl_gs", "wikinews.dev.gold.csv")
    vocab = qasrl_slots.slot_vocabulary()
    total = ok = 0
    with open(path, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if not row["verb_slot_inflection"]:
                continue
            prep = row["prep"] or "_"
            obj2 = row["obj2"] or "_"
            if prep not in vocab["prep"]:  # the old release wrote "to do" in the prep slot
                obj2, prep = (prep if obj2 == "_" else obj2), "_"
            stem = lexicon.verb_stem(row["verb"].lower())
            inflected = getattr(lexicon.verb_forms(stem), INFLECTION[row["verb_slot_inflection"]])
            verb = " ".join(x for x in (row["verb_prefix"].replace("~!~", " "), inflected) if x)
            slots = (row["wh"], row["aux"] or "_", row["subj"] or "_", verb, row["obj"] or "_", prep, obj2)
            total += 1
            ok += qasrl_slots.is_valid(slots)
    assert total > 3000
    assert ok / total >= 0.97, f"{ok}/{total} gold questions accepted"


def test_parse_questions_written_without_underscores() -> None:
    assert qasrl_slots.parse_raw_question("What did someone jump over?") == (
        "what", "did", "someone", "jump", "_", "over", "_",
    )
    assert qasrl_slots.parse_raw_question("Who jumped?") == ("who", "_", "_", "jumped", "_", "_", "_")
    assert qasrl_slots.parse_raw_question("Where has something been recovering?") == (
        "where", "has", "something", "been recovering", "_", "_", "_",
    )
