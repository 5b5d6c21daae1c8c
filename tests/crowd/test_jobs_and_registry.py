"""Celery jobs call the services (eager in tests); the registry finds the provider that reads a query."""
from __future__ import annotations

import pytest

from annotation_tasks.celery_tasks import approve_batch, pay_bonus, sync_open_batches
from annotation_tasks.crowd import get_provider
from annotation_tasks.crowd.entry import local_worker_param
from annotation_tasks.crowd.registry import parse_entry_any
from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services import publishing
from tests.crowd.conftest import make_units
from tests.crowd.fakes.fake_mturk import FakeError

pytestmark = pytest.mark.django_db


def test_jobs_sync_approve_and_pay_once(fake_mturk):
    batch, units = make_units(1, provider="mturk")
    batch.settings = {"quality": {"auto_approve_days": 0}}
    batch.save()
    publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1)
    units[0].refresh_from_db()
    aid = fake_mturk.submit(units[0].provider_ref, "AWJ")
    assert sync_open_batches.delay().get()[str(batch.pk)]["created"] == 1
    assert approve_batch.delay(batch.pk).get() == {"approved": 1, "waiting": 0, "unverified": 0}
    a = Assignment.objects.get()
    first = pay_bonus.delay(a.pk, "0.15", "thanks").get()
    assert pay_bonus.delay(a.pk, "0.15", "thanks").get() == first
    assert fake_mturk.assignments[aid]["AssignmentStatus"] == "Approved" and len(fake_mturk.bonuses) == 1


def test_one_failing_platform_does_not_stop_the_others(fake_mturk, monkeypatch):
    good, _ = make_units(1, provider="local", batch_name="good")
    bad, _ = make_units(1, provider="mturk", batch_name="bad")
    publishing.publish_batch(good, reward="0", assignments_per_unit=1)
    publishing.publish_batch(bad, reward="0.1", assignments_per_unit=1)

    def refuse(body):
        raise FakeError("ServiceFault", "internal failure")

    monkeypatch.setattr(fake_mturk, "op_ListAssignmentsForHIT", refuse)
    out = sync_open_batches.delay().get()
    assert "error" in out[str(bad.pk)] and out[str(good.pk)]["seen"] == 0


def test_parse_entry_any_tries_the_hinted_provider_first():
    assert parse_entry_any({"assignmentId": "A", "hitId": "H", "workerId": "W"})[0] == "mturk"
    name, ctx = parse_entry_any({"provider": "local", "worker": local_worker_param("bob")})
    assert (name, ctx.worker_external_id) == ("local", "bob")
    assert parse_entry_any({"nothing": "here"}) is None
    worker = Worker.objects.create(provider="local", external_id="x")
    get_provider("local").block(worker, "no-op locally")  # the local platform has nothing to tell


def test_beat_job_evaluates_workers_when_the_batch_asks(fake_mturk):
    from annotation_tasks.models import QualityDecision

    batch, units = make_units(1, provider="mturk")
    batch.settings = {"evaluate_workers": True, "quality": {"min_gold_items": 99}}
    batch.save()
    publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1)
    out = sync_open_batches.delay().get()[str(batch.pk)]
    assert out["decisions"] == [] and not QualityDecision.objects.exists()


def test_mturk_entry_without_a_worker_is_not_an_entry():
    provider = get_provider("mturk")
    assert provider.parse_entry({"assignmentId": "A", "hitId": "H"}) is None
    assert provider.parse_entry({"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H"}).preview
