"""The one way platform work becomes verified (or unverified), so held-back changes apply exactly once.

A submission entered from a platform counts only once the platform vouches for it (Assignment.counted_q), and what
it changes beyond its own labels waits for that (AnnotationProtocol.on_verified). Every sync path (per-unit sync in
services.publishing, a batch study's places in services.sessions) verifies through `verify`: its conditional
update lets one caller move an assignment to verified, and only that caller, in the same transaction, calls the
protocol's on_verified. So a repeated sync, or two syncs at once, apply nothing twice. Approving work (the
review's approve, panel imports) pays it and is not verifying it: it never calls on_verified.
"""
from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.protocols import UnknownProtocol, get_protocol

V = Assignment.Verification


def verify(ids: Iterable[int]) -> list[int]:
    """Mark these assignments verified (the platform reports them) and apply what each held back; answers the ids
    newly verified (those already verified only get their verified_at refreshed)."""
    ids = list(ids)
    now = timezone.now()
    newly: list[int] = []
    for pk in ids:
        with transaction.atomic():
            moved = (Assignment.objects.filter(pk=pk).exclude(verification=V.VERIFIED)
                     .update(verification=V.VERIFIED, verification_note="", verified_at=now))
            if moved:
                newly.append(pk)
                _apply_held_back(pk)
    Assignment.objects.filter(pk__in=[pk for pk in ids if pk not in set(newly)],
                              verification=V.VERIFIED).update(verified_at=now)
    return newly


def unverify(ids: Iterable[int], note: str) -> None:
    """The platform does not vouch for these (unknown, or a wrong completion code): they stop counting. What a
    verified one already applied stays (shared state is not undone by a later doubt)."""
    Assignment.objects.filter(pk__in=list(ids)).update(verification=V.UNVERIFIED, verification_note=note[:200],
                                                       verified_at=timezone.now())


def _apply_held_back(pk: int) -> None:
    a = Assignment.objects.filter(pk=pk).first()
    if a is None:
        return
    try:
        protocol = get_protocol(Unit.objects.filter(pk=a.unit_id).values_list("mode", flat=True)[0])
    except (UnknownProtocol, IndexError):
        return
    protocol.on_verified(a)
