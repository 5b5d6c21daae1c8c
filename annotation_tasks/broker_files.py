"""The filesystem broker after a full disk: empty or unreadable message files never stop the worker.

With var/ full, beat still creates its message files but cannot write them: they stay empty, and kombu's
filesystem transport crashes the worker on each one it reads (json of b""), so `make run` stayed down after the
space was freed (issue 23 item 8). Two guards, both logged:

- `sweep(options)` at worker and beat start (backend/celery_app.py) moves every message or exchange file that is
  empty or not JSON out of the broker's folders into `damaged/` beside them (kept for a look, never read again);
- `tolerant_get` wraps the transport's read so a bad file met while running is moved the same way and skipped.
A lost message is a queued Job that never starts: services.jobs sees it stall and sends it again.
"""
from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

from kombu.transport import filesystem

log = logging.getLogger(__name__)
KOMBU_GET = getattr(filesystem.Channel._get, "__wrapped__", filesystem.Channel._get)  # kombu's own read


def _bad(path: Path) -> str | None:
    """Why a message file cannot be read ("" is not JSON either), or None when it is a good one."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if not data.strip():
        return "empty"
    try:
        json.loads(data)
    except ValueError:
        return "not JSON (cut short?)"
    return None


def _quarantine(path: Path, why: str) -> None:
    damaged = path.parent.parent / "damaged"
    try:
        damaged.mkdir(parents=True, exist_ok=True)
        shutil.move(str(path), str(damaged / path.name))
    except OSError:
        try:
            path.unlink()
        except OSError:
            log.warning("broker file %s is %s and could not be moved or removed", path, why)
            return
    log.warning("broker file %s was %s: moved out of the queue (%s)", path.name, why, damaged)


def sweep(options: dict[str, Any] | None) -> list[str]:
    """Move the empty or unreadable files out of the filesystem broker's folders; returns their names."""
    options = options or {}
    folders = {options.get("data_folder_in"), options.get("data_folder_out"), options.get("control_folder")}
    moved = []
    for folder in sorted(f for f in folders if f):
        root = Path(folder)
        if not root.is_dir():
            continue
        for path in sorted(root.iterdir()):
            if path.is_file():
                why = _bad(path)
                if why is not None:
                    _quarantine(path, why)
                    moved.append(path.name)
    return moved


def tolerant_get(original):
    """Wrap kombu's filesystem Channel._get: a message file that does not parse is moved out and skipped."""

    def _get(self, queue):  # noqa: ANN001, ANN202 - kombu's signature
        while True:
            try:
                return original(self, queue)
            except ValueError:  # json of an empty or cut file; the transport already took it out of the queue
                log.warning("a broker message file of queue %s did not parse (empty after a full disk?): skipped",
                            queue)
                continue

    _get.factcrowd_tolerant = True  # type: ignore[attr-defined]
    _get.__wrapped__ = original  # type: ignore[attr-defined]
    return _get


def install() -> None:
    """Make kombu's filesystem transport skip unparsable message files (idempotent)."""
    if not getattr(filesystem.Channel._get, "factcrowd_tolerant", False):
        filesystem.Channel._get = tolerant_get(KOMBU_GET)


__all__ = ["install", "sweep", "tolerant_get"]
