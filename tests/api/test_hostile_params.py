"""What a stranger can put in a query string or a filter body: a Unicode digit ("²" passes str.isdigit(), not int()),
a 20-digit id (past a 64-bit column), a fraction where an id belongs, an edited ?cursor=. Each is a 400 naming the
parameter, never a 500, and nothing is written. (Found by an adversarial audit of a running server, 6 Dec 2026.)"""
from __future__ import annotations

import base64
import json

import pytest

from annotation_tasks.models import QA, Unit

HUGE = "99999999999999999999"


def _cursor(values: list) -> str:
    return base64.urlsafe_b64encode(json.dumps(values).encode()).decode().rstrip("=")


@pytest.mark.parametrize("path", [
    "/api/assignments/?project={p}",
    "/api/workers/?project={p}",
    "/api/workers/?project={p}&status=active",
    "/api/workers/{w}/decisions/?project={p}",
    "/api/workers/{w}/learning-curve/?project={p}",
    "/api/workers/{w}/learning-curve/?project={real}&block={p}",
    "/api/qas/?project={p}&kind=verbal",
])
@pytest.mark.parametrize("bad", ["²", "٣", HUGE, "1.5", "-1"])
def test_a_project_or_count_parameter_that_is_not_a_plain_id_is_never_a_500(world, as_user, path, bad):
    worker = world.own_assignment.worker_id
    r = as_user("alice").get(path.format(p=bad, w=worker, real=world.a.pk))
    assert r.status_code in (200, 400, 404), (path, bad, r.status_code)
    if r.status_code == 400:
        assert set(r.json()) & {"project", "block"}


def test_a_unicode_digit_project_is_refused_where_an_id_is_required(world, as_user):
    worker = world.own_assignment.worker_id
    client = as_user("alice")
    assert client.get("/api/workers/?project=²").json() == {"project": "not a valid integer: '²'"}
    r = client.get(f"/api/workers/{worker}/learning-curve/?project=²")
    assert r.status_code == 400 and "project" in r.json()
    r = client.get(f"/api/workers/{worker}/learning-curve/?project={world.a.pk}&block=²")
    assert r.status_code == 400 and "block" in r.json()
    r = client.get("/api/assignments/?project=²")
    assert r.status_code == 400 and "project" in r.json()


@pytest.mark.parametrize("path", ["/api/qas/?batch=" + HUGE, "/api/projects/{a}/fact-validation/?batch=" + HUGE])
def test_a_20_digit_batch_filter_is_a_400(world, as_user, path):
    r = as_user("alice").get(path.format(a=world.a.pk))
    assert r.status_code == 400, r.content
    assert "batch" in json.dumps(r.json())


@pytest.mark.parametrize("spec,field", [
    ({"project": int(HUGE)}, "project"),
    ({"batch": int(HUGE)}, "batch"),
    ({"project": 1.7}, "project"),
    ({"project": True}, "project"),
    ({"project": "²"}, "project"),
])
def test_bulk_validation_refuses_an_id_it_cannot_hold_or_would_truncate(world, as_user, spec, field):
    before = dict(QA.objects.values_list("pk", "validity"))
    r = as_user("alice").post("/api/qas/bulk-validate/", {"filter": spec, "validity": "invalid"}, format="json")
    assert r.status_code == 400, r.content
    assert field in json.dumps(r.json())
    assert dict(QA.objects.values_list("pk", "validity")) == before


def test_bulk_validation_still_takes_an_id_as_a_number_or_a_string(world, as_user):
    for value in (world.a.pk, str(world.a.pk), float(world.a.pk)):
        r = as_user("alice").post("/api/qas/bulk-validate/", {"filter": {"project": value}, "validity": "valid"},
                                  format="json")
        assert r.status_code == 200 and r.json()["updated"] == 1, r.content


@pytest.mark.parametrize("body,field", [
    ({"units": [int(HUGE)]}, "units"),
    ({"units": [], "labels": [{"target": "qa", "id": int(HUGE), "value": "supported"}]}, "labels"),
    ({"units": [], "labels": [{"target": "qa", "id": 1.5, "value": "supported"}]}, "labels"),
])
def test_training_refuses_ids_past_a_64_bit_column(world, as_user, body, field):
    r = as_user("alice").post(f"/api/projects/{world.a.pk}/training/", body, format="json")
    assert r.status_code == 400, r.content
    assert field in json.dumps(r.json())
    assert not Unit.objects.filter(is_training=True).exists()


@pytest.mark.parametrize("path", [
    "/api/sources/", "/api/qas/", "/api/units/", "/api/batches/", "/api/jobs/", "/api/projects/",
    "/api/assignments/", "/api/assignments/?ordering=created_at", "/api/assignments/?ordering=-submitted_at",
    "/api/assignments/?ordering=time_on_task_ms", "/api/workers/",
])
@pytest.mark.parametrize("values", [
    ["abc"], [{"a": 1}], [[1]], [int(HUGE)], [True], [1e308 * 10],
    [{"a": 1}, 1], [int(HUGE), int(HUGE)], ["x", "y"],
], ids=repr)
def test_an_edited_cursor_is_a_400_on_every_list(world, as_user, path, values):
    url = f"{path}{'&' if '?' in path else '?'}cursor={_cursor(values)}"
    r = as_user("alice").get(url)
    assert r.status_code == 400, (url, r.status_code, r.content[:300])
    assert "cursor" in r.json()


@pytest.mark.parametrize("ordering", ["created_at", "-submitted_at"])
@pytest.mark.parametrize("values", [["2026-13-01", 1], ["not a date", 1], [12, 1]], ids=repr)
def test_a_cursor_with_a_bad_date_is_a_400(world, as_user, ordering, values):
    r = as_user("alice").get(f"/api/assignments/?ordering={ordering}&cursor={_cursor(values)}")
    assert r.status_code == 400 and "cursor" in r.json(), r.content[:300]


def test_a_cursor_the_list_gave_still_walks(world, as_user):
    client = as_user("alice")
    first = client.get("/api/assignments/?ordering=-submitted_at&page_size=1&cursor=").json()
    second = client.get(f"/api/assignments/?ordering=-submitted_at&page_size=1&cursor={first['next_cursor']}").json()
    assert first["results"] and second["results"]
    assert first["results"][0]["id"] != second["results"][0]["id"]
