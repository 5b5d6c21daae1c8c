"""Training and qualification (issue 24 item 4): training units first, per-item feedback, a pass mark per project.

A local annotator and a Prolific participant both get the project's training units before any main unit (a training
unit goes to every new worker, whatever its slots), see after each submit which items matched the expert and why,
and are admitted to main units, or paid for the training and told politely that there is no more work for them.
"""
from __future__ import annotations

import json
from io import StringIO
from urllib.parse import urlparse

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, GoldLabel, ProjectMembership, QualityDecision, Unit, WorkerProjectStatus
from annotation_tasks.services import publishing
from annotation_tasks.services.tokens import read_assignment_token
from tests.crowd.conftest import element_attrs, enter_place
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _submit(client, token: str, *, careful: bool) -> None:
    """A careful worker matches the expert (gold: first span covered, first QA supported); a careless one calls
    every QA unsupported, so half of each response's training items differ."""
    unit = client.get(f"/api/work/{token}/unit").json()
    spans, qas = [], []
    for r in unit["responses"]:
        spans += [{"span_id": s["id"], "covered": True} for s in r["spans"]]
        qas += [{"qa_id": q["id"], "supported": careful and i == 0, "derived_from_span": False, "note": ""}
                for i, q in enumerate(r["qas"])]
    labels = {"spans": spans, "qas": qas}
    compare = [section for section in unit["plan"] if section["kind"] == "pairwise"]
    if compare:
        labels["pairwise"] = [{"aspect": a, "score": 3} for a in compare[0]["aspects"]]
    resp = client.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": 1000},
                       content_type="application/json")
    assert resp.status_code == 200, resp.content


def _researcher(project) -> APIClient:
    user = get_user_model().objects.create_user(f"res-{project.pk}", password="pw-123456")
    ProjectMembership.objects.create(project=project, user=user, role="researcher")
    client = APIClient()
    client.force_login(user)
    return client


def _annotator(project, name: str) -> APIClient:
    user = get_user_model().objects.create_user(name, password="pw-123456")
    ProjectMembership.objects.create(project=project, user=user, role="annotator")
    client = APIClient()
    client.force_login(user)
    return client


def _next(client, project) -> Assignment | None:
    r = client.post("/api/work/next", {"project": project.pk}, format="json")
    if r.status_code == 204:
        return None
    assert r.status_code == 200, r.content
    return Assignment.objects.select_related("unit").get(pk=r.json()["assignment_id"])


def _token(assignment: Assignment) -> str:
    from annotation_tasks.services.tokens import assignment_token

    return assignment_token(assignment)


def test_marking_training_units_through_the_api_checks_every_field():
    units = make_unit("Mark", n_qas=1, n_responses=1, wanted=1, n_sources=2)
    project = units[0].project
    client = _researcher(project)
    url = f"/api/projects/{project.pk}/training/"
    from annotation_tasks.models import QA

    qa = QA.objects.filter(response__project=project).first()
    bad = [({"units": [999999]}, "units"), ({"pass_mark": 2}, "pass_mark"),
           ({"labels": [{"target": "qa", "id": qa.pk, "value": "maybe"}]}, "labels[0].value"),
           ({"labels": [{"target": "nope", "id": 1, "value": "x"}]}, "labels[0].target"),
           ({"labels": [{"target": "qa", "id": "x", "value": "supported"}]}, "labels[0].id")]
    for body, where in bad:
        r = client.post(url, body, format="json")
        assert r.status_code == 400 and where in r.json(), (body, r.content)
    assert not Unit.objects.filter(is_training=True).exists()
    r = client.post(url, {"units": [units[0].pk], "pass_mark": 0.75, "labels": [
        {"target": "qa", "id": qa.pk, "value": "not_supported", "explanation": "The source says Lyon."}]},
        format="json")
    assert r.status_code == 200 and r.json()["units"] == [units[0].pk] and r.json()["pass_mark"] == 0.75
    gold = GoldLabel.objects.get(qa=qa)
    assert (gold.value, gold.explanation) == ("not_supported", "The source says Lyon.")
    other = _annotator(project, "outsider-x")  # an annotator is no researcher
    assert other.post(url, {"units": [units[1].pk]}, format="json").status_code in (403, 404)


def test_the_management_command_marks_units(tmp_path):
    units = make_unit("Cmd", n_qas=1, n_responses=1, wanted=1, n_sources=2)
    from annotation_tasks.models import AnswerSpan

    span = AnswerSpan.objects.filter(response__project=units[0].project).first()
    path = tmp_path / "labels.jsonl"
    path.write_text(json.dumps({"target": "span", "id": span.pk, "value": "not_covered", "explanation": "Not said."}))
    out = StringIO()
    call_command("training", project=units[0].project_id, units=str(units[1].pk), labels=str(path), pass_mark=0.5,
                 stdout=out)
    assert "1 units marked as training, 1 expert labels stored" in out.getvalue()
    assert list(Unit.objects.filter(is_training=True).values_list("pk", flat=True)) == [units[1].pk]
    assert GoldLabel.objects.get(span=span).value == "not_covered"


