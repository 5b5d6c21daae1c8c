"""The QA policy (which kinds, least confidence, most QAs per predicate) and the questions it lets through."""
from __future__ import annotations

import copy

import pytest

from parser import lexicon
from parser.embedded import EmbeddedParser
from parser.policy import DEFAULT_POLICY, PolicyError, QAPolicy, apply_policy
from parser.types import Answer, ParsedText, PredicateFrame, QAPair, Token


def _qa(question: str, confidence: float) -> QAPair:
    return QAPair(("what", "_", "_", "left", "_", "_", "_"), question, [Answer(0, 1)], "R0", confidence)


def _parsed() -> ParsedText:
    frames = [
        PredicateFrame(1, "left", "leave", "verbal", qas=[_qa("v1", 0.9), _qa("v2", 0.4), _qa("v3", 0.7),
                                                            _qa("v4", 0.8), _qa("v5", 0.95), _qa("v6", 0.6)]),
        PredicateFrame(2, "departure", "depart", "nominal", qas=[_qa("n1", 0.65), _qa("n2", 0.55)], confidence=0.7),
        PredicateFrame(3, "is", "be", "copular", qas=[_qa("c1", 0.9)]),
    ]
    return ParsedText("x y z w", [Token(i, "x", 2 * i, 2 * i + 1) for i in range(4)], [], frames, "embedded")


def test_policy_keeps_the_surest_qas_in_their_order_and_counts_the_rest() -> None:
    parsed = _parsed()
    before = copy.deepcopy(parsed)
    policy = QAPolicy.from_dict({"kinds": ["verbal", "nominal"], "min_confidence": {"nominal": 0.6},
                                 "max_qas_per_predicate": 3})
    shown = apply_policy(parsed, policy)
    assert parsed == before  # the input is not changed
    verbal, nominal = shown.frames
    assert [q.question for q in verbal.qas] == ["v1", "v4", "v5"]  # the three surest, in the parser's order
    assert [q.question for q in nominal.qas] == ["n1"]
    assert shown.dropped == {"kind": 1, "confidence": 2, "per_predicate": 2}  # v2 (0.4) and n2 under their bars


def test_default_policy_is_precision_first_for_nouns() -> None:
    shown = apply_policy(_parsed())
    assert DEFAULT_POLICY.threshold("nominal") > DEFAULT_POLICY.threshold("verbal")
    assert [q.question for q in shown.frames[1].qas] == ["n1"]
    assert len(shown.frames[0].qas) == DEFAULT_POLICY.max_qas_per_predicate


@pytest.mark.parametrize(("data", "path"), [
    ({"kinds": ["verbal", "adjectival"]}, "policy.kinds[1]"),
    ({"kinds": "verbal"}, "policy.kinds"),
    ({"min_confidence": 1.5}, "policy.min_confidence"),
    ({"min_confidence": {"nominal": "high"}}, "policy.min_confidence.nominal"),
    ({"min_confidence": {"adverbial": 0.5}}, "policy.min_confidence.adverbial"),
    ({"max_qas_per_predicate": 0}, "policy.max_qas_per_predicate"),
    ({"max_qas_per_predicate": True}, "policy.max_qas_per_predicate"),
    ({"max_per_predicate": 3}, "policy.max_per_predicate"),
    ([1, 2], "policy"),
])
def test_invalid_policies_name_the_field(data, path: str) -> None:
    with pytest.raises(PolicyError) as err:
        QAPolicy.from_dict(data)
    assert str(err.value).startswith(path + ":")


def test_policy_round_trips_through_a_dict() -> None:
    policy = QAPolicy.from_dict({"min_confidence": 0.7, "max_qas_per_predicate": None})
    assert QAPolicy.from_dict(policy.to_dict()) == policy
    assert policy.threshold("copular") == 0.7 and policy.max_qas_per_predicate is None


def test_no_shown_question_makes_the_victims_the_robbers(embedded: EmbeddedParser) -> None:
    """Issue 11: 'What robbed something? -> Two security guards' when the guards were the victims."""
    parsed = embedded.parse("Two security guards were injured in the robbery on Friday.")
    for p in (parsed, apply_policy(parsed)):
        robbery = [f for f in p.frames if f.text == "robbery"]
        for frame in robbery:
            agents = [parsed.span_text(a.start, a.end) for q in frame.qas if q.role == "R0" for a in q.answers]
            assert "Two security guards" not in agents
    assert all(0 < q.confidence <= 1 for f in parsed.frames for q in f.qas)


def test_verb_forms_come_from_the_common_verb(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("He went home after the commitments were announced.")
    went = next(f for f in parsed.frames if f.text == "went")
    assert went.verb_form == "go" and any(q.question == "Where did someone go?" for q in went.qas)
    assert lexicon.nominalization_verb("commitments") == "commit"  # not 'commission', its cluster's top verb
