"""Bulk decisions on a filter (not a page) and corrections of a question or an answer span with provenance."""
from __future__ import annotations

import pytest

from annotation_tasks.models import QA, AnswerSpan, Assignment, QAEdit, QALabel, Unit, Worker
from annotation_tasks.protocols import payload as unit_payload
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db


def test_a_bulk_decision_applies_to_every_qa_of_the_filter_across_pages(researcher, client):
    project, _ = make_project(researcher, n_qas=30)  # 60 QAs, more than a page of the screen (25)
    target = QA.objects.filter(response__project=project, predicate__kind="nominal", confidence__lt=0.5)
    expected = set(target.values_list("id", flat=True))
    assert 25 < QA.objects.filter(response__project=project).count() and expected
    listed = client.get("/api/qas/", {"project": project.pk, "kind": "nominal", "confidence_lt": "0.5",
                                      "page_size": 500}).json()
    assert {q["id"] for q in listed["results"]} == expected
    r = client.post("/api/qas/bulk-validate/", {
        "filter": {"project": project.pk, "kind": "nominal", "confidence_lt": 0.5}, "validity": "invalid",
    }, format="json")
    assert r.status_code == 200 and r.json()["updated"] == len(expected)
    invalid = set(QA.objects.filter(validity=QA.Validity.INVALID).values_list("id", flat=True))
    assert invalid == expected  # verbal QAs and confident nominal ones are untouched


def test_bulk_filters_are_checked_and_never_span_projects(researcher, client):
    project, _ = make_project(researcher)
    for body, field in (
        ({"filter": {"kind": "nominal"}, "validity": "invalid"}, "filter"),
        ({"filter": {"project": project.pk, "colour": "red"}, "validity": "invalid"}, "filter.colour"),
        ({"filter": {"project": project.pk, "kind": "adjective"}, "validity": "invalid"}, "filter.kind"),
        ({"filter": {"project": project.pk, "confidence_lt": 3}, "validity": "invalid"}, "filter.confidence_lt"),
        ({"filter": {"project": project.pk}, "validity": "maybe"}, "validity"),
    ):
        r = client.post("/api/qas/bulk-validate/", body, format="json")
        assert r.status_code == 400 and field in r.json(), (body, r.content)
    assert not QA.objects.exclude(validity=QA.Validity.UNKNOWN).exists()
    r = client.get("/api/qas/", {"project": project.pk, "confidence_lt": "high"})
    assert r.status_code == 400 and "confidence_lt" in r.json()


def test_another_researchers_qas_are_out_of_reach(researcher, client, django_user_model):
    make_project(researcher, name="Mine")
    other = django_user_model.objects.create_user("other")
    project, _ = make_project(other, name="Theirs")
    r = client.post("/api/qas/bulk-validate/", {"filter": {"project": project.pk}, "validity": "invalid"},
                    format="json")
    assert r.status_code == 200 and r.json()["updated"] == 0
    qa = QA.objects.filter(response__project=project).first()
    assert client.post(f"/api/qas/{qa.pk}/correct/", {"question": "Who?"}, format="json").status_code == 404


def test_a_corrected_question_is_what_workers_see_and_the_original_is_kept(researcher, client):
    project, batch = make_project(researcher)
    qa = QA.objects.filter(response__project=project).order_by("id").first()
    original = qa.question
    r = client.post(f"/api/qas/{qa.pk}/correct/", {"question": "Who  visited a city?", "reason": "role"},
                    format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["question"] == "Who visited a city?" and body["edited"] and body["validity"] == "valid"
    assert body["original"]["question"] == original
    edit = QAEdit.objects.get(qa=qa)
    assert (edit.before["question"], edit.after["question"], edit.editor, edit.reason) == (
        original, "Who visited a city?", researcher, "role")
    unit = Unit.objects.filter(batch=batch, unit_responses__response=qa.response).first()
    served = unit_payload.build(unit, {})[0]
    assert [q["question"] for r_ in served["responses"] for q in r_["qas"] if q["id"] == qa.pk] == ["Who visited a city?"]
    # a second edit keeps the very first original
    client.post(f"/api/qas/{qa.pk}/correct/", {"question": "Who visited the city?"}, format="json")
    assert client.get(f"/api/qas/{qa.pk}/").json()["original"]["question"] == original


def test_a_moved_answer_takes_its_text_from_the_tokens_and_moves_to_that_span(researcher, client):
    project, _ = make_project(researcher)
    qa = QA.objects.filter(response__project=project).order_by("id").first()
    old_span = qa.answer_spans.get()
    tokens = qa.response.tokens
    r = client.post(f"/api/qas/{qa.pk}/correct/", {"answer_start": 0, "answer_end": 3}, format="json")
    assert r.status_code == 200, r.content
    qa.refresh_from_db()
    assert qa.answer == qa.response.text[tokens[0][1] : tokens[2][2]] and (qa.answer_start, qa.answer_end) == (0, 3)
    span = qa.answer_spans.get()
    assert (span.start, span.end, span.origin) == (0, 3, "human")
    assert not AnswerSpan.objects.filter(pk=old_span.pk).exists()  # the parser span left without QAs went
    assert QAEdit.objects.get(qa=qa).before["answer_end"] == 1


def test_bad_corrections_answer_400_naming_the_field(researcher, client):
    project, batch = make_project(researcher)
    qa = QA.objects.filter(response__project=project).order_by("id").first()
    n = len(qa.response.tokens)
    for body, field in (
        ({"answer_start": 2, "answer_end": 2}, "answer_end"),
        ({"answer_end": n + 1}, "answer_start"),
        ({"question": "   "}, "question"),
        ({}, "body"),
    ):
        r = client.post(f"/api/qas/{qa.pk}/correct/", body, format="json")
        assert r.status_code == 400 and field in r.json(), (body, r.content)
    unit = Unit.objects.filter(batch=batch).first()
    worker = Worker.objects.create(external_id="w")
    a = Assignment.objects.create(unit=unit, worker=worker, status=Assignment.Status.SUBMITTED)
    QALabel.objects.create(assignment=a, qa=qa, supported=True)
    r = client.post(f"/api/qas/{qa.pk}/correct/", {"question": "Who went?"}, format="json")
    assert r.status_code == 400 and "labeled" in r.json()["qa"]
    assert not QAEdit.objects.exists() and QA.objects.get(pk=qa.pk).question == qa.question

