"""Publishing waits between platform calls only where there is a platform: the local provider calls none
(issue 10: 2,626 local units took 525 s at the platforms' 5 per second)."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Unit
from annotation_tasks.services import publishing
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def test_local_publish_is_not_rate_limited(monkeypatch, settings):
    settings.CROWD_PUBLISH_RATE = 5.0
    units = make_unit("Local rate", n_sources=30, n_qas=1)
    Unit.objects.filter(pk__in=[u.pk for u in units]).update(provider_ref="")
    slept: list[float] = []
    monkeypatch.setattr(publishing.time, "sleep", slept.append)  # the limiter's wait, recorded instead of slept
    result = publishing.publish_batch(units[0].batch, reward="0", assignments_per_unit=3, provider_name="local",
                                      check_balance=False)
    assert len(result.published) == 30
    assert slept == []


def test_a_platform_publish_is_held_to_the_platform_rate(monkeypatch):
    """The other side, through the same limiter: 5 calls per second are spaced 0.2 s apart."""
    clock = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    limiter = publishing.RateLimiter(5.0, clock=lambda: clock[0], sleep=sleep)
    for _ in range(4):
        limiter.wait()
    assert slept == pytest.approx([0.2, 0.2, 0.2])
