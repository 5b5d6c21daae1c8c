"""Lists at any depth (issue 25 item 1): a page is found on the bare ids (no GROUP BY, no offset past the middle)
and only its rows get their counts; ?cursor= walks the same rows by keyset; the old ?page= answers are unchanged."""
from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation_tasks.models import QA, Assignment, Batch, Predicate, Response, Source, Unit, Worker
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def many(world):
    source = Source.objects.get(project=world.a, external_id="s-a")
    for i in range(37):
        r = Response.objects.create(project=world.a, source=source, external_id=f"deep-{i:02d}",
                                    system=["x", "y"][i % 2], text="A man died .")
        for k in range(i % 3):
            p = Predicate.objects.create(response=r, token_index=k, text="died", verb_form="die")
            QA.objects.create(response=r, predicate=p, question="Who died?", answer="A man", answer_start=0,
                              answer_end=2)
    for i in range(5):
        Batch.objects.create(project=world.a, name=f"b{i}")
    return world


def walk(client, url: str) -> list[dict]:
    rows: list[dict] = []
    while url:
        body = client.get(url).json()
        rows += body["results"]
        url = body["next"]
    return rows


def test_every_page_equals_the_whole_list_and_deep_pages_are_bare(many, users):
    client = client_for(users["alice"])
    expected = list(Response.objects.filter(project=many.a, system="x").order_by("-external_id")
                    .values_list("id", flat=True))
    query = f"project={many.a.pk}&system=x&ordering=-external_id&page_size=4"
    pages = -(-len(expected) // 4)
    got = []
    for number in range(1, pages + 1):
        with CaptureQueriesContext(connection) as queries:
            body = client.get(f"/api/responses/?{query}&page={number}").json()
        assert body["count"] == len(expected)
        got += [r["id"] for r in body["results"]]
        for q in queries.captured_queries:
            offset = re.search(r"OFFSET (\d+)", q["sql"])
            if offset:  # the only offset query reads bare ids, never past the middle
                assert "GROUP BY" not in q["sql"] and "COUNT(" not in q["sql"]
                assert int(offset.group(1)) <= len(expected) // 2
    assert got == expected
    # counts as before, for the page's rows
    rows = {r["id"]: r for r in walk(client, f"/api/responses/?project={many.a.pk}&page_size=7")}
    for r in Response.objects.filter(project=many.a):
        assert rows[r.pk]["qa_count"] == r.qas.count() and rows[r.pk]["predicate_count"] == r.predicates.count()
    has = walk(client, f"/api/responses/?project={many.a.pk}&has_qas=true&page_size=5")
    assert {r["id"] for r in has} == set(Response.objects.filter(project=many.a, qas__isnull=False).values_list(
        "id", flat=True))
    assert client.get(f"/api/responses/?project={many.a.pk}&page=last&page_size=5").json()["next"] is None
    assert client.get(f"/api/responses/?project={many.a.pk}&page=99").status_code == 404
    assert client.get(f"/api/responses/?project={many.a.pk}&page=x").status_code == 404


@pytest.mark.parametrize("path,ordering", [
    ("responses", "-external_id"), ("responses", "system"), ("qas", "id"), ("batches", ""), ("batches", "name"),
])
def test_a_cursor_walk_equals_the_page_walk(many, users, path, ordering):
    client = client_for(users["alice"])
    base = f"/api/{path}/?project={many.a.pk}&page_size=3" + (f"&ordering={ordering}" if ordering else "")
    by_page = [r["id"] for r in walk(client, base)]
    first = client.get(base + "&cursor=").json()
    assert first["next_cursor"] and first["count"] == len(by_page)
    by_cursor = [r["id"] for r in walk(client, base + "&cursor=")]
    assert by_cursor == by_page and len(set(by_page)) == len(by_page) > 3


def test_a_bad_cursor_is_a_400(many, users):
    client = client_for(users["alice"])
    for bad in ("%%%", "bm90IGpzb24", "WzFd"):  # not base64, not json, a list of the wrong width
        answer = client.get(f"/api/responses/?project={many.a.pk}&ordering=-external_id&cursor={bad}")
        assert answer.status_code == 400 and "cursor" in answer.json()


def test_batches_count_units_per_status_without_reading_units(many, users):
    client = client_for(users["alice"])
    batch = many.batch_a
    Unit.objects.create(project=many.a, batch=batch, source=many.unit_a.source, status="completed")
    body = client.get(f"/api/batches/?project={many.a.pk}").json()
    row = next(b for b in body["results"] if b["id"] == batch.pk)
    statuses = list(Unit.objects.filter(batch=batch).values_list("status", flat=True))
    assert row["unit_count"] == len(statuses)
    assert row["units_by_status"] == {s: statuses.count(s) for s in set(statuses)}
    assert client.get(f"/api/batches/{batch.pk}/").json()["unit_count"] == len(statuses)


def test_workers_of_a_project_are_listed_once_with_the_pages_metrics(many, users):
    client = client_for(users["alice"])
    extra = [Worker.objects.create(external_id=f"x{i}") for i in range(6)]
    second = Unit.objects.create(project=many.a, batch=many.batch_a, source=many.unit_a.source)
    for w in extra:
        for unit in (many.unit_a, second):  # two assignments each: a join would list them twice
            Assignment.objects.create(unit=unit, worker=w, status="submitted", time_on_task_ms=1000)
    rows = walk(client, f"/api/workers/?project={many.a.pk}&page_size=4")
    ids = [r["id"] for r in rows]
    expected = set(Assignment.objects.filter(unit__project=many.a).values_list("worker_id", flat=True))
    assert sorted(ids) == ids and set(ids) == expected and len(ids) == len(expected)
    assert all(r["metrics"]["units_done"] >= 1 for r in rows)
    assert client.get("/api/workers/?project=abc").status_code == 400
    assert client.get(f"/api/workers/?project={many.b.pk}").json()["count"] == 0  # not alice's project
