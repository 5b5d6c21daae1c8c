"""A database that cannot answer mid-request is a 503 the element retries, never a 500 (issue 10).

Two ways the outage surfaces: inside a DRF view (the API's exception handler answers) and inside a plain Django
view (the worker's pages: annotation_tasks.db_outage's middleware answers). Both are driven by real failures:
`connection.execute_wrapper` makes every query raise the driver's error as Django wraps it, and a thread whose
connection points at a closed port (PostgreSQL) or an unreachable file (SQLite) meets the driver's own refusal.
"""
from __future__ import annotations

import json
import logging
import socket
import threading
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError, connection, connections
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from annotation_tasks.api.errors import server_error
from annotation_tasks.db_outage import is_database_outage
from annotation_tasks.signing import unit_ref
from tests.work.builders import make_unit
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db

OUTAGES = [
    OperationalError("server closed the connection unexpectedly"),
    OperationalError("database is locked"),
    InterfaceError("connection already closed"),
]


@contextmanager
def database_down(error: Exception):
    """Every query on this thread's connection raises `error` while the block runs."""
    def fail(execute, sql, params, many, context):
        raise error

    with connection.execute_wrapper(fail):
        yield


def assert_unavailable_json(response) -> None:
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert body["code"] == "database_unavailable"
    assert body["detail"]
    assert int(response["Retry-After"]) > 0


@pytest.fixture
def unit(db):
    return make_unit(n_qas=1)


@pytest.fixture
def token(unit) -> str:
    _, token = new_assignment(unit, "w-outage")
    return token


@pytest.fixture
def researcher(db):
    return get_user_model().objects.create_user("outage-researcher", password="pw-outage-1234")


@pytest.mark.parametrize("error", OUTAGES, ids=lambda e: str(e).split()[0])
def test_work_api_answers_503_json_when_the_database_fails(token, error, caplog):
    client = APIClient()
    calls = {
        "unit": lambda: client.get(f"/api/work/{token}/unit"),
        "draft": lambda: client.put(f"/api/work/{token}/draft", {"draft": {"qas": []}}, format="json"),
        "submit": lambda: client.post(f"/api/work/{token}/submit", {"labels": {}, "time_on_task_ms": 5}, format="json"),
    }
    for name, call in calls.items():
        with caplog.at_level(logging.WARNING, logger="annotation_tasks.db_outage"), database_down(error):
            response = call()
        assert_unavailable_json(response)
        assert any("database unavailable" in r.getMessage() and f"/{name}" in r.getMessage() for r in caplog.records)


def test_next_and_a_dashboard_endpoint_answer_503_json(researcher, token):
    client = APIClient()
    client.force_authenticate(researcher)
    with database_down(OUTAGES[0]):
        assert_unavailable_json(client.post("/api/work/next", {"project": 1}, format="json"))
        assert_unavailable_json(client.get("/api/projects/"))
        assert_unavailable_json(client.get("/api/units/"))


def test_the_worker_pages_answer_a_short_503_page(unit, token):
    """A plain Django view: the middleware answers, not DRF (HTML clients get text, /api/ gets JSON)."""
    client = Client()
    with database_down(OUTAGES[1]):
        response = client.get(f"/work/{token}/")
        entry = client.get(f"/work/unit/{unit_ref(unit)}/?PROLIFIC_PID=p&STUDY_ID=s&SESSION_ID=x")
    for r in (response, entry):
        assert r.status_code == 503
        assert r["Content-Type"].startswith("text/plain")
        assert int(r["Retry-After"]) > 0
        assert b"database" in r.content.lower()


def test_a_failure_outside_views_is_a_503_too():
    """handler500 (an error in middleware, e.g. saving the session) checks the exception it is answering."""
    request = RequestFactory().get("/api/projects/")
    try:
        raise OperationalError("server closed the connection unexpectedly")
    except OperationalError:
        response = server_error(request)
    assert_unavailable_json(response)
    try:
        raise ValueError("a bug")
    except ValueError:
        assert server_error(request).status_code == 500


def test_programming_errors_are_not_outages():
    assert is_database_outage(OperationalError("database is locked"))
    assert is_database_outage(InterfaceError("connection already closed"))
    assert not is_database_outage(OperationalError("no such table: annotation_tasks_unit"))
    assert not is_database_outage(OperationalError('near "SELEC": syntax error'))
    assert not is_database_outage(ValueError("database is locked"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_database_is_a_503_not_a_500(token, tmp_path):
    """A real refusal from the driver: this thread's own connection points at a closed port (PostgreSQL) or an
    SQLite file in a folder that does not exist."""
    outcome: dict = {}

    def run() -> None:
        conn = connections["default"]
        unreachable = dict(conn.settings_dict)
        if conn.vendor == "postgresql":
            unreachable.update(HOST="127.0.0.1", PORT=str(_closed_port()), OPTIONS={
                **unreachable.get("OPTIONS", {}), "connect_timeout": 2})
        else:
            unreachable["NAME"] = str(tmp_path / "missing-dir" / "db.sqlite3")
        conn.settings_dict = unreachable
        try:
            outcome["api"] = APIClient().get(f"/api/work/{token}/unit")
            outcome["page"] = Client().get(f"/work/{token}/")
        except Exception as exc:  # a 500 re-raised by the test client
            outcome["error"] = exc
        finally:
            conn.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert "error" not in outcome, repr(outcome.get("error"))
    assert_unavailable_json(outcome["api"])
    assert outcome["page"].status_code == 503

