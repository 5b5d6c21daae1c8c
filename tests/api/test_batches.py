"""Batches from the dashboard: compose, estimate, publish (confirmed, in a Job), sync, close, draft-only edits."""
import pytest

from annotation_tasks.models import Batch, Job, Unit

pytestmark = pytest.mark.django_db


def test_compose_estimate_publish_sync_close(world, as_user, django_capture_on_commit_callbacks):
    client = as_user("alice")
    created = client.post("/api/batches/", {"project": world.a.pk, "name": "pilot", "provider": "local"}, format="json")
    assert created.status_code == 201, created.json()
    bid = created.json()["id"]
    units = client.post(f"/api/batches/{bid}/compose/", {}, format="json")
    assert units.status_code == 201 and units.json()["created"] == 1  # project A has one source
    assert client.post(f"/api/batches/{bid}/compose/", {}, format="json").json()["created"] == 0  # idempotent

    estimate = client.get(f"/api/batches/{bid}/estimate/", {"reward": "0.50", "assignments_per_unit": 3}).json()
    assert (estimate["units"], estimate["total"], estimate["balance"]) == (1, "1.50", None)
    assert client.get(f"/api/batches/{bid}/estimate/", {"reward": "lots"}).status_code == 400

    refused = client.post(f"/api/batches/{bid}/publish/", {"reward": "0.50"}, format="json")
    assert refused.status_code == 400 and "confirm" in refused.json()
    assert Batch.objects.get(pk=bid).status == "draft"
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"/api/batches/{bid}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert started.status_code == 202 and started.json()["kind"] == "publish"
    job = Job.objects.get(pk=started.json()["id"])
    assert (job.status, job.done, job.total, job.result["published"]) == ("done", 1, 1, 1)
    batch = Batch.objects.get(pk=bid)
    assert batch.status == "published" and not Unit.objects.filter(batch=batch, provider_ref="").exists()
    assert client.patch(f"/api/batches/{bid}/", {"name": "renamed"}, format="json").status_code == 400
    assert client.delete(f"/api/batches/{bid}/").status_code == 400

    with django_capture_on_commit_callbacks(execute=True):
        synced = client.post(f"/api/batches/{bid}/sync/")
    assert synced.status_code == 202
    assert Job.objects.get(pk=synced.json()["id"]).status == "done"

    closed = client.post(f"/api/batches/{bid}/close/")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert client.post(f"/api/batches/{bid}/publish/", {"reward": "0.50", "confirm": True},
                       format="json").status_code == 400


def test_batch_operations_are_for_the_projects_researchers(world, as_user):
    for name, code in (("bob", 404), ("ann", 403)):
        client = as_user(name)
        assert client.post(f"/api/batches/{world.batch_a.pk}/compose/", {}, format="json").status_code == code
        assert client.post(f"/api/batches/{world.batch_a.pk}/publish/", {"reward": "1", "confirm": True},
                           format="json").status_code == code
        assert client.get(f"/api/batches/{world.batch_a.pk}/estimate/", {"reward": "1"}).status_code == code


def test_draft_batch_can_be_edited_and_deleted(world, as_user):
    client = as_user("alice")
    assert client.patch(f"/api/batches/{world.batch_a.pk}/", {"name": "renamed"}, format="json").status_code == 200
    assert client.patch(f"/api/batches/{world.batch_a.pk}/", {"project": world.b.pk}, format="json").status_code == 400
    assert client.delete(f"/api/batches/{world.batch_a.pk}/").status_code == 204


def _blocker_codes(client, bid: int) -> tuple[bool, list[str]]:
    answer = client.get(f"/api/batches/{bid}/").json()
    return answer["publishable"], [b["code"] for b in answer["publish_blockers"]]


def test_the_batch_says_whether_it_can_be_published_and_publish_agrees(world, as_user,
                                                                        django_capture_on_commit_callbacks):
    client = as_user("alice")
    bid = client.post("/api/batches/", {"project": world.a.pk, "name": "empty", "provider": "local"},
                      format="json").json()["id"]
    assert _blocker_codes(client, bid) == (False, ["no_units"])
    refused = client.post(f"/api/batches/{bid}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    listed = next(b for b in client.get("/api/batches/", {"project": world.a.pk}).json()["results"] if b["id"] == bid)
    assert refused.status_code == 400 and refused.json() == {"units": listed["publish_blockers"][0]["message"]}

    Batch.objects.filter(pk=world.batch_a.pk).update(status=Batch.Status.IMPORTED)
    assert _blocker_codes(client, world.batch_a.pk) == (False, ["status"])
    Batch.objects.filter(pk=bid).update(status=Batch.Status.CLOSED)
    assert _blocker_codes(client, bid) == (False, ["status", "no_units"])
    both = client.post(f"/api/batches/{bid}/publish/", {"reward": "0.50", "confirm": True}, format="json").json()
    assert set(both) == {"status", "units"} and "closed" in both["status"]

    Batch.objects.filter(pk=world.batch_a.pk).update(status=Batch.Status.DRAFT)
    assert _blocker_codes(client, world.batch_a.pk) == (True, [])
    estimate = client.get(f"/api/batches/{world.batch_a.pk}/estimate/", {"reward": "0.50"}).json()
    assert (estimate["publishable"], estimate["publish_blockers"]) == (True, [])
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"/api/batches/{world.batch_a.pk}/publish/", {"reward": "0.50", "confirm": True},
                              format="json")
    assert started.status_code == 202
    assert _blocker_codes(client, world.batch_a.pk) == (True, [])  # published: publishing again resumes


def test_a_new_publish_rule_is_one_check_and_every_caller_obeys_it(world, as_user, monkeypatch):
    from annotation_tasks.services import batches as batch_rules

    def not_today(batch: Batch) -> batch_rules.Blocker | None:
        return batch_rules.Blocker("not_today", f"{batch.name}: no publishing today.")

    monkeypatch.setattr(batch_rules, "PUBLISH_CHECKS", [*batch_rules.PUBLISH_CHECKS, not_today])
    client = as_user("alice")
    assert _blocker_codes(client, world.batch_a.pk) == (False, ["not_today"])
    refused = client.post(f"/api/batches/{world.batch_a.pk}/publish/", {"reward": "0.50", "confirm": True},
                          format="json")
    assert refused.status_code == 400 and refused.json() == {"status": "batch-a: no publishing today."}
    assert not Job.objects.filter(kind=Job.Kind.PUBLISH).exists()
    estimate = client.get(f"/api/batches/{world.batch_a.pk}/estimate/", {"reward": "0.50"}).json()
    assert estimate["publishable"] is False and estimate["publish_blockers"][0]["code"] == "not_today"
