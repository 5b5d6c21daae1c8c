"""The annotator's hot path (next, unit, draft, submit) issues a fixed, small number of SQL queries.

At 100 concurrent annotators every query is paid ~100 times a second on a 2-core machine (bench/bench_load.py):
a query added to one of these endpoints, or an N+1 over the unit's items, must show up here, not in production.
The counts are what the endpoints issue today (transaction statements included); they may go down, never up.
Runs on SQLite and on PostgreSQL (TEST_POSTGRES_URL in scripts/test.sh).
"""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, ProjectMembership, QALabel
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db

# endpoint -> most queries (the unit has 2 responses, each with n_qas QAs and spans; the same on both databases).
# Before issue 10's load work `next` issued 18 (22 the first time); then 12 (16), unit 11, submit 13, before the
# unit's items were read for all its responses at once and the worker with the project (bench/bench_load.py).
# A submit that completes its unit has one more. Submit +1 (issue 23 item 5): whether the worker already voted on
# the unit's items through another batch (one counted vote per worker per item), one EXISTS.
MOST = {"first next": 16, "next": 11, "unit": 6, "draft": 2, "submit": 13}


def annotator(project, name: str) -> APIClient:
    user = get_user_model().objects.create_user(name)
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.ANNOTATOR)
    client = APIClient()
    client.force_login(user)
    return client


def counted(call) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = call()
    return response, len(ctx.captured_queries)


def one_round(client: APIClient, project_id: int, first: str) -> dict[str, int]:
    """next, unit, two drafts and a submit, as the element does; {endpoint: queries (the most of its calls)}."""
    seen: dict[str, int] = {}
    r, seen[first] = counted(lambda: client.post("/api/work/next", {"project": project_id}, format="json"))
    assert r.status_code == 200, r.content
    token = r.json()["token"]
    r, seen["unit"] = counted(lambda: client.get(f"/api/work/{token}/unit"))
    assert r.status_code == 200, r.content
    labels = qasem_labels(r.json())
    for step in range(2):
        r, n = counted(lambda step=step: client.put(f"/api/work/{token}/draft", {"draft": {"labels": labels, "step": step}},
                                          format="json"))
        assert r.status_code == 200, r.content
        seen["draft"] = max(seen.get("draft", 0), n)
    r, seen["submit"] = counted(lambda: client.post(f"/api/work/{token}/submit",
                                                    {"labels": labels, "time_on_task_ms": 1000}, format="json"))
    assert r.status_code == 200 and r.json()["duplicate"] is False, r.content
    return seen


@pytest.mark.parametrize("n_qas", [2, 6])
def test_hot_path_query_counts_do_not_grow_with_the_unit_or_regress(n_qas):
    units = make_unit("Hot path", n_sources=3, wanted=2, n_qas=n_qas, n_responses=2)
    project = units[0].project
    clients = [annotator(project, f"hot-{k}") for k in range(2)]
    for client in clients:
        first = one_round(client, project.pk, "first next")  # creates the annotator's Worker
        again = one_round(client, project.pk, "next")
        for endpoint, n in {**first, **again}.items():
            assert n <= MOST[endpoint], f"{endpoint}: {n} queries, at most {MOST[endpoint]} ({connection.vendor})"
    # the work really happened: both annotators submitted two units each, with every QA labelled once
    submitted = Assignment.objects.filter(unit__project=project, status=Assignment.Status.SUBMITTED)
    assert submitted.count() == 4
    assert QALabel.objects.filter(assignment__in=submitted).count() == 4 * 2 * n_qas
