"""The review and adjudication endpoints: who may call them, what they answer, and 400s naming the field."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import AdjudicatedLabel, Assignment, ProjectMembership, Worker
from annotation_tasks.services.tokens import assignment_token
from tests.review.conftest import client_for, member

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(qasem_study, factscore_study, people):
    member(qasem_study.project, people["alice"])
    member(factscore_study.project, people["bob"])  # a researcher, of another project
    member(qasem_study.project, people["ann"], ProjectMembership.Role.ANNOTATOR)
    return qasem_study


def _urls(study) -> list[str]:
    p, a = study.project.pk, study.assignments["w3"]
    return [f"/api/assignments/{a.pk}/review/", f"/api/projects/{p}/workers/{a.worker_id}/review/",
            f"/api/projects/{p}/adjudication/queue/", f"/api/projects/{p}/adjudications/"]


def test_the_projects_researcher_reads_review_and_queue(setup, people) -> None:
    alice = client_for(people["alice"])
    w3 = setup.assignments["w3"]
    review = alice.get(f"/api/assignments/{w3.pk}/review/")
    assert review.status_code == 200
    body = review.json()
    assert body["assignment"]["id"] == w3.pk and body["shown"] == w3.shown
    assert {i["level"] for i in body["items"]} == {"span", "qa", "pairwise"}
    drill = alice.get(f"/api/projects/{setup.project.pk}/workers/{w3.worker_id}/review/").json()
    assert [a["id"] for a in drill["assignments"]] == [w3.pk]
    queue = alice.get(f"/api/projects/{setup.project.pk}/adjudication/queue/", {"level": "qa"}).json()
    assert queue["count"] == 1 and queue["results"][0]["level"] == "qa"


@pytest.mark.parametrize("who, allowed", [("anonymous", (401, 403)), ("bob", (404,)), ("ann", (403,)),
                                          ("nobody", (404,))])
def test_everyone_else_is_turned_away(setup, people, who, allowed) -> None:
    if who == "anonymous":
        client = APIClient()
    elif who == "nobody":
        from django.contrib.auth import get_user_model

        client = client_for(get_user_model().objects.create_user("nobody", password="pw"))
    else:
        client = client_for(people[who])
    for url in _urls(setup):
        assert client.get(url).status_code in allowed, url
    body = {"level": "qa", "item_id": setup.assignments["w3"].shown["qas"][0], "label": "supported", "reason": "r"}
    assert client.post(f"/api/projects/{setup.project.pk}/adjudications/", body, format="json").status_code in allowed
    assert not AdjudicatedLabel.objects.exists()


def test_a_workers_assignment_token_opens_nothing_here(setup) -> None:
    token = assignment_token(setup.assignments["w3"])
    for url in _urls(setup):
        header = APIClient()
        header.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        assert header.get(url).status_code == 401, url
        assert APIClient().get(url, {"token": token}).status_code in (401, 403), url


def test_unknown_ids_answer_404(setup, people) -> None:
    alice = client_for(people["alice"])
    assert alice.get("/api/assignments/999999/review/").status_code == 404
    assert alice.get(f"/api/projects/{setup.project.pk}/workers/999999/review/").status_code == 404
    outsider = Worker.objects.create(external_id="elsewhere")
    assert alice.get(f"/api/projects/{setup.project.pk}/workers/{outsider.pk}/review/").status_code == 404
    assert alice.get("/api/projects/999999/adjudication/queue/").status_code == 404


def test_deciding_through_the_api(setup, people) -> None:
    alice = client_for(people["alice"])
    qa = setup.assignments["w3"].shown["qas"][0]
    url = f"/api/projects/{setup.project.pk}/adjudications/"
    made = alice.post(url, {"level": "qa", "item_id": qa, "label": "supported", "reason": "the source says so"},
                      format="json")
    assert made.status_code == 201, made.content
    row = made.json()
    assert row["label"] == "supported" and row["decided_by"] == "alice" and row["version"] == 1
    assert {v["name"] for v in row["votes"]} == {"w1", "w2", "w3"} and row["majority"] == "supported"
    again = alice.post(url, {"level": "qa", "item_id": str(qa), "label": "not_supported", "reason": "second look"},
                       format="json").json()
    assert again["version"] == 2 and again["history"][0]["label"] == "supported"
    listed = alice.get(url).json()["results"]
    assert [(r["item_id"], r["label"]) for r in listed] == [(qa, "not_supported")]
    review = alice.get(f"/api/assignments/{setup.assignments['w3'].pk}/review/").json()
    row = next(i for i in review["items"] if i["level"] == "qa" and i["item_id"] == qa)
    assert row["adjudicated"] == {"label": "not_supported", "reason": "second look"}


@pytest.mark.parametrize("body, field", [
    ({"level": "qa", "item_id": 10**9, "label": "supported", "reason": "r"}, "item_id"),
    ({"level": "qa", "item_id": [1, 2], "label": "supported", "reason": "r"}, "item_id"),
    ({"level": "qa", "item_id": {"id": 1}, "label": "supported", "reason": "r"}, "item_id"),
    ({"level": "qa", "item_id": "QA", "label": "S", "reason": "r"}, "label"),
    ({"level": "qa", "item_id": "QA", "label": "supported", "reason": ["why"]}, "reason"),
    ({"level": "pairwise", "item_id": "UNIT", "aspect": ["consistency"], "label": "2", "reason": "r"}, "aspect"),
    ({"level": 3, "item_id": "QA", "label": "supported", "reason": "r"}, "level"),
])
def test_bad_decisions_answer_400_naming_the_field(setup, people, body, field) -> None:
    qa, unit = setup.assignments["w3"].shown["qas"][0], setup.unit.pk
    body = {k: qa if v == "QA" else unit if v == "UNIT" else v for k, v in body.items()}
    answer = client_for(people["alice"]).post(f"/api/projects/{setup.project.pk}/adjudications/", body, format="json")
    assert answer.status_code == 400
    assert list(answer.json()) == [field]


def test_a_body_that_is_not_an_object_answers_400(setup, people) -> None:
    answer = client_for(people["alice"]).post(f"/api/projects/{setup.project.pk}/adjudications/", [1, 2],
                                              format="json")
    assert answer.status_code == 400


def test_bad_queue_parameters_answer_400_naming_them(setup, people) -> None:
    alice = client_for(people["alice"])
    url = f"/api/projects/{setup.project.pk}/adjudication/queue/"
    for params, field in (({"level": "nope"}, "level"), ({"limit": "9999"}, "limit"), ({"decided": "x"}, "decided")):
        answer = alice.get(url, params)
        assert answer.status_code == 400 and list(answer.json()) == [field]


def test_an_annotator_cannot_review_even_their_own_assignment(setup, people) -> None:
    own = Worker.objects.create(external_id="ann-worker", user=people["ann"])
    mine = Assignment.objects.create(unit=setup.unit, worker=own, status="submitted")
    assert client_for(people["ann"]).get(f"/api/assignments/{mine.pk}/review/").status_code == 403


def test_ids_out_of_any_integer_range_answer_404_or_400(setup, people) -> None:
    alice = client_for(people["alice"])
    huge = "9" * 30
    assert alice.get(f"/api/assignments/{huge}/review/").status_code == 404
    assert alice.get(f"/api/projects/{setup.project.pk}/workers/{huge}/review/").status_code == 404
    assert alice.get(f"/api/projects/{huge}/adjudication/queue/").status_code == 404
    answer = alice.post(f"/api/projects/{setup.project.pk}/adjudications/",
                        {"level": "qa", "item_id": int(huge), "label": "supported", "reason": "r"}, format="json")
    assert answer.status_code == 400 and list(answer.json()) == ["item_id"]
