"""Every researcher endpoint: who may read and change what.

An annotator, a researcher of another project, an outsider, an anonymous caller and a crowd worker's
per-assignment token must never reach another project's data, gold labels, or other people's assignments.
"""
from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import QA, Assignment
from annotation_tasks.services.tokens import assignment_token

pytestmark = pytest.mark.django_db

RESEARCHER_LISTS = ["sources", "responses", "predicates", "qas", "spans", "facts", "batches", "units", "workers", "jobs"]


def detail_urls(w) -> list[str]:
    """One detail URL per resource of project A (what project B's researcher and annotators must not read)."""
    return [
        f"/api/sources/{w.qa_a.response.source_id}/",
        f"/api/responses/{w.qa_a.response_id}/",
        f"/api/predicates/{w.qa_a.predicate_id}/",
        f"/api/qas/{w.qa_a.pk}/",
        f"/api/spans/{w.span_a.pk}/",
        f"/api/facts/{w.fact_a.pk}/",
        f"/api/batches/{w.batch_a.pk}/",
        f"/api/units/{w.unit_a.pk}/",
        f"/api/units/{w.unit_a.pk}/preview/",
        f"/api/workers/{w.own_assignment.worker_id}/",
        f"/api/jobs/{w.job_a.pk}/",
        f"/api/assignments/{w.other_assignment.pk}/",
        f"/api/projects/{w.a.pk}/overview/",
        f"/api/projects/{w.a.pk}/members/",
    ]


def test_anonymous_caller_gets_nothing(world):
    client = APIClient()
    for name in RESEARCHER_LISTS + ["projects", "assignments"]:
        assert client.get(f"/api/{name}/").status_code in (401, 403), name
    for url in detail_urls(world):
        assert client.get(url).status_code in (401, 403), url


def test_worker_token_is_no_api_credential(world):
    """The signed per-assignment token opens /api/work/<token>/... only; as a header or parameter it is nothing."""
    token = assignment_token(world.own_assignment)
    as_header = APIClient()
    as_header.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    for url in ["/api/projects/", "/api/qas/", "/api/assignments/", f"/api/assignments/{world.own_assignment.pk}/"]:
        assert as_header.get(url).status_code == 401, url
        assert APIClient().get(url, {"token": token}).status_code in (401, 403), url
    bearer = APIClient()
    bearer.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert bearer.get("/api/qas/").status_code in (401, 403)


def test_annotator_sees_the_task_not_the_data(world, as_user):
    client = as_user("ann")
    projects = client.get("/api/projects/").json()
    assert [p["name"] for p in projects["results"]] == ["A"]
    assert set(projects["results"][0]) == {"id", "name", "protocol", "instructions", "role"}
    assert projects["results"][0]["role"] == "annotator"
    detail = client.get(f"/api/projects/{world.a.pk}/").json()
    assert "description" not in detail and detail["instructions"] == "Judge A"
    assert client.get(f"/api/projects/{world.b.pk}/").status_code == 404
    for name in RESEARCHER_LISTS:
        assert client.get(f"/api/{name}/").status_code == 403, name
    for url in detail_urls(world):
        if url.startswith("/api/assignments/"):
            continue
        assert client.get(url).status_code in (403, 404), url
    # gold never in any answer an annotator can get
    for url in ["/api/projects/", f"/api/projects/{world.a.pk}/", "/api/assignments/"]:
        body = json.dumps(client.get(url).json())
        assert "gold" not in body and "supported" not in body, url


def test_annotator_sees_only_own_assignments(world, as_user):
    client = as_user("ann")
    rows = client.get("/api/assignments/").json()["results"]
    assert [r["id"] for r in rows] == [world.own_assignment.pk]
    assert client.get(f"/api/assignments/{world.own_assignment.pk}/").status_code == 200
    assert client.get(f"/api/assignments/{world.other_assignment.pk}/").status_code == 404
    assert client.get(f"/api/assignments/{world.assignment_b.pk}/").status_code == 404
    # reviewing is for researchers, also on one's own assignment
    assert client.post(f"/api/assignments/{world.own_assignment.pk}/approve/", {}).status_code == 403
    assert client.post(f"/api/assignments/{world.other_assignment.pk}/approve/", {}).status_code == 404


