"""Issue 23 item 8: with Redis (the cache) down, a Prolific participant's entry answered 500 (the platform's
answers and the per-address caps live in the cache). The entry now answers from the local fallback cache: a real
participant gets the unit, a made-up one is still refused. A real redis-server is started and killed here."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from django.core.cache import cache
from django.test import override_settings

from annotation_tasks import resilient_cache
from annotation_tasks.models import Assignment
from tests.crowd.test_entry_slots import _get, _prolific_link, _published

pytestmark = [pytest.mark.django_db, pytest.mark.skipif(shutil.which("redis-server") is None,
                                                        reason="redis-server is not installed")]


@pytest.fixture
def dead_redis(tmp_path, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    monkeypatch.setattr(resilient_cache, "RETRY_SECONDS", 0.0)
    caches = {"default": {"BACKEND": "annotation_tasks.resilient_cache.FallbackRedisCache",
                          "LOCATION": f"redis://127.0.0.1:{port}/1"}}
    with override_settings(CACHES=caches):
        cache.set("probe", 1)
        assert cache.get("probe") == 1
        proc.kill()
        proc.wait()
        yield


def test_a_prolific_entry_answers_with_redis_killed(client, fake_prolific, dead_redis, caplog):
    unit = _published("Prolific no Redis", "prolific", wanted=2)
    real = fake_prolific.start_submission(unit.provider_ref, "PREAL1")
    made_up = _get(client, _prolific_link(unit, "PFAKE", "made-up"))
    assert made_up.status_code == 403
    entered = _get(client, real["url"])
    assert entered.status_code == 200 and b"factcrowd-annotator" in entered.content
    assert Assignment.objects.filter(worker__external_id="PREAL1").count() == 1
    assert "cache unreachable" in caplog.text
