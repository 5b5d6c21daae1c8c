"""MTurk after its closure (no new requesters from 2026-07-30, closed 2026-09-30): `publish --provider mturk`
refuses and says why unless MTURK_ENDPOINT_URL names an MTurk-compatible endpoint; HITs published before still
sync, and results CSVs still import."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.crowd import ProviderError, get_provider
from annotation_tasks.crowd.mturk import CLOSED
from annotation_tasks.models import Assignment, Batch
from annotation_tasks.services import publishing
from tests.crowd.conftest import make_units
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("endpoint", ["", "https://mturk-requester.us-east-1.amazonaws.com",
                                      "https://mturk-requester-sandbox.us-east-1.amazonaws.com"])
def test_publish_to_mturk_is_refused_with_the_reason_unless_a_compatible_endpoint_is_named(settings, endpoint):
    settings.MTURK_ENDPOINT_URL = endpoint
    make_unit("Closed MTurk", n_qas=1, n_responses=1, wanted=1)
    Batch.objects.all().delete()  # the source is free again: publish would compose a new batch
    with pytest.raises(CommandError) as refused:
        call_command("publish", "--project", "Closed MTurk", "--provider", "mturk", "--assignments", "1",
                     "--reward", "0.50", "--yes", stdout=io.StringIO())
    assert "closes permanently on 2026-09-30" in str(refused.value) and "MTURK_ENDPOINT_URL" in str(refused.value)
    assert not Batch.objects.exists()  # nothing composed, nothing left behind
    batch, _units = make_units(1, provider="mturk")
    with pytest.raises(ProviderError, match="2026-07-30"):  # the API's publish (check_publish) says the same
        publishing.check_publish(batch, reward="0.50", assignments_per_unit=1)
    assert get_provider("mturk", sandbox=True).publish_refusal() == CLOSED


def test_a_named_compatible_endpoint_publishes_and_old_hits_still_sync(fake_mturk, settings):
    assert get_provider("mturk").publish_refusal() is None  # MTURK_ENDPOINT_URL names the fake
    batch, units = make_units(1, provider="mturk")
    publishing.publish_batch(batch, reward="0.50", assignments_per_unit=1)
    units[0].refresh_from_db()
    fake_mturk.accept(units[0].provider_ref, "AOLD")
    aid = next(iter(fake_mturk.assignments))
    fake_mturk.external_submit({"assignmentId": aid, "labels": "{}"})

    settings.MTURK_ENDPOINT_URL = ""  # the endpoint is gone from the settings: new HITs are refused ...
    provider = get_provider("mturk", endpoint_url=fake_mturk.url)  # ... HITs published before still sync
    publishing.sync_batch(batch, provider)
    assert Assignment.objects.get().worker.external_id == "AOLD"
    assert get_provider("mturk").publish_refusal() == CLOSED
