"""Issue 23 item 8: with Redis (the cache) down, the login page and the token endpoint answered 500. The redis://
cache now falls back to a local in-process cache with a logged warning: pages answer, throttling still counts,
and Redis is used again once it is back. A real redis-server is started and killed here."""
from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from annotation_tasks import resilient_cache

pytestmark = [pytest.mark.django_db, pytest.mark.skipif(shutil.which("redis-server") is None,
                                                        reason="redis-server is not installed")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis(tmp_path: Path):
    port = _free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    caches = {"default": {"BACKEND": "annotation_tasks.resilient_cache.FallbackRedisCache",
                          "LOCATION": f"redis://127.0.0.1:{port}/1"}}
    with override_settings(CACHES=caches):
        yield proc, port
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _kill(proc: subprocess.Popen) -> None:
    proc.kill()
    proc.wait()


def test_settings_use_the_fallback_for_a_redis_url(settings):
    import environ

    backend = environ.Env.cache_url_config("redis://127.0.0.1:6379/1")["BACKEND"]
    assert backend == "django.core.cache.backends.redis.RedisCache"  # what settings.py swaps for the fallback


def test_login_page_and_token_endpoint_answer_with_redis_killed(redis, django_user_model, caplog, monkeypatch):
    monkeypatch.setattr(resilient_cache, "RETRY_SECONDS", 0.0)
    django_user_model.objects.create_user("alice", password="pw-alice-1")
    cache.set("probe", 1)
    assert cache.get("probe") == 1  # Redis answers
    _kill(redis[0])
    client, api = Client(), APIClient()
    assert client.get("/accounts/login/").status_code == 200
    assert api.post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"}).status_code == 200
    codes = [client.post("/accounts/login/", {"username": "alice", "password": f"x{i}"}).status_code for i in range(10)]
    assert codes == [200] * 9 + [429]  # still throttled (the token request counted too), in the local cache
    assert "cache unreachable" in caplog.text


def test_redis_is_used_again_once_it_is_back(redis, tmp_path, monkeypatch):
    monkeypatch.setattr(resilient_cache, "RETRY_SECONDS", 0.0)
    proc, port = redis
    _kill(proc)
    cache.set("while-down", "local")
    assert cache.get("while-down") == "local"
    again = subprocess.Popen(["redis-server", "--port", str(port), "--save", "", "--dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        assert cache.get("while-down") is None  # Redis again (a fresh one): the local value is not it
        cache.set("back", "redis")
        import redis as redis_client

        assert redis_client.Redis(port=port, db=1).exists(cache.make_and_validate_key("back"))
    finally:
        again.kill()
        again.wait()