def test_local_workers_train_first_see_feedback_and_pass_or_fail():
    units = make_unit("Local training", n_qas=2, n_responses=1, wanted=1, n_sources=3)
    project = units[0].project
    _researcher(project).post(f"/api/projects/{project.pk}/training/", {"units": [units[2].pk], "pass_mark": 0.8},
                              format="json")
    # the careful worker: the training unit (the newest unit) comes first, and again after it expired
    good = _annotator(project, "good")
    first = _next(good, project)
    assert first.unit_id == units[2].pk
    Assignment.objects.filter(pk=first.pk).update(status="expired")
    first = _next(good, project)
    assert first.unit_id == units[2].pk and first.status == "assigned"
    _submit(good, _token(first), careful=True)
    page = good.get(f"/annotate/{project.pk}/").content.decode()
    assert 'data-testid="training-feedback"' in page and "/api/work/next" not in page  # feedback before the next unit
    assert page.count('data-matched="yes"') == 2 and 'data-matched="no"' not in page
    assert "gold-explanation-do-not-leak" in page  # the expert's explanation is the point of training
    assert "You are qualified" in page
    cont = good.get(f"/annotate/{project.pk}/?seen={first.pk}").content.decode()
    assert "/api/work/next" in cont and "training-feedback" not in cont
    main = _next(good, project)
    assert main.unit_id == units[0].pk and not main.unit.is_training
    # the careless worker gets the training unit although its one slot is taken, and fails
    bad = _annotator(project, "bad")
    lesson = _next(bad, project)
    assert lesson.unit_id == units[2].pk
    _submit(bad, _token(lesson), careful=False)
    page = bad.get(f"/annotate/{project.pk}/").content.decode()
    assert 'data-matched="no"' in page and 'data-matched="yes"' in page and "cannot offer you the main task" in page
    assert _next(bad, project) is None  # no main units
    polite = bad.get(f"/annotate/{project.pk}/?seen={lesson.pk}").content.decode()
    assert "We appreciate your time" in polite and "/api/work/next" not in polite
    lesson.refresh_from_db()
    assert lesson.status == "approved"  # paid for the training
    standing = WorkerProjectStatus.objects.get(worker=lesson.worker, project=project).qualifications["training"]
    assert standing["passed"] is False and standing["matched"] == 1 and standing["items"] == 2
    decision = QualityDecision.objects.get(worker=lesson.worker, action="training")
    assert "did not pass: 1/2" in decision.reason
    summary = _researcher_get(project)
    assert {(w["worker"], w["passed"]) for w in summary["workers"]} == {(first.worker_id, True), (lesson.worker_id, False)}


def _researcher_get(project) -> dict:
    from annotation_tasks.models import ProjectMembership as PM

    user = PM.objects.filter(project=project, role="researcher").first().user
    client = APIClient()
    client.force_login(user)
    return client.get(f"/api/projects/{project.pk}/training/").json()


def _continue(client, page) -> object:
    import re
    from html import unescape

    href = unescape(re.search(r'data-testid="training-continue" href="([^"]+)"', page.content.decode()).group(1))
    return client.get(href)


def test_prolific_participants_train_first_in_their_place(client, fake_prolific):
    units = make_unit("Prolific training", n_qas=2, n_responses=1, wanted=1, provider="prolific", n_sources=3)
    batch = units[0].batch
    Unit.objects.filter(pk=units[0].pk).update(is_training=True)
    publishing.publish_batch(batch, reward="1.00", assignments_per_unit=1, units_per_place=3)
    batch.refresh_from_db()

    def take(page) -> Assignment:
        attrs = element_attrs(page)
        assert attrs, page.content.decode()[:400]
        return Assignment.objects.get(pk=read_assignment_token(attrs["token"]).assignment_id)

    started, page = enter_place(client, fake_prolific, batch, "GOOD1")
    lesson = take(page)
    assert lesson.unit_id == units[0].pk
    _submit(client, element_attrs(page)["token"], careful=True)
    entry = urlparse(started["url"])
    page = client.get(f"{entry.path}?{entry.query}")
    html = page.content.decode()
    assert 'data-testid="training-feedback"' in html and not element_attrs(page) and "You are qualified" in html
    page = _continue(client, page)
    assert take(page).unit_id == units[1].pk  # a main unit after training

    fake_prolific.studies[batch.provider_ref]["total_available_places"] = 3  # the researcher opens more places
    started, page = enter_place(client, fake_prolific, batch, "BAD1")
    lesson = take(page)
    assert lesson.unit_id == units[0].pk  # its one slot is GOOD1's, a lesson all the same
    _submit(client, element_attrs(page)["token"], careful=False)
    entry = urlparse(started["url"])
    page = client.get(f"{entry.path}?{entry.query}")
    assert "cannot offer you the main task" in page.content.decode()
    done = _continue(client, page).content.decode()
    assert "Thank you for doing the training" in done and 'data-testid="completion-code"' in done
    assert not Assignment.objects.filter(worker__external_id="BAD1", unit__is_training=False).exists()
    # who passed is on the project's allow-list participant group, for later studies; who failed is not
    (group,) = [g for g in fake_prolific.groups.values() if g["name"] == f"factcrowd-qual-trained-project-{batch.project_id}"]
    assert group["participants"] == ["GOOD1"]


def test_a_study_with_training_units_opens_places_for_the_main_work_only(fake_prolific):
    """Every participant does the training units first: a place holds per_place - training main units, and the
    lessons (given to everyone) are never work left to buy places for."""
    from annotation_tasks.services import sessions

    units = make_unit("Places with training", n_qas=1, n_responses=1, wanted=2, provider="prolific", n_sources=4)
    batch = units[0].batch
    Unit.objects.filter(pk=units[0].pk).update(is_training=True)
    publishing.publish_batch(batch, reward="1.00", assignments_per_unit=2, units_per_place=3)
    batch.refresh_from_db()
    # 3 main units x 2 workers, 2 main units a place (3 less the lesson): 3 places
    assert fake_prolific.studies[batch.provider_ref]["total_available_places"] == 3
    assert sessions.work_left(batch) == 6 and sessions.main_room(batch) == 2
    assert sessions.study_places(list(batch.units.all()), 2, 5) == 2  # ceil(6 / 4)
    assert sessions.study_places(list(batch.units.all()), 3, 2) == 9  # ceil(9 / 1); without training: ceil(12 / 2) = 6
