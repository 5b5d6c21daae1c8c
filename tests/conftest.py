"""Shared fixtures: the shared data folder, and settings that keep tests on loopback only."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from io import StringIO
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")

SHARED_DATA = Path(os.environ.get("FACTCROWD_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_file(*parts: str) -> Path:
    """Path of a published data file; skip (or fail in CI) when the shared folder is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"shared data missing in CI: {path}")
        pytest.skip(f"shared data not present: {path}")
    return path


def _rows_per_model() -> dict[str, int]:
    from django.apps import apps

    return {model._meta.label: model.objects.count() for model in apps.get_models()}


@contextmanager
def committed_import(django_db_blocker, project: str, load: Callable[[], T]) -> Iterator[T]:
    """`load()` (an import into `project`) committed once, for a module- or class-scoped fixture whose tests only
    read it: each test runs in a transaction rolled back after it, so none sees another's writes. Removed at the
    end; the database must then hold exactly what it held before."""
    from annotation_tasks.models import Project, Worker

    with django_db_blocker.unblock():
        before = _rows_per_model()
        workers_before = list(Worker.objects.values_list("pk", flat=True))
        loaded = load()
    try:
        yield loaded
    finally:
        with django_db_blocker.unblock():
            Project.objects.filter(name=project).delete()
            Worker.objects.exclude(pk__in=workers_before).delete()  # an import's workers: not per project
            left = {k: v for k, v in _rows_per_model().items() if v != before[k]}
            assert not left, f"rows of the shared import left behind: {left}"


@contextmanager
def dev_release_committed(django_db_blocker, project: str) -> Iterator[str]:
    """The shared QASem dev release imported (committed) once into `project` (see committed_import)."""
    from django.core.management import call_command

    def load() -> str:
        call_command("import_qasem_release", str(shared_file("qasem_consistency", "dev.jsonl")), "--project", project,
                     stdout=StringIO())
        return project

    with committed_import(django_db_blocker, project, load) as name:
        yield name


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
    from django.core.cache import cache, caches

    cache.clear()
    caches["derived"].clear()  # a large project's builds (services/derived.py), files in VAR_DIR by default
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


# Suites that start the app's own processes (server, worker, browser) reach the database through them, so they run
# on every database even where no test fixture asks for one.
_PROCESS_SUITES = ("integration", "topology", "e2e", "fuzz", "security")
_DB_FIXTURES = {"db", "transactional_db", "live_server"}


@pytest.hookimpl(tryfirst=True)  # before pytest's own `-m` selection reads the markers
def pytest_collection_modifyitems(config, items) -> None:
    """Mark every test that cannot touch the database `db_free`: the PostgreSQL pass of scripts/test.sh skips them
    (with `once`, the model-training and native-build tests), since the database cannot change their outcome."""
    for item in items:
        parts = Path(str(item.fspath)).relative_to(REPO / "tests").parts
        uses_db = (
            item.get_closest_marker("django_db") is not None
            or bool(_DB_FIXTURES & set(getattr(item, "fixturenames", ())))
            or (len(parts) > 1 and parts[0] in _PROCESS_SUITES)
        )
        if not uses_db:
            item.add_marker(pytest.mark.db_free)
