"""The production topology on one host: PostgreSQL, Redis, gunicorn and two Celery workers (acks_late,
prefetch 1), each a real process, as docker/compose.yml runs them.

Runs only where a Redis server and PostgreSQL are at hand: TEST_REDIS_URL set (CI's .ci/run sets it and installs
Debian's redis-server) and the suite's database PostgreSQL (scripts/test.sh's PostgreSQL pass). Each test starts
its own redis-server on a free port (with an append-only file, as a production Redis keeps its queue), so it can
stop and restart it without disturbing anyone else.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests
from django.conf import settings as django_settings

from tests.integration import procs

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    engine = django_settings.DATABASES["default"]["ENGINE"]
    why = None
    if not os.environ.get("TEST_REDIS_URL"):
        why = "the production topology needs Redis: set TEST_REDIS_URL (.ci/run does)"
    elif "postgresql" not in engine:
        why = "the production topology runs on PostgreSQL (DATABASE_URL)"
    elif not Path(REDIS_SERVER).exists():
        why = "redis-server is not installed"
    if why:
        for item in items:
            if here in Path(item.fspath).parents:
                item.add_marker(pytest.mark.skip(reason=why))


class Redis:
    """A private redis-server that a test may stop and start again (same port, same append-only file)."""

    def __init__(self, work: Path) -> None:
        self.port, self.dir = procs.free_port(), work / "redis"
        self.dir.mkdir()
        self.proc: procs.Proc | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.proc = procs.Proc(
            f"redis{self.starts}",
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir),
             "--appendonly", "yes", "--save", "", "--protected-mode", "no"],
            os.environ.copy(), self.dir,
        )
        procs.wait_until(lambda: "Ready to accept connections" in self.proc.log(), 20, "redis ready", [self.proc])

    def stop(self) -> None:
        if self.proc is not None and self.proc.alive():
            self.proc.stop(timeout=10)


@dataclass
class Topology:
    work: Path
    redis: Redis
    env: dict[str, str]
    started: list[procs.Proc] = field(default_factory=list)
    base_url: str = ""

    def start_workers(self, *names: str) -> list[procs.Proc]:
        """Workers as compose runs them: prefork, acks_late and prefetch 1 from the settings for Redis brokers
        (started together, then waited for)."""
        workers = [procs.Proc(name, [procs.CELERY, "-A", "backend", "worker", "--pool=prefork", "--concurrency=1",
                                     "--loglevel=INFO", "--without-gossip", "--without-mingle",
                                     f"--hostname={name}@%h"], self.env, self.work) for name in names]
        self.started.extend(workers)
        for worker in workers:
            procs.wait_until(lambda w=worker: " ready." in w.log(), 60, f"{worker.name} ready", workers)
        return workers

    def start_beat(self) -> procs.Proc:
        beat = procs.start_beat(self.env, self.work, self.work)
        self.started.append(beat)
        procs.wait_until(lambda: "beat: Starting..." in beat.log(), 60, "beat started", [beat])
        return beat

    def start_web(self, workers: int = 2, threads: int = 4) -> str:
        port = procs.free_port()
        web = procs.Proc("gunicorn", [str(procs.BIN / "gunicorn"), "backend.wsgi", "--bind", f"127.0.0.1:{port}",
                                      "--workers", str(workers), "--threads", str(threads), "--timeout", "60",
                                      "--no-control-socket"],
                         self.env, self.work)
        self.started.append(web)
        self.base_url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return requests.get(f"{self.base_url}/api/", timeout=2).status_code < 500
            except requests.RequestException:
                return False

        procs.wait_until(up, 60, "gunicorn answering", [web], interval=0.3)
        return self.base_url

    def logs(self) -> str:
        return procs.logs(self.started + ([self.redis.proc] if self.redis.proc else []))


def _reset_broker_pools(app) -> None:
    app._pool = None
    app.amqp._producer_pool = None


def redis_options() -> dict:
    return {"visibility_timeout": 5.0, "unacked_restore_interval": 1.0, "unacked_restore_throttle": 1}


@pytest.fixture
def topology(transactional_db, settings, tmp_path):
    """Redis started; this test process publishes to it like a web process; workers and gunicorn on demand.

    Jobs beat twice a second, stall after 2 s, and Redis gives an unacknowledged message back after 5 s:
    the production mechanisms, with short clocks."""
    from django.db import connection

    from backend.celery_app import app

    redis = Redis(tmp_path)
    redis.start()
    saved = {k: app.conf[k] for k in ("broker_url", "broker_transport_options", "task_always_eager")}
    app.conf.update(broker_url=redis.url, broker_transport_options=redis_options(), task_always_eager=False)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.JOB_STALL_SECONDS = 2
    settings.SECRET_KEY = "topology-test-key-" + "x" * 40  # tokens made here are checked by gunicorn
    _reset_broker_pools(app)
    env = procs.app_env(tmp_path, procs.database_url(connection.settings_dict),
                        CELERY_BROKER_URL=redis.url, JOB_HEARTBEAT_SECONDS="0.5", JOB_STALL_SECONDS="2",
                        CELERY_VISIBILITY_TIMEOUT_SECONDS="5", CELERY_UNACKED_RESTORE_SECONDS="1",
                        DEBUG="false", SECRET_KEY=settings.SECRET_KEY, ALLOWED_HOSTS="127.0.0.1,localhost",
                        PUBLIC_BASE_URL="http://127.0.0.1")
    top = Topology(work=tmp_path, redis=redis, env=env)
    try:
        yield top
    finally:
        for proc in reversed(top.started):
            proc.stop(timeout=5)
        redis.stop()
        app.conf.update(saved)
        _reset_broker_pools(app)


def run_quiet(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=kw.pop("timeout", 60), **kw)


def wait_for(check, timeout: float, what: str, top: Topology, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waiting for {what}: timed out after {timeout:.0f}s\n{top.logs()}")
        time.sleep(interval)
