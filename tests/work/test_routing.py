"""Routing by information (Batch.settings.routing, services/routing.py): a unit whose items are all confident after
its first labels is no longer handed out, and the monitor's labels saved equal N x items minus labels collected."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotation_tasks.models import QA, Assignment, Batch, ItemScore, QALabel, Unit, Worker
from annotation_tasks.services import queue, work
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db
ROUTING = {"routing": {"policy": "posterior", "threshold": 0.95}}


def _qas(unit: Unit) -> list[int]:
    return list(QA.objects.filter(response__unit_responses__unit=unit).values_list("pk", flat=True))


def _submit_all_supported(worker: Worker, project) -> Assignment:
    assignment = queue.next_assignment(worker, project)
    assert assignment is not None
    payload = work.unit_payload(assignment)
    result = work.submit(assignment, {"labels": qasem_labels(payload), "time_on_task_ms": 1000})
    assert result.status == "submitted", result
    return assignment


def _two_units(settings: dict, scores: tuple[float, float] = (0.99, 0.2)) -> tuple[Unit, Unit]:
    """Two units of one batch; the first one's QAs scored 0.99 by the embedded scorer, the second's 0.2 (one
    "supported" label leaves them at about 0.90, under the threshold; two fix the majority of three)."""
    confident, unsure = make_unit("Routing", n_sources=2, wanted=3, n_qas=2, n_responses=1, gold=False)
    Batch.objects.filter(pk=confident.batch_id).update(settings=settings)
    for unit, score in zip((confident, unsure), scores, strict=True):
        ItemScore.objects.bulk_create(ItemScore(qa_id=q, scorer="embedded", version="t", score=score)
                                      for q in _qas(unit))
    return confident, unsure


def test_a_unit_whose_items_are_all_confident_is_no_longer_handed_out_and_the_monitor_counts_it():
    confident, unsure = _two_units(ROUTING)
    project = confident.project
    workers = [Worker.objects.create(external_id=f"rw{i}") for i in range(4)]
    # the unsure unit first (a label is worth more on items scored 0.2 than 0.99), until two labels fix its majority
    assert _submit_all_supported(workers[0], project).unit_id == unsure.pk
    unsure.refresh_from_db()
    assert unsure.status == Unit.Status.OPEN  # one label against a low score: not confident yet
    assert _submit_all_supported(workers[1], project).unit_id == unsure.pk
    unsure.refresh_from_db()
    assert unsure.status == Unit.Status.COMPLETE  # two of three agree: the majority is fixed
    assert _submit_all_supported(workers[2], project).unit_id == confident.pk
    confident.refresh_from_db()
    assert confident.status == Unit.Status.COMPLETE  # one label on scored-0.99 items: all past 0.95
    # nothing left to hand out, though the two units have three assignments to spare
    assert queue.next_assignment(workers[3], project) is None
    assert [Assignment.objects.filter(unit=u).count() for u in (confident, unsure)] == [1, 2]

    # the monitor: labels fixed N would have needed for the stopped units minus labels collected, recomputed here
    expected = sum(u.assignments_wanted * len(_qas(u)) - QALabel.objects.filter(assignment__unit=u).count()
                   for u in (confident, unsure))
    assert expected == 2 * len(_qas(confident)) + len(_qas(unsure))
    user = get_user_model().objects.create_superuser("routing-admin")
    client = APIClient()
    client.force_login(user)
    r = client.get(f"/api/projects/{project.pk}/overview/")
    assert r.status_code == 200, r.content
    saved = r.json()["routing"]
    assert saved["units_stopped"] == 2 and saved["labels_saved"] == expected, saved
    assert saved["projected_labels_saved"] >= expected


def test_without_the_routing_setting_the_same_unit_keeps_its_assignments():
    """The control: the same labels and scores, no routing: the unit stays open and goes to the next worker (the
    queue's own order: the 0.99 unit first)."""
    confident, _ = _two_units({})
    workers = [Worker.objects.create(external_id=f"cw{i}") for i in range(2)]
    _submit_all_supported(workers[0], confident.project)
    confident.refresh_from_db()
    assert confident.status == Unit.Status.OPEN
    assert _submit_all_supported(workers[1], confident.project).unit_id == confident.pk


@pytest.mark.parametrize("routed", [True, False])
def test_the_queue_offers_the_unit_whose_items_gain_most_from_one_more_label(routed):
    """Scores 0.9 (first unit) and 0.05 (second); a threshold no single label passes. Routed, a first label is worth
    more on the second unit's items (0.35 bits against 0.22), and after one "supported" label against a 0.05 score
    a second is worth more still (0.50): both workers get the second unit. Unrouted: the queue's own order."""
    settings = {"routing": {"policy": "posterior", "threshold": 0.999}} if routed else {}
    first, second = _two_units(settings, scores=(0.9, 0.05))
    workers = [Worker.objects.create(external_id=f"gw{i}") for i in range(2)]
    got = [_submit_all_supported(w, first.project).unit_id for w in workers]
    assert got == ([second.pk, second.pk] if routed else [first.pk, first.pk])


@pytest.mark.parametrize("value, field", [
    ({"policy": "posterior", "threshold": 2}, "routing.threshold"),
    ({"policy": "greedy"}, "routing.policy"),
    ({"policy": "posterior", "model": "nope"}, "routing.model"),
    ("posterior", "routing"),
])
def test_a_bad_routing_setting_is_a_located_400(value, field):
    unit = make_unit("Routing bad", n_qas=1, n_responses=1, gold=False)
    client = APIClient()
    client.force_login(get_user_model().objects.create_superuser("routing-admin-2"))
    r = client.patch(f"/api/batches/{unit.batch_id}/", {"settings": {"routing": value}}, format="json")
    assert r.status_code == 400, r.content
    assert field in r.json()["settings"], r.json()
