"""Quality control: gold mixing rate, per-worker metrics, thresholds, approval policy, reversible decisions."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation_tasks.crowd import get_provider
from annotation_tasks.crowd.base import money, request_token
from annotation_tasks.models import AnswerSpan, Assignment, QualityDecision, SpanLabel, Worker
from annotation_tasks.services import quality
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def labelled_project(answers: dict[str, list[bool]], n_units: int = 6, provider: str = "local"):
    """n_units units of 2 spans each (span 0 gold covered); answers[worker] = covered flags, unit by unit."""
    units = make_unit("Q", n_qas=2, n_responses=1, wanted=5, n_sources=n_units, provider=provider)
    units = units if isinstance(units, list) else [units]
    workers = {}
    for name, flags in answers.items():
        worker = Worker.objects.create(provider=provider, external_id=name)
        workers[name] = worker
        for unit, flag in zip(units, flags, strict=False):
            a = Assignment.objects.create(unit=unit, worker=worker, status="submitted", time_on_task_ms=30000,
                                          submitted_at=timezone.now(), provider_assignment_id=f"{name}-{unit.pk}")
            spans = AnswerSpan.objects.filter(response__unit_responses__unit=unit).order_by("order")
            SpanLabel.objects.create(assignment=a, span=spans[0], covered=flag)  # the gold span
            SpanLabel.objects.create(assignment=a, span=spans[1], covered=True)
    return units, workers


def test_gold_rate_is_higher_for_a_new_worker():
    units, workers = labelled_project({"new": [True] * 2, "old": [True] * 6})
    project = units[0].project
    policy = {**quality.DEFAULT_POLICY, "gold_initial_units": 5, "gold_rate_initial": 0.5, "gold_rate": 0.1}
    assert quality.gold_rate(workers["new"], project, policy) == 0.5
    assert quality.gold_rate(workers["old"], project, policy) == 0.1
    rng = random.Random(7)
    served = sum(quality.should_serve_gold(workers["old"], project, rng, policy) for _ in range(2000))
    assert 140 < served < 260  # about 10%


def test_metrics_gold_accuracy_agreement_and_time():
    units, workers = labelled_project({
        "good": [True] * 6, "also_good": [True] * 6, "bad": [False, False, False, False, True, False],
    })
    m = quality.worker_metrics(units[0].project)
    good, bad = m[workers["good"].pk], m[workers["bad"].pk]
    assert (good.gold_total, good.gold_correct, good.gold_accuracy) == (6, 6, 1.0)
    assert (bad.gold_correct, round(bad.gold_accuracy, 3)) == (1, round(1 / 6, 3))
    # the others' majority on the gold span is "covered": bad agrees on 1 of 6 there, and on all 6 other spans
    assert bad.agreement == pytest.approx(7 / 12)
    # where "bad" dissents, good's others (also_good, bad) tie: those 5 items are not compared
    assert (good.agreement, good.agreement_compared) == (1.0, 7)
    assert good.units_done == 6 and good.median_time_on_task_ms == 30000


def test_thresholds_qualify_warn_and_soft_block_once_each(fake_mturk):
    units, workers = labelled_project({
        "great": [True] * 6, "meh": [True, True, True, True, False, False], "poor": [False] * 5 + [True],
    }, provider="mturk")
    project = units[0].project
    decisions = quality.evaluate_workers(project)
    assert sorted((d.worker.external_id, d.action) for d in decisions) == [
        ("great", "qualify"), ("meh", "warn"), ("poor", "soft_block")]
    for d in decisions:
        assert d.status == "done" and "gold_accuracy" in d.metrics and d.reason
    great, poor = (quality.standing(Worker.objects.get(external_id=n), project) for n in ("great", "poor"))
    assert great.qualifications == {"factcrowd-qualified": 1} and poor.status == "soft_blocked"
    assert {d.project_id for d in decisions} == {project.pk}
    assert fake_mturk.score("factcrowd-qualified", "great") == 1
    assert not fake_mturk.blocks  # a soft block is not a platform block
    assert quality.evaluate_workers(project) == []  # no change of state, nothing new to decide


def test_soft_block_reversal_restores_the_qualification_and_status(fake_mturk):
    units, workers = labelled_project({"w": [True] * 6}, provider="mturk")
    worker, project = workers["w"], units[0].project
    (qualified,) = quality.evaluate_workers(project)
    blocked = quality.soft_block(worker, "manual review found copy-paste answers", project=project)
    here = quality.standing(worker, project)
    assert here.status == "soft_blocked" and here.qualifications == {}
    assert fake_mturk.score("factcrowd-qualified", "w") is None
    undo = quality.reverse_decision(blocked, "it was a browser autofill")
    here = quality.standing(worker, project)
    assert (here.status, here.qualifications) == ("active", {"factcrowd-qualified": 1})
    assert fake_mturk.score("factcrowd-qualified", "w") == 1
    blocked.refresh_from_db()
    assert blocked.status == "reversed" and undo.reverses_id == blocked.pk
    assert QualityDecision.objects.count() == 3


def test_platform_block_only_when_asked(fake_mturk):
    units, workers = labelled_project({"poor": [False] * 6}, provider="mturk")
    batch = units[0].batch
    batch.settings = {"quality": {"platform_block": True}}
    batch.save()
    (d,) = quality.evaluate_workers(units[0].project, batch=batch)
    assert d.action == "block" and "poor" in fake_mturk.blocks
    quality.reverse_decision(d, "appeal accepted")
    assert "poor" not in fake_mturk.blocks
    assert quality.standing(Worker.objects.get(external_id="poor"), units[0].project).status == "active"


def test_approval_policy_by_gold_accuracy_or_age():
    units, workers = labelled_project({"good": [True] * 6, "bad": [False] * 6})
    batch = units[0].batch
    provider = get_provider("local")
    result = quality.apply_approval_policy(batch, provider=provider)
    assert result == {"approved": 6, "waiting": 6, "unverified": 0}
    assert set(Assignment.objects.filter(status="approved").values_list("worker__external_id", flat=True)) == {"good"}
    later = timezone.now() + timedelta(days=3, minutes=1)
    assert quality.apply_approval_policy(batch, now=later, provider=provider) == {
        "approved": 6, "waiting": 0, "unverified": 0}
    reasons = set(QualityDecision.objects.filter(action="approve").values_list("reason", flat=True))
    assert any("gold accuracy" in r for r in reasons) and any("3 days" in r for r in reasons)


def test_reject_of_approved_work_is_refused_and_a_bonus_must_be_positive():
    labelled_project({"w": [True]}, n_units=1)
    a = Assignment.objects.get()
    quality.approve(a, reason="ok")
    with pytest.raises(quality.QualityError):
        quality.reject(a, "too late")
    with pytest.raises(quality.QualityError):
        quality.pay_bonus(a, "0", "nothing")
    assert list(QualityDecision.objects.values_list("action", "status", "reason")) == [("approve", "done", "ok")]


def test_gold_first_orders_queue_candidates_by_the_draw():
    units, workers = labelled_project({"new": [True]})
    project = units[0].project
    candidates = [(1, False), (2, True), (3, False), (4, True)]
    always = {**quality.DEFAULT_POLICY, "gold_rate_initial": 1.0}
    never = {**quality.DEFAULT_POLICY, "gold_rate_initial": 0.0}
    assert quality.gold_first(workers["new"], project, candidates, policy=always) == [2, 4, 1, 3]
    assert quality.gold_first(workers["new"], project, candidates, policy=never) == [1, 3, 2, 4]


def test_mix_gold_picks_the_batch_rate():
    assert quality.mix_gold(list(range(20)), {0, 1, 2, 3, 4, 5}, 10, 0.2) == [0, 1, 6, 7, 8, 9, 10, 11, 12, 13]
    assert quality.mix_gold([1, 2, 3], {1, 2}, 3, 0.0) == [1, 2, 3]  # too few ordinary sources: gold fills


def test_new_batch_mixes_gold_sources(settings):
    from annotation_tasks.models import Project, Response, Source
    from annotation_tasks.services import publishing

    gold_unit = make_unit("Mix", n_sources=4)[0]  # 4 gold sources, already in a batch
    project = gold_unit.project
    Unit = type(gold_unit)
    Unit.objects.filter(project=project).delete()
    for i in range(8):
        src = Source.objects.create(project=project, external_id=f"plain-{i}", text="S.")
        Response.objects.create(project=project, source=src, external_id=f"plain-r{i}", system="x", text="R .")
    batch = publishing.new_batch(project, units=5, gold_rate=0.4)
    assert batch.units.count() == 5 and batch.units.filter(is_gold=True).count() == 2
    assert Project.objects.count() == 1


def test_a_decision_in_flight_elsewhere_is_not_repeated_and_a_stale_one_is_taken_over():
    labelled_project({"w": [True]}, n_units=1)
    a = Assignment.objects.get()
    calls: list[str] = []

    class Recording(type(get_provider("local"))):
        def bonus(self, assignment, amount, reason, request_token):
            calls.append(request_token)

    token = request_token("bonus", a.pk, money("0.40"), "")
    QualityDecision.objects.create(worker=a.worker, assignment=a, action="bonus", reason="r", request_token=token,
                                   status="calling")  # another process is paying right now
    with pytest.raises(quality.DecisionInProgress):
        quality.pay_bonus(a, "0.40", "r", provider=Recording())
    assert calls == []
    QualityDecision.objects.filter(request_token=token).update(created_at=timezone.now() - timedelta(hours=1))
    assert quality.pay_bonus(a, "0.40", "r", provider=Recording()).status == "done"  # that process died
    assert calls == [token]
    assert quality.pay_bonus(a, "0.40", "r", provider=Recording()).status == "done" and calls == [token]
