"""The plan each protocol puts in the payload: which sections, in which order, with which aspects."""
from __future__ import annotations

import pytest

from annotation_tasks.models import AnswerSpan
from annotation_tasks.protocols import get_protocol, payload
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _plan(unit) -> list[dict]:
    return payload.build(unit, {})[0]["plan"]


def test_qasem_plan_is_spans_then_qas_per_response_then_the_comparison() -> None:
    unit = make_unit("plain", n_qas=1)
    a, b = (r.pk for r in payload.unit_responses(unit))
    assert _plan(unit) == [
        {"kind": "span_coverage", "response_id": a, "step": 1},
        {"kind": "qa_support", "response_id": a, "step": 2, "derived_from_spans": True},
        {"kind": "span_coverage", "response_id": b, "step": 1},
        {"kind": "qa_support", "response_id": b, "step": 2, "derived_from_spans": True},
        {"kind": "pairwise", "response_ids": [a, b], "aspects": ["consistency"]},
    ]


def test_rag_items_are_compared_on_faithfulness_and_relevance() -> None:
    by_passages = make_unit("rag", n_qas=1, passages=["Anna visited Paris."])
    assert _plan(by_passages)[-1]["aspects"] == ["faithfulness", "relevance"]
    by_question = make_unit("question", n_qas=1)
    by_question.source.question = "Where did Anna go?"
    by_question.source.save()
    assert _plan(by_question)[-1]["aspects"] == ["faithfulness", "relevance"]


def test_a_response_without_spans_gets_its_qas_as_step_one_and_one_response_is_not_compared() -> None:
    unit = make_unit("no spans", n_qas=1, n_responses=1)
    AnswerSpan.objects.filter(response__in=payload.unit_responses(unit)).delete()
    (rid,) = (r.pk for r in payload.unit_responses(unit))
    assert _plan(unit) == [{"kind": "qa_support", "response_id": rid, "step": 1, "derived_from_spans": False}]


def test_qa_support_only_protocol_asks_qas_without_deriving_them() -> None:
    unit = make_unit("qa only", protocol=["qa_support"], n_qas=1)
    assert [(s["kind"], s.get("derived_from_spans")) for s in _plan(unit)] == [
        ("qa_support", False), ("qa_support", False)
    ]


def test_factscore_and_validation_plans_are_one_section_per_response() -> None:
    unit = make_unit("fs", protocol=["fact_labeling", "pairwise"], with_facts=True, n_qas=1)
    ids = [r.pk for r in payload.unit_responses(unit)]
    assert _plan(unit) == [{"kind": "fact_labeling", "response_id": i} for i in ids]
    unit.mode = "validation"
    assert _plan(unit) == [{"kind": "qa_validation", "response_id": i} for i in ids]


def test_a_mode_no_protocol_serves_shows_nothing_to_judge() -> None:
    unit = make_unit("stray", n_qas=1)
    unit.mode = "stray"
    data, shown = payload.build(unit, {})
    assert data["plan"] == [] and all(r["qas"] == [] and r["spans"] == [] for r in data["responses"])
    assert shown.qas == [] and len(shown.responses) == 2
    with pytest.raises(ValueError, match="unknown unit mode 'stray'"):
        get_protocol("stray")


def test_submitting_a_unit_of_a_mode_no_protocol_serves_is_refused_and_writes_nothing() -> None:
    from annotation_tasks.models import Assignment, Unit, Worker
    from annotation_tasks.services import work

    unit = make_unit("stray submit", n_qas=1)
    Unit.objects.filter(pk=unit.pk).update(mode="stray")
    assignment = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id="w"))
    with pytest.raises(work.Invalid, match="unknown unit mode 'stray'") as refused:
        work.submit(assignment, {"labels": {}})
    assert refused.value.status_code == 400
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.ASSIGNED and assignment.submission is None
