"""The monitor screen: counts and time on task, the workers table with quality numbers, and its actions."""
import pytest

from annotation_tasks.models import Assignment, QALabel, QualityDecision, Worker
from annotation_tasks.services.monitoring import project_overview

pytestmark = pytest.mark.django_db


def test_overview_counts_and_time_on_task(world):
    third = Worker.objects.create(external_id="w3")
    Assignment.objects.create(unit=world.unit_a, worker=third, status="approved", time_on_task_ms=90000)
    overview = project_overview(world.a)
    assert overview["assignments_by_status"] == {"submitted": 2, "approved": 1}
    assert overview["units_by_status"] == {"open": 1}
    assert overview["time_on_task"]["median_s"] == 60.0 and overview["time_on_task"]["count"] == 3
    assert overview["responses"] == 1 and overview["qas_by_validity"] == {"unknown": 1}


def test_workers_table_carries_gold_accuracy_and_agreement(world, as_user):
    QALabel.objects.create(assignment=world.own_assignment, qa=world.qa_a, supported=True)  # gold: supported
    QALabel.objects.create(assignment=world.other_assignment, qa=world.qa_a, supported=False)
    rows = as_user("alice").get("/api/workers/", {"project": world.a.pk}).json()["results"]
    by_id = {r["external_id"]: r for r in rows}
    assert set(by_id) == {"ann", "eve"}  # the crowd worker of project B is not in A's table
    assert by_id["ann"]["metrics"]["gold_accuracy"] == 1.0
    assert by_id["eve"]["metrics"]["gold_accuracy"] == 0.0
    assert by_id["ann"]["metrics"]["units_done"] == 1
    assert by_id["ann"]["metrics"]["agreement"] == 0.0  # the only other worker disagrees


def test_review_actions_from_the_workers_table(world, as_user):
    client = as_user("alice")
    ann, eve = world.own_assignment.worker, world.other_assignment.worker
    assert client.post(f"/api/workers/{eve.pk}/reject/", {"project": world.a.pk}, format="json").status_code == 400
    answer = client.post(f"/api/workers/{eve.pk}/reject/", {"project": world.a.pk, "feedback": "missed gold"},
                         format="json")
    assert answer.json() == {"worker": eve.pk, "action": "reject", "assignments": 1}
    assert client.post(f"/api/workers/{ann.pk}/approve/", {"project": world.a.pk}, format="json").status_code == 200
    world.own_assignment.refresh_from_db()
    world.other_assignment.refresh_from_db()
    assert (world.own_assignment.status, world.other_assignment.status) == ("approved", "rejected")
    assert world.other_assignment.feedback == "missed gold"
    bonus = client.post(f"/api/workers/{ann.pk}/bonus/", {"project": world.a.pk, "amount": "0.50", "reason": "great"},
                        format="json")
    assert bonus.status_code == 200 and bonus.json()["action"] == "bonus"
    world.own_assignment.refresh_from_db()
    assert str(world.own_assignment.bonus_paid) == "0.50"
    blocked = client.post(f"/api/workers/{eve.pk}/block/", {"project": world.a.pk, "reason": "spam"}, format="json")
    assert blocked.status_code == 200 and blocked.json()["status"] == "blocked"
    actions = [d["action"] for d in client.get(f"/api/workers/{eve.pk}/decisions/").json()["results"]]
    assert set(actions) == {"reject", "block"}
    assert client.get(f"/api/workers/{eve.pk}/decisions/", {"action": "block"}).json()["count"] == 1
    assert QualityDecision.objects.filter(worker=ann, action="approve", status="done").exists()
    # single-assignment review from the assignments table
    rejected = client.post(f"/api/assignments/{world.own_assignment.pk}/reject/", {"feedback": "late"}, format="json")
    assert rejected.status_code == 400  # approved work cannot be rejected any more


def test_a_large_projects_time_on_task_and_attention_checks_come_from_the_kept_build(world, monkeypatch):
    """A large project (derived.in_background): the overview neither sorts the times nor joins the labels on gold
    in the request; before the first build it says `quality_building` and queues the build task once, after it
    (celery_tasks.build_monitor_quality, run here as the worker would) answers the same figures as figured inline,
    with `quality_as_of`."""
    from annotation_tasks import celery_tasks
    from annotation_tasks.services import derived, monitoring

    QALabel.objects.create(assignment=world.own_assignment, qa=world.qa_a, supported=True)  # a gold item's label
    inline = project_overview(world.a)
    assert inline["quality_as_of"] is None and inline["attention_checks"]
    queued: list = []
    monkeypatch.setattr(derived, "in_background", lambda project: True)
    monkeypatch.setattr(derived, "queue_build", lambda task, project, *args: queued.append(task))
    monkeypatch.setattr(monitoring, "_time_on_task", lambda *a: pytest.fail("sorted the times in the request"))
    monkeypatch.setattr(monitoring, "_attention_rows", lambda *a: pytest.fail("joined gold in the request"))
    first = project_overview(world.a)
    assert first["quality_building"] is True and first["time_on_task"]["count"] is None
    assert queued == [monitoring.QUALITY_TASK] and first["assignments_by_status"] == inline["assignments_by_status"]
    monkeypatch.undo()  # the build task figures them
    monkeypatch.setattr(derived, "in_background", lambda project: True)
    monkeypatch.setattr(derived, "queue_build", lambda task, project, *args: queued.append(task))
    celery_tasks.build_monitor_quality(world.a.pk)
    monkeypatch.setattr(monitoring, "_time_on_task", lambda *a: pytest.fail("sorted the times in the request"))
    monkeypatch.setattr(monitoring, "_attention_rows", lambda *a: pytest.fail("joined gold in the request"))
    kept = project_overview(world.a)
    assert kept["quality_building"] is False and kept["quality_as_of"] is not None
    for field in ("time_on_task", "attention_checks", "responses_parsed", "qas_by_validity"):  # validity: live
        assert kept[field] == inline[field], field
    assert queued == [monitoring.QUALITY_TASK]  # checked just now: nothing queued again
