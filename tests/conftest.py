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


@pytest.fixture(autouse=True, scope="session")
def _cheap_password_hashing():
    """Accounts made in tests hash with one PBKDF2 iteration (tests/hashers.py); the default hashers still verify."""
    from django.conf import settings
    from django.test.utils import override_settings

    hashers = ["tests.hashers.OneIterationPBKDF2PasswordHasher", *settings.PASSWORD_HASHERS]
    with override_settings(PASSWORD_HASHERS=hashers):  # sends setting_changed: the hasher cache is cleared
        yield


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    """Unit tests run Celery jobs eagerly; e2e tests start a real worker themselves."""
    from backend.celery_app import app

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    settings.CELERY_TASK_ALWAYS_EAGER = True
    yield


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The cache (throttles, cached platform answers, per-client entry counts) starts empty in every test: ids
    are reused across tests, so a count left by one test would refuse another's requests."""
    from django.core.cache import cache

    cache.clear()
    yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite tests use a file in a per-session temp dir, not shared-cache memory.

    Threads (live server, concurrency tests) then get their own connections and SQLite's real locking;
    an in-memory test database would be shared by all live-server threads through one connection.
    """
    from django.conf import settings

    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        db.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("sqlite") / "test.sqlite3")
