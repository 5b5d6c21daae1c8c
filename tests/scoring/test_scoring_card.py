"""Scoring and knowledge sources from the dashboard (issue 23 item 12): the card's API starts the existing Jobs (a
score Job with progress, an import Job for the knowledge file) and says which scorers are configured here."""
from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation_tasks.models import QA, AtomicFact, ItemScore, KnowledgeSource, ProjectMembership, RetrievedPassage
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def card(django_user_model, tmp_path, settings):
    settings.VAR_DIR = tmp_path
    researcher = django_user_model.objects.create_user("res", password="pw")
    unit = make_unit("Card", protocol=["fact_labeling"], with_facts=True, n_qas=2, n_responses=1)
    ProjectMembership.objects.create(project=unit.project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(researcher)
    return unit.project, client


def _job(client, answer):
    """The Job an answer started, as it is now (read after the on-commit callbacks ran it)."""
    assert answer.status_code == 202, answer.content
    return client.get(f"/api/jobs/{answer.json()['id']}/").json()


def test_the_card_lists_scorers_and_starts_a_score_job(card, django_capture_on_commit_callbacks):
    project, client = card
    state = client.get(f"/api/projects/{project.pk}/scoring/").json()
    names = {s["name"]: s for s in state["scorers"]}
    assert names["overlap"]["configured"] and names["overlap"]["why"] == ""
    assert all(s["why"] for s in state["scorers"] if not s["configured"])
    assert state["scores"] == [] and state["knowledge"] == []
    items = QA.objects.filter(response__project=project).count() + AtomicFact.objects.filter(
        response__project=project).count()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": "overlap"}, format="json")
    job = _job(client, answer)
    assert (job["kind"], job["status"], job["done"], job["total"]) == ("score", "done", items, items), job
    assert job["result"]["qa"] + job["result"]["fact"] + job["result"]["no_reference"] == items
    scored = ItemScore.objects.filter(scorer="overlap").count()
    assert scored == job["result"]["qa"] + job["result"]["fact"] > 0
    (row,) = client.get(f"/api/projects/{project.pk}/scoring/").json()["scores"]
    assert (row["scorer"], row["items"]) == ("overlap", scored)
    with django_capture_on_commit_callbacks(execute=True):  # nothing left to score ...
        answer = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": "overlap"}, format="json")
    again = _job(client, answer)
    assert again["result"]["qa"] == again["result"]["fact"] == 0
    with django_capture_on_commit_callbacks(execute=True):  # ... unless rescored
        answer = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": "overlap", "rescore": True},
                             format="json")
    redo = _job(client, answer)
    assert redo["result"]["qa"] + redo["result"]["fact"] == scored


def test_bad_scorers_are_refused_at_their_field(card, django_user_model):
    project, client = card
    r = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": "magic"}, format="json")
    assert r.status_code == 400 and "scorer" in r.json()
    r = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": "overlap", "rescore": "maybe"}, format="json")
    assert r.status_code == 400 and "rescore" in r.json()
    unconfigured = [s["name"] for s in client.get(f"/api/projects/{project.pk}/scoring/").json()["scorers"]
                    if not s["configured"]]
    for name in unconfigured:
        r = client.post(f"/api/projects/{project.pk}/scoring/", {"scorer": name}, format="json")
        assert r.status_code == 400 and "scorer" in r.json()
    stranger = APIClient()
    stranger.force_authenticate(django_user_model.objects.create_user("stranger", password="pw"))
    assert stranger.post(f"/api/projects/{project.pk}/scoring/", {}, format="json").status_code in (403, 404)
    assert stranger.get(f"/api/projects/{project.pk}/scoring/").status_code in (403, 404)


def _upload(client, project, name, lines):
    content = "".join(json.dumps(x) + "\n" for x in lines).encode()
    file = SimpleUploadedFile(name, content, content_type="application/octet-stream")
    return client.post(f"/api/projects/{project.pk}/upload/", {"file": file, "format": "knowledge"}, format="multipart")


def test_a_knowledge_source_is_uploaded_and_retrieved_for_as_an_import_job(card, django_capture_on_commit_callbacks):
    project, client = card
    docs = [{"title": "s0", "text": "Anna visited Oslo in spring. The city is cold and old."},
            {"title": "Other", "text": "A lake in the mountains froze early."}]
    with django_capture_on_commit_callbacks(execute=True):
        answer = _upload(client, project, "wiki.jsonl", docs)
    job = _job(client, answer)
    assert (job["kind"], job["status"]) == ("import", "done"), job
    (summary,) = job["result"]["summaries"]
    facts = AtomicFact.objects.filter(response__project=project).count()
    assert "wiki.jsonl: 2 records" in summary and f"of {facts} facts" in summary
    assert KnowledgeSource.objects.get(project=project).name == "wiki"
    assert RetrievedPassage.objects.filter(fact__response__project=project).values("fact").distinct().count() == facts
    state = client.get(f"/api/projects/{project.pk}/scoring/").json()
    assert [k["name"] for k in state["knowledge"]] == ["wiki"] and state["facts_with_passages"] == facts
    # a bad line: nothing imported, the line and field named
    with django_capture_on_commit_callbacks(execute=True):
        answer = _upload(client, project, "more.jsonl", [docs[0], {"title": "x", "text": 5}])
    bad = _job(client, answer)
    assert bad["status"] == "failed"
    (error,) = bad["result"]["errors"]
    assert (error["file"], error["line"], error["field"]) == ("more.jsonl", 2, "text")
    assert KnowledgeSource.objects.filter(project=project).count() == 1
    assert _upload(client, project, "wiki.txt", docs).status_code == 400
