"""One worker identity everywhere: a display name and a stable pseudonymous id ("W-" + keyed hash).

The dashboard, the API, the `workers` command, the report and the exports all name a worker through this
module, so the same person is the same name and the same id in every place. Platform ids (MTurk WorkerId,
Prolific participant id, local "user-N") are personal data: they appear only where a researcher asks for them
(`with_platform_ids`); exported votes are named by exporters.base.vote_workers from the same Worker.pseudonym.
The pseudonym's key is a per-row salt (Worker.pseudonym_salt), not SECRET_KEY, so
rotating the key never renames anybody.

Pseudonyms are per project (Worker.pseudonym_in): one worker of two researchers' projects has unrelated ids in
each, so neither can re-identify the worker in the other's exported dataset; within a project the id is stable
(report, review, exports and the workers table with a project all agree). Every function here takes the project
it speaks about; without one it gives the account-wide id (lists across projects, never an export).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q

from annotation_tasks.models import Worker

NAME_MAX = 80


class IdentityError(ValueError):
    """A display name that cannot be stored."""


def pseudonym(worker: Worker, project_id: int | None = None) -> str:
    """The worker's pseudonymous id in the project, e.g. W-3f9a1c0b2e."""
    return worker.pseudonym_in(project_id)


def display_name(worker: Worker, project_id: int | None = None) -> str:
    """The name people see: the one the worker gave, else their account's, else the pseudonym.

    Platform workers have no name of their own, and their platform id is never shown by default."""
    if worker.display_name:
        return worker.display_name
    user = worker.user if worker.user_id else None
    if user is not None:
        return user.get_full_name() or user.get_username()
    return worker.pseudonym_in(project_id)


def platform_id(worker: Worker) -> str:
    """provider:external_id, for researchers who ask for it (payments, platform support)."""
    return f"{worker.provider}:{worker.external_id}"


def describe(worker: Worker, *, project_id: int | None = None, with_platform_ids: bool = False) -> dict[str, Any]:
    """{id, pseudonym, name[, provider, platform_id]}: the one dict every surface shows of a worker (in a project)."""
    out: dict[str, Any] = {"id": worker.pk, "pseudonym": worker.pseudonym_in(project_id),
                           "name": display_name(worker, project_id)}
    if with_platform_ids:
        out["provider"] = worker.provider
        out["platform_id"] = platform_id(worker)
    return out


def describe_many(worker_ids: Iterable[int], *, project_id: int | None = None, with_platform_ids: bool = False
                  ) -> dict[int, dict[str, Any]]:
    """{worker pk: describe(worker)} in one query."""
    ids = set(worker_ids)
    if not ids:
        return {}
    workers = Worker.objects.filter(pk__in=ids).select_related("user")
    return {w.pk: describe(w, project_id=project_id, with_platform_ids=with_platform_ids) for w in workers}


def clean_name(name: str) -> str:
    """A display name as stored: whitespace collapsed, not empty, at most NAME_MAX characters, printable."""
    name = " ".join((name or "").split())
    if not name:
        raise IdentityError("name: must not be empty")
    if len(name) > NAME_MAX:
        raise IdentityError(f"name: at most {NAME_MAX} characters")
    if not name.isprintable():
        raise IdentityError("name: must be printable text")
    return name


def set_display_name(worker: Worker, name: str) -> Worker:
    """Store the name a worker gave (see clean_name)."""
    worker.display_name = clean_name(name)
    worker.save(update_fields=["display_name"])
    return worker


def find_workers(query: str, project_id: int | None = None) -> list[int]:
    """Worker pks whose name, username, platform id or pseudonym contains `query` (the tables' search).

    Names and ids are matched in the database; a pseudonym is computed, so "W-..." queries scan the workers. Only
    the pseudonyms of `project_id` (the account-wide one without) match: another project's id finds nobody."""
    q = query.strip()
    if not q:
        return []
    found = set(
        Worker.objects.filter(
            Q(display_name__icontains=q) | Q(external_id__icontains=q) | Q(user__username__icontains=q)
            | Q(user__first_name__icontains=q) | Q(user__last_name__icontains=q)
        ).values_list("pk", flat=True)
    )
    if q.lower().startswith("w-"):
        found |= {w.pk for w in Worker.objects.only("pk", "provider", "external_id", "pseudonym_salt").iterator()
                  if q.lower() in w.pseudonym_in(project_id).lower()}
    return sorted(found)


def worker_by_ref(ref: str | int, project_id: int | None = None) -> Worker:
    """The worker a person names on the command line: its pk or its pseudonym (W-...) in the project."""
    text = str(ref).strip()
    if text.isascii() and text.isdigit():
        found = Worker.objects.filter(pk=int(text)).first() if int(text) < 2**63 else None
    else:
        ids = find_workers(text, project_id) if text.lower().startswith("w-") else []
        matches = [w for w in Worker.objects.filter(pk__in=ids) if w.pseudonym_in(project_id).lower() == text.lower()]
        found = matches[0] if len(matches) == 1 else None
    if found is None:
        raise IdentityError(f"no worker {text!r} (give its id or its pseudonym W-...)")
    return found


__all__ = [
    "IdentityError", "clean_name", "describe", "describe_many", "display_name", "find_workers",
    "platform_id", "pseudonym", "set_display_name", "worker_by_ref",
]
