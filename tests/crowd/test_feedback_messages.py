"""Ongoing personal feedback (issue 24 item 6): a message listing the items where the worker differed from the
adjudicated (else the expert) label, delivered through the worker's provider and logged; the learning curve."""
from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.models import QA, AdjudicatedLabel, AnswerSpan, Assignment, GoldLabel, QualityDecision, Unit
from annotation_tasks.services import feedback, publishing
from annotation_tasks.services.tokens import read_assignment_token
from tests.crowd.conftest import element_attrs, enter_place
from tests.crowd.test_training import _annotator, _next, _researcher, _submit, _token
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def test_a_local_worker_reads_the_message_with_the_items_they_differed_on_their_queue_page():
    units = make_unit("Msg local", n_qas=2, n_responses=1, wanted=1, n_sources=2)
    project = units[0].project
    researcher = _researcher(project)
    worker_client = _annotator(project, "learner")
    first = _next(worker_client, project)
    _submit(worker_client, _token(first), careful=False)  # the gold QA (supported) called unsupported
    # an expert decided one span of this unit not covered: the adjudicated label wins over any gold label
    span = AnswerSpan.objects.filter(response__units=first.unit).exclude(gold__isnull=False).first()
    AdjudicatedLabel.objects.create(project=project, level="span", span=span, value="not_covered",
                                    reason="The source never says so.", decided_at=timezone.now())
    url = f"/api/workers/{first.worker_id}/message/"
    assert researcher.post(url, {"project": project.pk, "text": ""}, format="json").status_code == 400
    assert researcher.post(url, {"project": project.pk, "text": "x", "assignment": 10**9},
                           format="json").json().keys() == {"assignment"}
    r = researcher.post(url, {"project": project.pk, "text": "Read the source to its end.", "assignment": first.pk},
                        format="json")
    assert r.status_code == 200, r.content
    decision = QualityDecision.objects.get(pk=r.json()["id"])
    assert decision.action == "message" and decision.status == "done" and decision.assignment_id == first.pk
    differed = {(i["target"], i["item_id"], i["source"], i["expert"]) for i in decision.metrics["items"]}
    gold_qa = GoldLabel.objects.get(qa__response__units=first.unit).qa_id
    assert differed == {("qa", gold_qa, "expert", "supported"), ("span", span.pk, "adjudicated", "not_covered")}
    page = worker_client.get(f"/annotate/{project.pk}/").content.decode()
    assert "Read the source to its end." in page and page.count('data-testid="worker-message-item"') == 2
    # the same from the assignment review; an annotator may not send one
    again = researcher.post(f"/api/assignments/{first.pk}/message/", {"text": "One more thing."}, format="json")
    assert again.status_code == 200 and again.json()["action"] == "message"
    assert QualityDecision.objects.get(pk=again.json()["id"]).metrics["differed"] == 2
    assert worker_client.post(f"/api/assignments/{first.pk}/message/", {"text": "hi"},
                              format="json").status_code in (403, 404)
    assert "One more thing." in worker_client.get(f"/annotate/{project.pk}/").content.decode()
    other = _annotator(project, "someone-else")
    _next(other, project)
    assert "Read the source to its end." not in other.get(f"/annotate/{project.pk}/").content.decode()


def test_prolific_participants_get_it_through_the_messages_api(client, fake_prolific):
    units = make_unit("Msg prolific", n_qas=2, n_responses=1, wanted=1, provider="prolific", n_sources=1)
    batch = units.batch
    publishing.publish_batch(batch, reward="1.00", assignments_per_unit=1, units_per_place=1)
    batch.refresh_from_db()
    _started, page = enter_place(client, fake_prolific, batch, "PMSG1")
    token = element_attrs(page)["token"]
    _submit(client, token, careful=False)
    assignment = Assignment.objects.get(pk=read_assignment_token(token).assignment_id)
    decision = feedback.send(assignment.worker, batch.project, "Check each answer against the source.")
    (sent,) = fake_prolific.messages
    assert sent["recipient_id"] == "PMSG1" and sent["study_id"] == batch.provider_ref
    qa = QA.objects.get(gold__isnull=False, response__units=units)
    assert "Check each answer" in sent["body"] and qa.question in sent["body"] and "expert label is supported" in sent["body"]
    assert decision.metrics["delivered_by"] == "prolific"


