"""Studies with real submissions (through services.work.submit) for review and adjudication tests.

qasem: one unit of two responses (two spans and two QAs each, gold on the first span and QA of each) with the
pairwise step; three workers: w1 and w2 agree with gold, w3 marks the first QA of response A not supported
and scores the comparison differently; w1 writes a note.
factscore: one response of two sentences (two model facts each, gold S on the first); w1 keeps everything,
w2 labels the first fact NS, w3 edits the second fact into a human fact.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, Project, ProjectMembership, Unit, Worker
from annotation_tasks.services import work
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels


@dataclass
class Study:
    project: Project
    unit: Unit
    assignments: dict[str, Assignment] = field(default_factory=dict)
    payloads: dict[str, dict] = field(default_factory=dict)


def submit(unit: Unit, name: str, labels_of, ms: int) -> tuple[Assignment, dict]:
    worker, _ = Worker.objects.get_or_create(provider="local", external_id=f"user-{name}",
                                             defaults={"display_name": name})
    assignment = Assignment.objects.create(unit=unit, worker=worker)
    shown_payload = work.unit_payload(assignment)
    assignment.refresh_from_db()
    result = work.submit(assignment, {"labels": labels_of(shown_payload), "time_on_task_ms": ms})
    assert result.status == "submitted" and not result.duplicate
    assignment.refresh_from_db()
    return assignment, shown_payload


def qas_of(payload: dict) -> list[dict]:
    return [q for r in payload["responses"] for q in r["qas"]]


@pytest.fixture
def qasem_study(db) -> Study:
    unit = make_unit("Review QASem", protocol=["span_coverage", "qa_support", "pairwise"], n_qas=2, n_responses=2)
    study = Study(unit.project, unit)
    first_qa = None

    def labels(name: str):
        def build(payload: dict) -> dict:
            nonlocal first_qa
            first_qa = payload["responses"][0]["qas"][0]["id"]
            unsupported = {first_qa} if name == "w3" else set()
            out = qasem_labels(payload, unsupported=unsupported, pairwise=4 if name == "w3" else 2)
            if name == "w1":
                out["qas"][0]["note"] = "answer is right but vague"
            return out
        return build

    for i, name in enumerate(("w1", "w2", "w3")):
        assignment, payload = submit(unit, name, labels(name), 40_000 + 10_000 * i)
        study.assignments[name] = assignment
        study.payloads[name] = payload
    return study


@pytest.fixture
def factscore_study(db) -> Study:
    unit = make_unit("Review FActScore", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)
    study = Study(unit.project, unit)

    def labels(name: str):
        def build(payload: dict) -> dict:
            response = payload["responses"][0]
            f = [x["id"] for x in response["facts"]]
            if name == "w3":
                return {"facts": [
                    {"fact_id": f[0], "label": "S"},
                    {"text": "Anna visited a city in France.", "sentence_index": 0, "response_id": response["id"],
                     "edited_from": [f[1]], "label": "NS"},
                    {"fact_id": f[2], "label": "S"}, {"fact_id": f[3], "label": "S"},
                ]}
            first = "NS" if name == "w2" else "S"
            return {"facts": [{"fact_id": f[0], "label": first}, *({"fact_id": x, "label": "S"} for x in f[1:])]}
        return build

    for i, name in enumerate(("w1", "w2", "w3")):
        assignment, payload = submit(unit, name, labels(name), 20_000 + 5_000 * i)
        study.assignments[name] = assignment
        study.payloads[name] = payload
    return study


@pytest.fixture
def people(db):
    User = get_user_model()
    return {name: User.objects.create_user(name, password="pw") for name in ("alice", "bob", "ann")}


def member(project: Project, user, role: str = ProjectMembership.Role.RESEARCHER) -> None:
    ProjectMembership.objects.create(project=project, user=user, role=role)


def client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
