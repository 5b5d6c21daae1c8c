"""What is built from a large project's labels off the request: the adjudication queue's table, the label counts,
the report and the monitor's slow figures.

Built in the request, either read the project's million labels into frames: 30 s and +160 MB in the web worker for
the queue's first page at 10^6 labels on a loaded 2-core box (issue 25). For a large project (versions.is_large)
the request queues a build (a Celery task, one at a time per project and kind) and answers with the last build while the new
one runs (stale), or says it is being built when there is none yet. The request reads neither the labels nor
the data version (about a second of aggregates at that size): the task compares the version and rebuilds only
on a change; a build checked within CHECK_SECONDS is served as current. A small project builds in the request.

The builds, their checks and the one-build-at-a-time locks live in the `derived` cache (store()): the default
cache where that is shared (redis), else files in VAR_DIR (Django's FileBasedCache, settings.CACHES): the embedded
default's in-process cache is one per process, which the Celery worker cannot write into, and a large project's
summaries were then counted in the request (2-2.5 s cold at 10^6 labels; issue 25 item 2). A table in the database
(DatabaseCache) was tried: its base64 text took the Celery worker's peak from ~370 to 577 MB at 10^6 labels.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import BaseCache, cache, caches

from annotation_tasks.models import Project

log = logging.getLogger(__name__)

LOCK_SECONDS = 600  # one queued build per project and kind (a lost task frees it after this)
KEEP_SECONDS = 24 * 3600  # the last build is kept this long, served while a newer one is built


CHECK_SECONDS = 15  # a kept build checked against the data this recently is served without queueing a check


def derived_cache() -> BaseCache:
    """The cache the web and Celery workers share for builds (settings.CACHES["derived"])."""
    return caches["derived"] if "derived" in settings.CACHES else cache


def store(project: Project) -> BaseCache:
    """Where this project's builds are kept: the shared derived cache for one built off the request
    (in_background), else the default cache (a small project's, rebuilt in the request on a change)."""
    return derived_cache() if in_background(project) else cache


_COPIES: dict[int, dict[int, Any]] = {}  # every dict of per-process copies latest_copy has filled


def forget_copies() -> None:
    """Drop this process's copies of kept builds: a Celery worker reads them while it builds (the counts before the
    table), but serves no request that would read them again, and they were ~30 MB under its next build's peak."""
    for copies in _COPIES.values():
        copies.clear()


def latest_copy(project: Project, key: str, copies: dict[int, Any], make: Callable[[Any], Any],
                token_at: int) -> Any:
    """This process's copy of the build kept under `key` (made from it by `make`, None to refuse it), read and
    unpickled again only when the build's token (`key:token`, at `token_at` in the copy) changed: a large
    project's queue table or counts were ~1 s and tens of MB a request otherwise. At most two projects' copies."""
    _COPIES[id(copies)] = copies
    kept_in = store(project)
    token = kept_in.get(f"{key}:token")
    here = copies.get(project.pk)
    if token is not None and here is not None and here[token_at] == token:
        return here
    kept = kept_in.get(key)
    copies.pop(project.pk, None)
    made = make(kept) if kept is not None else None
    if made is not None:
        while len(copies) >= 2:
            copies.pop(next(iter(copies)))
        copies[project.pk] = made
    return made


def mark_checked(key: str, project: Project) -> None:
    """The build kept under `key` was just found current (or built)."""
    store(project).set(f"{key}:checked", time.time(), KEEP_SECONDS)


def checked_recently(key: str, project: Project) -> bool:
    at = store(project).get(f"{key}:checked")
    return at is not None and time.time() - at < CHECK_SECONDS


class Building(Exception):
    """No build of this project's figures is kept yet; one is queued."""


def shared_cache() -> bool:
    """Whether the derived cache is one the Celery workers share (redis or files, not a per-process memory
    cache)."""
    backend = settings.CACHES.get("derived", settings.CACHES["default"])["BACKEND"].lower()
    return "locmem" not in backend and "dummy" not in backend


def in_background(project: Project) -> bool:
    """Build this project's figures off the request: it is large and the workers share the derived cache."""
    from annotation_tasks.services.versions import is_large

    return shared_cache() and is_large(project)


def queue_build(task: str, project: Project, *args: Any) -> bool:
    """Queue the Celery task `task`(project id, *args) unless one is queued already; False when not queued."""
    lock = f"factcrowd:build:{task}:{project.pk}:{args}"
    if not derived_cache().add(lock, 1, LOCK_SECONDS):
        return False
    from kombu.exceptions import OperationalError

    from annotation_tasks.services.jobs import _signature

    try:
        _signature(task).apply_async(args=[project.pk, *args])
    except OperationalError as exc:  # the broker is down: the request answers with what is kept
        derived_cache().delete(lock)
        log.warning("%s of project %s not queued: %s", task, project.pk, exc)
        return False
    return True


def run_build(task: str, project_id: int, body: Callable[[Project], Any], *args: Any) -> None:
    """A build task's body: build (body stores what it built), then free the lock queue_build took."""
    try:
        project = Project.objects.filter(pk=project_id).first()
        if project is not None:
            body(project)
    finally:
        derived_cache().delete(f"factcrowd:build:{task}:{project_id}:{args}")
        forget_copies()
        release_memory()


def release_memory() -> None:
    """Hand the memory a build or an export freed back to the operating system: Arrow's pool (pandas 3 keeps string
    columns there, in mimalloc) releases its unused pages, and glibc's malloc_trim the heap's (nothing elsewhere). A
    web or Celery worker otherwise keeps the pages of a queue table's, report's or export's freed frames (60-90 MB
    at 10^6 labels), and the next build's peak stacks on them."""
    import ctypes
    import sys

    arrow = sys.modules.get("pyarrow")
    if arrow is not None:
        try:
            arrow.default_memory_pool().release_unused()
        except Exception:  # noqa: BLE001 - an older or stub pyarrow: the heap is still trimmed
            pass
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (AttributeError, OSError):
        pass