def test_mturk_workers_get_notify_workers_and_a_panel_refusal_is_logged(fake_mturk):
    unit = make_unit("Msg mturk", n_qas=1, n_responses=1, wanted=1, provider="mturk")
    from annotation_tasks.models import Worker

    worker = Worker.objects.create(provider="mturk", external_id="A1TURKER")
    Assignment.objects.create(unit=unit, worker=worker, provider_assignment_id="as-1", status="submitted")
    feedback.send(worker, unit.project, "Thanks, keep going.")
    (call,) = fake_mturk.notified
    assert call["WorkerIds"] == ["A1TURKER"] and "Thanks, keep going." in call["MessageText"]
    panelist = Worker.objects.create(provider="panel", external_id="SONA-7")
    Assignment.objects.create(unit=unit, worker=panelist, provider_assignment_id="p-1", status="submitted")
    with pytest.raises(feedback.FeedbackError, match="platform refused"):
        feedback.send(panelist, unit.project, "Hello")
    assert QualityDecision.objects.get(worker=panelist, action="message").status == "failed"
    stranger = Worker.objects.create(provider="gone-platform", external_id="X1")  # a provider no longer installed
    Assignment.objects.create(unit=unit, worker=stranger, provider_assignment_id="g-1", status="submitted")
    with pytest.raises(feedback.FeedbackError):
        feedback.send(stranger, unit.project, "Hello")


def test_the_learning_curve_shows_who_is_learning():
    units = make_unit("Curve", n_qas=2, n_responses=1, wanted=1, n_sources=4)
    project = units[0].project
    learner = _annotator(project, "curve-learner")
    for k in range(4):
        a = _next(learner, project)
        _submit(learner, _token(a), careful=k >= 2)  # careless first, careful later
    worker_id = Assignment.objects.filter(unit__project=project).first().worker_id
    researcher = _researcher(project)
    url = f"/api/workers/{worker_id}/learning-curve/"
    assert researcher.get(url, {"project": project.pk, "block": "0"}).status_code == 400
    assert researcher.get(url, {"project": "x"}).status_code == 400
    curve = researcher.get(url, {"project": project.pk, "block": 2}).json()["curve"]
    assert [p["units"] for p in curve] == [2, 2]
    assert curve[0]["gold_accuracy"] < curve[1]["gold_accuracy"] == 1.0
    assert curve[0]["gold_total"] == curve[1]["gold_total"] == 4
    assert curve[0]["adjudicated_accuracy"] is None
    first_qa = QA.objects.filter(gold__isnull=False, response__units=Unit.objects.filter(project=project)
                                 .order_by("id").first()).first()
    AdjudicatedLabel.objects.create(project=project, level="qa", qa=first_qa, value="not_supported", reason="r",
                                    decided_at=timezone.now())
    curve = APIClient.get(researcher, url, {"project": project.pk, "block": 2}).json()["curve"]
    assert curve[0]["adjudicated_total"] == 1 and curve[0]["adjudicated_accuracy"] == 1.0  # the expert agreed with them


def test_monitor_and_drill_down_carry_attention_check_accuracy_without_training(settings):
    settings.QUALITY_POLICY = {"min_gold_items": 2}
    units = make_unit("Attention", n_qas=2, n_responses=1, wanted=2, n_sources=3)
    project = units[0].project
    researcher = _researcher(project)
    researcher.post(f"/api/projects/{project.pk}/training/", {"units": [units[0].pk], "pass_mark": 0.0}, format="json")
    careful, careless = _annotator(project, "att-careful"), _annotator(project, "att-careless")
    for client, good in ((careful, True), (careless, False)):
        lesson = _next(client, project)
        assert lesson.unit_id == units[0].pk
        _submit(client, _token(lesson), careful=not good)  # the careful one gets the lesson wrong, the other right
        for _ in range(2):
            _submit(client, _token(_next(client, project)), careful=good)
    workers = {a.worker.user.username: a.worker_id for a in Assignment.objects.select_related("worker__user")}
    overview = researcher.get(f"/api/projects/{project.pk}/overview/").json()["attention_checks"]
    by_worker = {row["worker"]: row for row in overview}
    good_row, bad_row = by_worker[workers["att-careful"]], by_worker[workers["att-careless"]]
    # two main units, each with one gold span and one gold QA: the lesson's items are not attention checks
    assert (good_row["gold_total"], good_row["gold_correct"], good_row["verdict"]) == (4, 4, "ok")
    assert (bad_row["gold_total"], bad_row["gold_correct"], bad_row["gold_accuracy"]) == (4, 2, 0.5)
    assert bad_row["verdict"] == "warn" and overview[0]["worker"] == workers["att-careless"]  # lowest first
    drill = researcher.get(f"/api/projects/{project.pk}/workers/{workers['att-careful']}/review/").json()
    assert drill["attention_checks"]["gold_accuracy"] == 1.0
    assert drill["totals"]["gold_accuracy"] < 1.0  # all gold, the lesson included
    assert drill["training"]["passed"] is True and drill["training"]["matched"] == 1
    assert [p["units"] for p in drill["learning_curve"]] == [3]
