"""Shared fixtures: the shared data folder, and settings that keep tests on loopback only."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("FACTCROWD_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_file(*parts: str) -> Path:
    """Path of a published data file; skip (or fail in CI) when the shared folder is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"shared data missing in CI: {path}")
        pytest.skip(f"shared data not present: {path}")
    return path


@pytest.fixture
def shared_data() -> Path:
    return SHARED_DATA


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    """Unit tests run Celery jobs eagerly; e2e tests start a real worker themselves."""
    from backend.celery_app import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    yield
