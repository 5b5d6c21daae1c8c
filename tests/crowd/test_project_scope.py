"""Worker rows are shared by every researcher whose projects a worker joins; decisions about them are not.

Researcher A blocks a worker in project A: researcher B neither reads A's decision log nor loses the worker in
project B, through the API, the platform entry page and the local queue.
"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotation_tasks.crowd.entry import unit_entry_url
from annotation_tasks.models import Assignment, ProjectMembership, QualityDecision, Unit, Worker
from annotation_tasks.services import queue
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_researchers():
    """Projects A and B, each with its researcher, a local annotator of both and a shared MTurk worker who
    worked in both (an MTurk batch each, published with a HIT id)."""
    User = get_user_model()
    people = {name: User.objects.create_user(name, password="pw") for name in ("alice", "bob", "ann")}
    units = {}
    for key, researcher in (("a", "alice"), ("b", "bob")):
        local = make_unit(f"Project {key}", n_qas=2, n_responses=1, wanted=2)
        crowd = make_unit(f"Crowd {key}", n_qas=2, n_responses=1, wanted=2, provider="mturk")
        Unit.objects.filter(pk=crowd.pk).update(project=local.project, provider_ref=f"HIT{key.upper()}")
        crowd.batch.project, crowd.batch.name = local.project, "crowd"
        crowd.batch.save(update_fields=["project", "name"])
        crowd.refresh_from_db()
        project = local.project
        ProjectMembership.objects.create(project=project, user=people[researcher], role=ProjectMembership.Role.RESEARCHER)
        ProjectMembership.objects.create(project=project, user=people["ann"], role=ProjectMembership.Role.ANNOTATOR)
        units[key] = (project, local, crowd)
    shared = Worker.objects.create(provider="mturk", external_id="ASHARED")
    for key in "ab":
        Assignment.objects.create(unit=units[key][2], worker=shared, status="submitted", provider_assignment_id=f"X{key}")
    apis = {}
    for name in ("alice", "bob"):
        apis[name] = APIClient()
        apis[name].force_authenticate(people[name])
    return units, shared, apis, people


def _entry(client, crowd: Unit, worker_id: str, fake_mturk) -> int:
    """The worker accepts the HIT on MTurk and opens it (MTurk must know someone holds the HIT)."""
    fake_mturk.hits.setdefault(crowd.provider_ref, {"HITId": crowd.provider_ref, "MaxAssignments": 9})  # made here
    assignment_id = fake_mturk.accept(crowd.provider_ref, worker_id)
    path = urlparse(unit_entry_url(crowd, "mturk")).path
    query = f"assignmentId={assignment_id}&hitId={crowd.provider_ref}&workerId={worker_id}&turkSubmitTo=https://www.mturk.com"
    return client.get(f"{path}?{query}").status_code


def test_a_block_in_one_project_is_that_projects_alone(client, two_researchers, fake_mturk):
    units, shared, apis, people = two_researchers
    (project_a, _, crowd_a), (project_b, _, crowd_b) = units["a"], units["b"]
    resp = apis["alice"].post(f"/api/workers/{shared.pk}/block/", {"project": project_a.pk, "reason": "bot answers"},
                              format="json")
    assert resp.status_code == 200 and resp.json()["status"] == "blocked", resp.content
    assert not fake_mturk.blocks  # a platform block is account-wide: only when asked for (platform=true)
    decision = QualityDecision.objects.get(action="block")
    assert decision.project_id == project_a.pk

    # the decision log: A reads it, B (who shares the worker) does not
    mine = apis["alice"].get(f"/api/workers/{shared.pk}/decisions/").json()["results"]
    assert [d["id"] for d in mine] == [decision.pk]
    assert apis["bob"].get(f"/api/workers/{shared.pk}/decisions/").json()["results"] == []
    assert apis["bob"].get(f"/api/workers/{shared.pk}/decisions/", {"project": project_a.pk}).status_code == 404

    # the workers table: blocked in A, active in B
    table_a = apis["alice"].get("/api/workers/", {"project": project_a.pk}).json()["results"]
    table_b = apis["bob"].get("/api/workers/", {"project": project_b.pk}).json()["results"]
    assert [w["status"] for w in table_a if w["id"] == shared.pk] == ["blocked"]
    assert [w["status"] for w in table_b if w["id"] == shared.pk] == ["active"]
    assert [w["id"] for w in apis["bob"].get("/api/workers/", {"status": "blocked"}).json()["results"]] == []

    # the platform entry page: refused in A's unit only
    assert _entry(client, crowd_a, "ASHARED", fake_mturk) == 403
    assert _entry(client, crowd_b, "ASHARED", fake_mturk) == 200


def test_a_local_annotator_blocked_in_one_project_still_gets_the_others_units(two_researchers):
    units, _shared, apis, people = two_researchers
    (project_a, _, _), (project_b, _, _) = units["a"], units["b"]
    from annotation_tasks.services.local_workers import local_worker_for

    ann = local_worker_for(people["ann"], project_a)
    Assignment.objects.create(unit=units["a"][1], worker=ann, status="submitted")
    resp = apis["alice"].post(f"/api/workers/{ann.pk}/block/", {"project": project_a.pk, "reason": "copy-paste"},
                              format="json")
    assert resp.status_code == 200
    assert queue.next_assignment(ann, project_a) is None
    got = queue.next_assignment(ann, project_b)
    assert got is not None and got.unit.project_id == project_b.pk
    resp = apis["alice"].post(f"/api/workers/{ann.pk}/unblock/", {"project": project_a.pk, "reason": "appeal"},
                              format="json")
    assert resp.status_code == 200 and resp.json()["status"] == "active"
    assert list(QualityDecision.objects.filter(worker=ann).values_list("project_id", flat=True)) == [project_a.pk] * 2
