"""FactCrowd's PostgreSQL backend (backend/postgresql, backend/settings.py): the health check costs no round trip
for a healthy idle connection, a connection the server closed is still found unusable and replaced before a
request uses it, and queries run again and again are prepared (PostgreSQL plans them once per connection)."""
from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_base

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def postgres():
    if connection.vendor != "postgresql":
        pytest.skip("the socket health check is PostgreSQL's backend (DATABASE_URL=postgres://...)")
    wrapper = connections["default"]
    wrapper.ensure_connection()
    assert type(wrapper).__module__ == "backend.postgresql.base"
    return wrapper


def test_a_healthy_idle_connection_is_usable_without_a_query(postgres, monkeypatch):
    def round_trip(self):
        raise AssertionError("SELECT 1 sent for an idle healthy connection")

    monkeypatch.setattr(django_base.DatabaseWrapper, "is_usable", round_trip)
    assert postgres.is_usable() is True


def test_a_connection_the_server_terminated_is_unusable_and_replaced(postgres):
    settings = postgres.settings_dict
    pid = postgres.connection.info.backend_pid
    with psycopg.connect(host=settings["HOST"] or "localhost", port=settings["PORT"] or 5432, user=settings["USER"],
                         password=settings["PASSWORD"], dbname=settings["NAME"], autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone()[0] is True
    for _ in range(100):  # the FATAL message and the end of the stream reach the socket shortly after
        if not postgres.is_usable():
            break
        time.sleep(0.02)
    assert postgres.is_usable() is False
    # what Django does at a request's start: the dead connection is dropped and the next query opens a new one
    postgres.health_check_enabled, postgres.health_check_done = True, False
    postgres.close_if_health_check_failed()
    assert postgres.connection is None
    with postgres.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_a_connection_in_a_transaction_is_checked_by_the_server(postgres, monkeypatch):
    calls = []
    monkeypatch.setattr(django_base.DatabaseWrapper, "is_usable", lambda self: calls.append(1) or True)
    postgres.connection.execute("BEGIN")
    try:
        assert postgres.is_usable() is True
        assert calls == [1]  # not idle: the socket cannot tell, so SELECT 1 decides
    finally:
        postgres.connection.execute("ROLLBACK")


def test_a_query_run_again_and_again_is_prepared(postgres):
    from annotation_tasks.models import Unit

    assert postgres.settings_dict["OPTIONS"].get("server_side_binding") is True
    for pk in range(8):  # the same SQL with new values: prepared after prepare_threshold (5) runs
        list(Unit.objects.filter(pk=-pk).values_list("id", "status"))
    with postgres.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        prepared = {sql: runs for sql, runs in cursor.fetchall()}
    unit_reads = [runs for sql, runs in prepared.items() if 'FROM "annotation_tasks_unit"' in sql and "$1" in sql]
    assert unit_reads and max(unit_reads) >= 2, prepared