def test_annotator_cannot_change_anything(world, as_user):
    client = as_user("ann")
    assert client.patch(f"/api/qas/{world.qa_a.pk}/", {"validity": "invalid"}, format="json").status_code == 403
    assert client.post("/api/qas/bulk-validity/", {"ids": [world.qa_a.pk], "validity": "invalid"},
                       format="json").status_code == 403
    assert client.patch(f"/api/projects/{world.a.pk}/", {"name": "X"}, format="json").status_code == 403
    assert client.delete(f"/api/projects/{world.a.pk}/").status_code == 403
    assert client.post(f"/api/projects/{world.a.pk}/members/", {"username": "ann", "role": "researcher"},
                       format="json").status_code == 403
    assert client.post("/api/projects/", {"name": "mine", "protocol": ["qa_support"]}, format="json").status_code == 403
    assert client.post("/api/batches/", {"project": world.a.pk, "name": "x"}, format="json").status_code == 403
    world.qa_a.refresh_from_db()
    assert world.qa_a.validity == QA.Validity.UNKNOWN


def test_researcher_of_another_project_sees_nothing_of_it(world, as_user):
    client = as_user("bob")
    for name in RESEARCHER_LISTS:
        body = client.get(f"/api/{name}/", {"project": world.a.pk}).json()
        assert body["count"] == 0, name
        everything = json.dumps(client.get(f"/api/{name}/").json())
        assert "gold-secret-a" not in everything and "sys-a" not in everything, name
    for url in detail_urls(world):
        assert client.get(url).status_code == 404, url
    assert client.patch(f"/api/qas/{world.qa_a.pk}/", {"validity": "invalid"}, format="json").status_code == 404
    updated = client.post("/api/qas/bulk-validity/", {"ids": [world.qa_a.pk, world.qa_b.pk], "validity": "invalid"},
                          format="json").json()
    assert updated == {"updated": 1}
    world.qa_a.refresh_from_db()
    assert world.qa_a.validity == QA.Validity.UNKNOWN
    assert client.post("/api/batches/", {"project": world.a.pk, "name": "steal"}, format="json").status_code == 400
    assert client.post(f"/api/assignments/{world.own_assignment.pk}/approve/", {}).status_code == 404
    assert client.post(f"/api/workers/{world.own_assignment.worker_id}/block/",
                       {"reason": "x", "project": world.a.pk}, format="json").status_code == 404


def test_outsider_sees_no_project(world, as_user):
    client = as_user("nobody")
    assert client.get("/api/projects/").json()["count"] == 0
    assert client.get(f"/api/projects/{world.a.pk}/").status_code == 404
    assert client.get("/api/assignments/").json()["count"] == 0
    assert client.get("/api/qas/").status_code == 403


def test_researcher_reads_gold_and_validates(world, as_user):
    client = as_user("alice")
    rows = client.get("/api/qas/", {"project": world.a.pk}).json()["results"]
    assert [(r["id"], r["gold"]) for r in rows] == [(world.qa_a.pk, "supported")]
    assert client.get("/api/spans/", {"project": world.a.pk}).json()["results"][0]["gold"] == "covered"
    assert client.get("/api/facts/", {"project": world.a.pk}).json()["results"][0]["gold"] == "S"
    answer = client.patch(f"/api/qas/{world.qa_a.pk}/", {"validity": "invalid", "question": "changed?"}, format="json")
    assert answer.status_code == 200 and answer.json()["validity"] == "invalid"
    world.qa_a.refresh_from_db()
    assert (world.qa_a.validity, world.qa_a.question) == ("invalid", "Who died?")  # only validity is writable
    assert client.get("/api/qas/", {"validity": "invalid"}).json()["count"] == 1
    assert client.patch(f"/api/qas/{world.qa_a.pk}/", {"validity": "maybe"}, format="json").status_code == 400
    assignments = client.get("/api/assignments/", {"project": world.a.pk}).json()["results"]
    assert {a["id"] for a in assignments} == {world.own_assignment.pk, world.other_assignment.pk}


