"""The workers table's numbers: gold accuracy against gold labels, agreement with the others' majority."""
import pytest

from annotation_tasks.models import Assignment as A
from annotation_tasks.models import QALabel, Worker
from annotation_tasks.services.monitoring import project_overview, worker_metrics

pytestmark = pytest.mark.django_db


def test_gold_accuracy_agreement_and_time(world):
    third = Worker.objects.create(external_id="w3")
    a3 = A.objects.create(unit=world.unit_a, worker=third, status="approved", time_on_task_ms=90000)
    # gold for qa_a is "supported": ann and w3 right, eve wrong; majority of others decides agreement
    QALabel.objects.create(assignment=world.own_assignment, qa=world.qa_a, supported=True)
    QALabel.objects.create(assignment=world.other_assignment, qa=world.qa_a, supported=False)
    QALabel.objects.create(assignment=a3, qa=world.qa_a, supported=True)
    metrics = worker_metrics(world.a)
    ann, eve, w3 = (metrics[a.worker_id] for a in (world.own_assignment, world.other_assignment, a3))
    assert (ann["gold_accuracy"], eve["gold_accuracy"], w3["gold_accuracy"]) == (1.0, 0.0, 1.0)
    # ann vs others (eve F, w3 T) ties -> not compared; eve vs (T, T) disagrees; w3 vs (T, F) ties
    assert (ann["agreement"], eve["agreement"], w3["agreement"]) == (None, 0.0, None)
    assert ann["units_done"] == 1 and w3["approved"] == 1
    assert ann["time_on_task"]["median_s"] == 60.0
    overview = project_overview(world.a)
    assert overview["assignments_by_status"] == {"submitted": 2, "approved": 1}
    assert overview["time_on_task"]["median_s"] == 60.0 and overview["time_on_task"]["count"] == 3


def test_worker_table_endpoint_carries_metrics(world, as_user):
    QALabel.objects.create(assignment=world.own_assignment, qa=world.qa_a, supported=True)
    rows = as_user("alice").get("/api/workers/", {"project": world.a.pk}).json()["results"]
    by_id = {r["external_id"]: r for r in rows}
    assert set(by_id) == {"ann", "eve"}
    assert by_id["ann"]["metrics"]["gold_accuracy"] == 1.0
    assert by_id["eve"]["metrics"]["gold_accuracy"] is None
