"""Composing a big batch answers a count and a first page, not every unit (issue 10: 2,626 units took 16 s
and ~400 MB in one response); the rest are paged by the units list."""
import pytest

from annotation_tasks.models import Batch, Response, Source, Unit
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def test_compose_answers_the_count_and_the_first_page(world, users, django_assert_max_num_queries):
    for i in range(120):
        source = Source.objects.create(project=world.a, external_id=f"many-{i}", text="S.")
        Response.objects.create(project=world.a, source=source, external_id=f"many-r{i}", system="x", text="R .")
    batch = Batch.objects.create(project=world.a, name="big", provider="local")
    client = client_for(users["alice"])

    answer = client.post(f"/api/batches/{batch.pk}/compose/", {}, format="json")

    assert answer.status_code == 201, answer.content[:300]
    body = answer.json()
    units = Unit.objects.filter(batch=batch).order_by("id")
    assert body["created"] == units.count() == 121  # world's own source too
    assert [u["id"] for u in body["results"]] == list(units.values_list("id", flat=True)[:50])
    assert all(len(u["response_ids"]) == 1 and u["assignments_by_status"] == {} for u in body["results"])
    # the rest through the units list, page by page
    seen, url = [], body["units"]
    while url:
        page = client.get(url).json()
        seen += [u["id"] for u in page["results"]]
        url = page["next"]
    assert seen == list(units.values_list("id", flat=True))
    # composing again creates nothing; the answer is small and cheap
    with django_assert_max_num_queries(30):
        again = client.post(f"/api/batches/{batch.pk}/compose/", {}, format="json").json()
    assert (again["created"], again["results"]) == (0, [])
