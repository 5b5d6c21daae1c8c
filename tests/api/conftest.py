"""Two projects with content, gold, units and assignments, and the people who may (not) see them."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    GoldLabel,
    Job,
    Predicate,
    Project,
    ProjectMembership,
    Response,
    Source,
    Unit,
    UnitResponse,
    Worker,
)


@dataclass
class World:
    a: Project
    b: Project
    qa_a: QA
    qa_b: QA
    span_a: AnswerSpan
    fact_a: AtomicFact
    batch_a: Batch
    batch_b: Batch
    unit_a: Unit
    unit_b: Unit
    own_assignment: Assignment
    other_assignment: Assignment
    assignment_b: Assignment
    job_a: Job
    job_b: Job


def _content(project: Project, tag: str) -> tuple[Response, QA, AnswerSpan, AtomicFact]:
    source = Source.objects.create(project=project, external_id=f"s-{tag}", text="A man died from measles .")
    response = Response.objects.create(
        project=project, source=source, external_id=f"r-{tag}", system=f"sys-{tag}", text="A man died from measles .",
        tokens=[["A", 0, 1], ["man", 2, 5], ["died", 6, 10], ["from", 11, 15], ["measles", 16, 23], [".", 24, 25]],
        sentences=[{"start": 0, "end": 6, "text": "A man died from measles ."}],
    )
    predicate = Predicate.objects.create(response=response, token_index=2, text="died", verb_form="die")
    qa = QA.objects.create(
        response=response, predicate=predicate, question="Who died?", answer="A man", answer_start=0, answer_end=2
    )
    span = AnswerSpan.objects.create(response=response, start=0, end=2, text="A man")
    span.qas.add(qa)
    fact = AtomicFact.objects.create(response=response, text="A man died.")
    GoldLabel.objects.create(qa=qa, value="supported", explanation=f"gold-secret-{tag}")
    GoldLabel.objects.create(span=span, value="covered")
    GoldLabel.objects.create(fact=fact, value="S")
    return response, qa, span, fact


@pytest.fixture
def users(db):
    User = get_user_model()
    return {
        "alice": User.objects.create_user("alice", password="pw"),  # researcher of A
        "bob": User.objects.create_user("bob", password="pw"),  # researcher of B
        "ann": User.objects.create_user("ann", password="pw"),  # annotator of A
        "eve": User.objects.create_user("eve", password="pw"),  # annotator of A too (the "other" assignment)
        "nobody": User.objects.create_user("nobody", password="pw"),
    }


@pytest.fixture
def world(users) -> World:
    a = Project.objects.create(name="A", description="secret A", instructions="Judge A")
    b = Project.objects.create(name="B", description="secret B")
    R, AN = ProjectMembership.Role.RESEARCHER, ProjectMembership.Role.ANNOTATOR
    ProjectMembership.objects.create(project=a, user=users["alice"], role=R)
    ProjectMembership.objects.create(project=b, user=users["bob"], role=R)
    ProjectMembership.objects.create(project=a, user=users["ann"], role=AN)
    ProjectMembership.objects.create(project=a, user=users["eve"], role=AN)
    resp_a, qa_a, span_a, fact_a = _content(a, "a")
    resp_b, qa_b, _, _ = _content(b, "b")
    batch_a = Batch.objects.create(project=a, name="batch-a")
    batch_b = Batch.objects.create(project=b, name="batch-b")
    unit_a = Unit.objects.create(project=a, batch=batch_a, source=resp_a.source)
    UnitResponse.objects.create(unit=unit_a, response=resp_a)
    unit_b = Unit.objects.create(project=b, batch=batch_b, source=resp_b.source)
    UnitResponse.objects.create(unit=unit_b, response=resp_b)
    w_ann = Worker.objects.create(external_id="ann", user=users["ann"])
    w_eve = Worker.objects.create(external_id="eve", user=users["eve"])
    w_crowd = Worker.objects.create(provider="mturk", external_id="A1CROWD")
    own = Assignment.objects.create(unit=unit_a, worker=w_ann, status="submitted", time_on_task_ms=60000)
    other = Assignment.objects.create(unit=unit_a, worker=w_eve, status="submitted", time_on_task_ms=30000)
    in_b = Assignment.objects.create(unit=unit_b, worker=w_crowd, status="submitted")
    job_a = Job.objects.create(project=a, kind="parse", total=10, done=5)
    job_b = Job.objects.create(project=b, kind="parse")
    return World(a, b, qa_a, qa_b, span_a, fact_a, batch_a, batch_b, unit_a, unit_b, own, other, in_b, job_a, job_b)


def client_for(user) -> APIClient:
    """A client authenticating with the user's DRF token (the session path is covered by the e2e test)."""
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def as_user(users):
    return lambda name: client_for(users[name])