def test_project_creation_and_roles(world, users, as_user):
    from django.contrib.auth.models import Permission

    users["nobody"].user_permissions.add(Permission.objects.get(codename="add_project"))
    client = as_user("nobody")
    created = client.post("/api/projects/", {"name": "New", "protocol": ["span_coverage", "qa_support"],
                                              "annotations_per_item": 3, "instructions": "Be careful"}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["role"] == "researcher"
    assert client.post("/api/projects/", {"name": "Bad", "protocol": ["nope"]}, format="json").status_code == 400
    assert client.post("/api/projects/", {"name": "Dup", "protocol": ["qa_support", "qa_support"]},
                       format="json").status_code == 400
    pid = created.json()["id"]
    added = client.post(f"/api/projects/{pid}/members/", {"username": "ann", "role": "annotator"}, format="json")
    assert added.status_code == 201
    assert {m["username"]: m["role"] for m in added.json()} == {"nobody": "researcher", "ann": "annotator"}
    # a researcher of A may create projects without the model permission
    assert as_user("alice").post("/api/projects/", {"name": "A2", "protocol": ["fact_labeling"]},
                                 format="json").status_code == 201


def test_filters_and_pagination(world, as_user):
    client = as_user("alice")
    assert client.get("/api/jobs/", {"project": "x"}).status_code == 400
    assert client.get("/api/units/", {"is_gold": "perhaps"}).status_code == 400
    assert client.get("/api/assignments/", {"status": "submitted,approved", "project": world.a.pk}).json()["count"] == 2
    page = client.get("/api/assignments/", {"page_size": 1}).json()
    assert page["count"] == 2 and len(page["results"]) == 1 and page["next"]
    assert client.get("/api/responses/", {"parsed": "true"}).json()["count"] == 0
    assert client.get("/api/responses/", {"parsed": "false"}).json()["count"] == 1
    assert client.get("/api/responses/", {"has_qas": "true"}).json()["count"] == 1
    assert client.get("/api/responses/", {"has_qas": "false"}).json()["count"] == 0
    Assignment.objects.filter(pk=world.own_assignment.pk).update(status="approved")
    assert client.get("/api/assignments/", {"status": "approved"}).json()["count"] == 1


def test_token_for_scripts(world, users):
    client = APIClient()
    assert client.post("/api/auth/token/", {"username": "alice", "password": "wrong"}).status_code == 400
    token = client.post("/api/auth/token/", {"username": "alice", "password": "pw"}).json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/qas/", {"project": world.a.pk}).json()["count"] == 1


def test_session_writes_need_csrf(world, users):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(users["alice"])
    assert client.get("/api/qas/").status_code == 200
    assert client.patch(f"/api/qas/{world.qa_a.pk}/", {"validity": "valid"}, format="json").status_code == 403


def test_blocking_needs_the_worker_in_that_project(world, users, as_user):
    from annotation_tasks.models import ProjectMembership

    ProjectMembership.objects.create(project=world.b, user=users["alice"], role="researcher")
    client = as_user("alice")  # researcher of A and B; ann only worked on A
    worker = world.own_assignment.worker_id
    assert client.post(f"/api/workers/{worker}/block/", {"project": world.b.pk, "reason": "x"},
                       format="json").status_code == 404
    assert client.post(f"/api/workers/{worker}/block/", {"project": world.a.pk, "reason": "x"},
                       format="json").status_code == 200


@pytest.mark.parametrize("huge", [10**23, 2**63, -(2**63) - 1, 0])
def test_bulk_validity_refuses_ids_past_64_bits_by_position(world, as_user, huge):
    client = as_user("alice")
    r = client.post("/api/qas/bulk-validity/", {"ids": [world.qa_a.pk, huge], "validity": "invalid"}, format="json")
    assert r.status_code == 400 and r["Content-Type"] == "application/json", r.content
    assert list(r.json()["ids"]) == ["1"], r.json()  # DRF's shape: the list's position, then the messages
    world.qa_a.refresh_from_db()
    assert world.qa_a.validity == QA.Validity.UNKNOWN  # nothing half-applied


def test_a_member_username_with_a_nul_is_a_located_400(world, as_user):
    """PostgreSQL's driver raised on the NUL in the lookup (a 500 there); SQLite found no such user."""
    client = as_user("alice")
    r = client.post(f"/api/projects/{world.a.pk}/members/", {"username": "ann\x00", "role": "researcher"},
                    format="json")
    assert r.status_code == 400 and list(r.json()) == ["username"], r.content
    assert not world.a.memberships.filter(user__username="ann", role="researcher").exists()
