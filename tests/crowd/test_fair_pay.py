"""Fair pay: the expected hourly rate from the pilot's median time on task (or the researcher's estimate), shown in
the cost estimate per provider; Prolific publishing refused below its minimum (GBP 6 / USD 8 an hour, judged on the
median time) with the figures named; bonuses paid one at a time (Prolific does not support concurrent requests)."""
from __future__ import annotations

import threading
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from annotation_tasks.crowd import get_provider
from annotation_tasks.crowd.base import FairPayError
from annotation_tasks.models import Assignment, ProjectMembership, Worker
from annotation_tasks.services import publishing, sessions
from tests.crowd.conftest import make_units

pytestmark = pytest.mark.django_db


def _piloted(units, seconds: list[int]) -> None:
    """Pilot answers on the batch's units, with these times on task."""
    for i, secs in enumerate(seconds):
        worker = Worker.objects.create(provider="local", external_id=f"pilot-{units[0].batch_id}-{i}")
        Assignment.objects.create(unit=units[i % len(units)], worker=worker, status="submitted",
                                  time_on_task_ms=secs * 1000)


def test_prolific_refuses_a_batch_below_its_hourly_minimum_naming_the_figures(fake_prolific):
    batch, units = make_units(3, provider="prolific")
    with pytest.raises(FairPayError) as refused:  # the researcher's default estimate: 3 minutes a unit
        publishing.publish_batch(batch, reward="0.10", assignments_per_unit=2)
    message = str(refused.value)
    assert "at least 6.00 GBP per hour" in message and "pays 2.00 GBP per hour" in message
    assert "0.30 GBP per unit" in message  # the reward that would reach the minimum
    assert not fake_prolific.studies

    # the pilot's median time decides once there is one: 60, 120 and 600 s give a median of 120 s
    _piloted(units, [60, 120, 600])
    rate = sessions.hourly_rate(batch, get_provider("prolific"), Decimal("0.15"))
    assert (rate.seconds_per_unit, rate.per_hour, rate.below_minimum) == (120.0, Decimal("4.50"), True)
    assert rate.source.startswith("pilot median")
    with pytest.raises(FairPayError, match="pays 4.50 GBP per hour"):
        publishing.publish_batch(batch, reward="0.15", assignments_per_unit=2)
    publishing.publish_batch(batch, reward="0.20", assignments_per_unit=2)  # 6.00 GBP an hour: allowed
    assert len(fake_prolific.studies) == 1


def test_the_researchers_estimate_counts_before_a_pilot_and_usd_has_its_own_minimum(fake_prolific, settings):
    settings.PROLIFIC_CURRENCY = "USD"
    batch, _units = make_units(2, provider="prolific")
    with pytest.raises(FairPayError, match="at least 8.00 USD per hour"):
        publishing.publish_batch(batch, reward="0.12", assignments_per_unit=1, estimated_minutes_per_unit=1)
    publishing.publish_batch(batch, reward="0.14", assignments_per_unit=1, estimated_minutes_per_unit=1)  # 8.40


def test_the_cost_estimate_shows_the_hourly_rate_per_provider(fake_prolific, fake_mturk):
    researcher = get_user_model().objects.create_user("payer", password="pw")
    api = APIClient()
    api.force_authenticate(researcher)
    answers = {}
    for provider in ("prolific", "mturk", "local"):
        batch, units = make_units(2, provider=provider, batch_name=f"b-{provider}")
        ProjectMembership.objects.create(project=batch.project, user=researcher, role="researcher")
        _piloted(units, [90, 90])
        resp = api.get(f"/api/batches/{batch.pk}/estimate/", {"reward": "0.10", "assignments_per_unit": 1})
        assert resp.status_code == 200, resp.content
        answers[provider] = resp.json()
    prolific = answers["prolific"]["hourly_rate"]
    assert (prolific["per_hour"], prolific["currency"], prolific["minimum"], prolific["below_minimum"]) == (
        "4.00", "GBP", "6.00", True)
    assert "below_minimum_pay" in [b["code"] for b in answers["prolific"]["publish_blockers"]]
    assert not answers["prolific"]["publishable"]
    mturk = answers["mturk"]["hourly_rate"]  # no platform minimum: shown, never refused
    assert (mturk["per_hour"], mturk["currency"], mturk["minimum"], mturk["below_minimum"]) == (
        "4.00", "USD", None, False)
    assert answers["local"]["hourly_rate"]["seconds_per_unit"] == 90.0


def test_bonuses_are_paid_one_at_a_time(fake_prolific):
    """Prolific: "concurrent requests are not supported". Eight bonuses sent from eight threads at once reach the
    fake one after another (it answers 429 to an overlapping bonus call and counts it)."""
    batch, units = make_units(1, provider="prolific")
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=8, units_per_place=1)
    units[0].refresh_from_db()
    provider = get_provider("prolific")
    assignments = []
    for i in range(8):
        worker = Worker.objects.create(provider="prolific", external_id=f"B{i}")
        started = fake_prolific.start_submission(units[0].provider_ref, f"B{i}")
        assignments.append(Assignment.objects.select_related("unit", "worker").get(pk=Assignment.objects.create(
            unit=units[0], worker=worker, provider_assignment_id=started["id"], status="submitted").pk))
    fake_prolific.bonus_delay_s = 0.2  # a real overlap outlasts the fake's 10 ms second look
    errors: list[Exception] = []

    def pay(a) -> None:
        try:
            provider.bonus(a, Decimal("0.25"), "thanks", f"token-{a.pk}")
        except Exception as exc:  # collected: the assertion below names it
            errors.append(exc)

    threads = [threading.Thread(target=pay, args=(a,)) for a in assignments]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and fake_prolific.bonus_overlaps == 0
    assert sorted(p["participant_id"] for p in fake_prolific.paid) == [f"B{i}" for i in range(8)]
