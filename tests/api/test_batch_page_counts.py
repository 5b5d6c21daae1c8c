"""The batches list counts its page's units in one grouped query (issue 25 item 1): the same unit_count and
units_by_status as counting each batch, and no more unit queries with more batches."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation_tasks.models import Batch, Unit
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def unit_queries(client, url: str) -> tuple[dict, int]:
    with CaptureQueriesContext(connection) as queries:
        body = client.get(url).json()
    return body, sum(1 for q in queries.captured_queries if 'FROM "annotation_tasks_unit"' in q["sql"]
                     and "GROUP BY" in q["sql"])


def test_the_page_is_counted_in_one_grouped_query(world, users):
    client = client_for(users["alice"])
    source = world.unit_a.source
    statuses = ["open", "completed", "open", "closed"]
    for i in range(3):
        batch = Batch.objects.create(project=world.a, name=f"extra-{i}")
        for status in statuses[: i + 1]:
            Unit.objects.create(project=world.a, batch=batch, source=source, status=status)
    url = f"/api/batches/?project={world.a.pk}"
    body, grouped = unit_queries(client, url)
    assert len(body["results"]) == 4 and grouped == 1
    for row in body["results"]:
        units = Unit.objects.filter(batch_id=row["id"])
        expected = {s: units.filter(status=s).count() for s in set(units.values_list("status", flat=True))}
        assert row["units_by_status"] == expected
        assert row["unit_count"] == units.count()
    Batch.objects.create(project=world.a, name="empty")
    body, grouped = unit_queries(client, url)
    assert grouped == 1
    empty = next(r for r in body["results"] if r["name"] == "empty")
    assert empty["unit_count"] == 0 and empty["units_by_status"] == {}
