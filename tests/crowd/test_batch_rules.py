"""The batch rules hold for every caller: the API (list, estimate, publish), the publish service and the command."""
from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation_tasks.crowd.base import InsufficientFunds
from annotation_tasks.models import Batch, ProjectMembership
from annotation_tasks.services import publishing
from annotation_tasks.services.batches import BatchRuleError, publish_blockers
from tests.api.conftest import client_for
from tests.crowd.conftest import make_units

pytestmark = pytest.mark.django_db


def _researcher(project):
    user = get_user_model().objects.create_user("res", password="pw")
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    return client_for(user)


def test_the_balance_blocks_in_the_estimate_the_publish_endpoint_and_the_service_alike(fake_mturk):
    fake_mturk.balance = Decimal("1.00")
    batch, _ = make_units(2, provider="mturk")
    client = _researcher(batch.project)
    assert client.get(f"/api/batches/{batch.pk}/").json()["publishable"] is True  # the list asks no platform

    estimate = client.get(f"/api/batches/{batch.pk}/estimate/", {"reward": "1.00", "assignments_per_unit": 3}).json()
    assert estimate["publishable"] is False
    (blocker,) = estimate["publish_blockers"]
    assert blocker["code"] == "insufficient_funds" and f"balance 1.00 USD does not cover {estimate['total']}" in (
        blocker["message"])
    refused = client.post(f"/api/batches/{batch.pk}/publish/",
                          {"reward": "1.00", "assignments_per_unit": 3, "confirm": True}, format="json")
    assert refused.status_code == 400 and refused.json() == {"provider": blocker["message"]}
    with pytest.raises(InsufficientFunds) as raised:
        publishing.publish_batch(batch, reward="1.00", assignments_per_unit=3)
    assert str(raised.value) == blocker["message"]
    assert not fake_mturk.hits

    cheap = client.get(f"/api/batches/{batch.pk}/estimate/", {"reward": "0.10", "assignments_per_unit": 1}).json()
    assert (cheap["publishable"], cheap["publish_blockers"]) == (True, [])


def test_the_service_and_the_command_refuse_what_the_rules_block():
    batch, _ = make_units(1, batch_name="shut")
    Batch.objects.filter(pk=batch.pk).update(status=Batch.Status.CLOSED)
    batch.refresh_from_db()
    (blocker,) = publish_blockers(batch)
    with pytest.raises(BatchRuleError) as raised:
        publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1)
    assert raised.value.blockers == [blocker] and raised.value.by_field() == {"status": blocker.message}
    with pytest.raises(CommandError, match=blocker.message):
        call_command("publish", "--project", batch.project.name, "--batch", batch.name, "--reward", "0.2", "--yes",
                     stdout=io.StringIO())
    batch.refresh_from_db()
    assert batch.status == Batch.Status.CLOSED and not batch.units.exclude(provider_ref="").exists()
