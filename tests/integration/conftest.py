"""Fixtures that run real Celery workers against the test database."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.integration import procs


@dataclass
class RealCelery:
    """This test process publishes to a private filesystem broker; workers started here consume from it."""

    var_dir: Path
    env: dict[str, str]
    started: list[procs.Proc] = field(default_factory=list)

    def start_worker(self, name: str = "worker", pool: str = "solo", concurrency: int = 1) -> procs.Proc:
        worker = procs.start_worker(self.env, self.var_dir, name=f"{name}{len(self.started)}", pool=pool,
                                    concurrency=concurrency)
        self.started.append(worker)
        procs.wait_until(lambda: " ready." in worker.log(), 60, f"{worker.name} ready", [worker])
        return worker

    def start_beat(self) -> procs.Proc:
        beat = procs.start_beat(self.env, self.var_dir, self.var_dir)
        self.started.append(beat)
        procs.wait_until(lambda: "beat: Starting..." in beat.log(), 60, "beat started", [beat])
        return beat

    def queued_messages(self) -> list[str]:
        return sorted(p.name for p in (self.var_dir / "celery-broker" / "queue").iterdir())

    def logs(self) -> str:
        return procs.logs(self.started)


def _reset_broker_pools(app) -> None:
    # The app caches its broker connection pool and producer pool on first use; both are keyed by the
    # connection's URL and transport options, so dropping the cached ones makes the next publish build
    # pools for the current app.conf (earlier pools stay in kombu's registry for their own options).
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def real_celery(transactional_db, settings, tmp_path):
    """Jobs queued by services go through a real filesystem broker in tmp_path to real worker subprocesses.

    Runs after the autouse eager fixture and turns eager off for this test. Workers use the test database
    (committed data only: hence transactional_db) and the same broker folders; all of them are stopped at
    the end, also when the test fails.
    """
    from django.db import connection

    from backend.celery_app import app

    var_dir = tmp_path / "var"
    var_dir.mkdir()
    options = procs.broker_options(var_dir)
    saved = {k: app.conf[k] for k in ("broker_url", "broker_transport_options", "task_always_eager")}
    app.conf.update(broker_url="filesystem://", broker_transport_options=options, task_always_eager=False)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.VAR_DIR = var_dir  # uploads land in the temp folder too
    _reset_broker_pools(app)
    real = RealCelery(var_dir=var_dir, env=procs.app_env(var_dir, procs.database_url(connection.settings_dict)))
    try:
        yield real
    finally:
        for worker in real.started:
            worker.stop(timeout=1)  # a warm shutdown takes seconds on this broker; the test is over anyway
        app.conf.update(saved)
        _reset_broker_pools(app)
