"""The per-address cap on entries a platform cannot vouch for counts the connection, not a client's own
X-Forwarded-For (issue 23 item 7: 8 made-up MTurk entries with 8 made-up headers all passed the cap of 5)."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.core.cache import cache

from annotation_tasks.models import Assignment
from tests.crowd.test_entry_slots import _mturk_link, _published

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


def _get(client, url: str, **headers):
    parsed = urlparse(url)
    return client.get(f"{parsed.path}?{parsed.query}", **headers)


def test_made_up_forwarded_for_headers_do_not_reset_the_entry_cap(client, fake_mturk, settings):
    settings.UNVERIFIED_ENTRIES_PER_CLIENT = 5
    unit = _published("MTurk spoofed", "mturk", wanted=2)
    fake_mturk.accept(unit.provider_ref, "AREAL1")
    codes = [_get(client, _mturk_link(unit, fake_mturk, f"MADEUP{i:02d}", f"ASPOOF{i}"),
                  HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code for i in range(8)]
    assert codes == [200] * 5 + [429] * 3
    assert Assignment.objects.filter(worker__external_id__startswith="ASPOOF").count() == 5


def test_behind_a_trusted_proxy_each_client_has_its_own_cap(client, fake_mturk, settings):
    settings.UNVERIFIED_ENTRIES_PER_CLIENT = 2
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    unit = _published("MTurk proxied", "mturk", wanted=2)
    fake_mturk.accept(unit.provider_ref, "AREAL1")
    proxy = {"REMOTE_ADDR": "127.0.0.1"}
    # one client behind the proxy, putting a fresh made-up address in front of what the proxy appends
    codes = [_get(client, _mturk_link(unit, fake_mturk, f"MADEUP{i:02d}", f"ABEHIND{i}"), **proxy,
                  HTTP_X_FORWARDED_FOR=f"198.51.100.{i}, 192.0.2.7").status_code for i in range(3)]
    assert codes == [200, 200, 429]
    other = _get(client, _mturk_link(unit, fake_mturk, "MADEUP99", "AOTHER"), **proxy, HTTP_X_FORWARDED_FOR="192.0.2.8")
    assert other.status_code == 200
