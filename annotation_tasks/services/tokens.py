"""Signed references handed to browsers: per-assignment tokens, unit entry refs, invite links.

Each kind has its own salt, so a token of one kind never verifies as another (an invite link is not an
assignment token). Tokens carry ids only; the server re-reads state (status, expiry) on every use.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.core import signing

ASSIGNMENT_SALT = "factcrowd.assignment"
UNIT_SALT = "factcrowd.unit"
PREVIEW_SALT = "factcrowd.preview"
INVITE_SALT = "factcrowd.invite"

INVITE_MAX_AGE_S = 60 * 60 * 24 * 30

T = TypeVar("T")


class BadToken(Exception):
    """The token is tampered, of another kind, or too old."""


@dataclass(frozen=True)
class AssignmentClaim:
    assignment_id: int
    worker_id: int


def _read(token: str, salt: str, invalid: str, fields: Callable[[Any], T], max_age: int | None = None) -> T:
    """The ids signed into a token of one kind; any tampering, other kind, age or shape raises BadToken(invalid)."""
    try:
        return fields(signing.loads(token, salt=salt, max_age=max_age))
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise BadToken(invalid) from exc


def assignment_token(assignment) -> str:
    """The token that authorizes reading and writing exactly this assignment (bound to its worker too)."""
    return signing.dumps({"a": assignment.pk, "w": assignment.worker_id}, salt=ASSIGNMENT_SALT, compress=True)


def read_assignment_token(token: str) -> AssignmentClaim:
    return _read(token, ASSIGNMENT_SALT, "invalid assignment token", lambda d: AssignmentClaim(int(d["a"]), int(d["w"])))


def unit_ref(unit) -> str:
    """The opaque unit reference put in the URL crowd platforms open (/work/unit/<ref>/)."""
    return signing.dumps({"u": unit.pk}, salt=UNIT_SALT, compress=True)


def read_unit_ref(ref: str) -> int:
    return _read(ref, UNIT_SALT, "invalid unit reference", lambda d: int(d["u"]))


def preview_token(unit) -> str:
    """Read-only token for a platform's preview: shows the unit, can never draft or submit."""
    return signing.dumps({"u": unit.pk}, salt=PREVIEW_SALT, compress=True)


def read_preview_token(token: str) -> int:
    return _read(token, PREVIEW_SALT, "invalid preview token", lambda d: int(d["u"]))


def is_preview_token(token: str) -> bool:
    try:
        read_preview_token(token)
    except BadToken:
        return False
    return True


def invite_token(project) -> str:
    return signing.dumps({"p": project.pk}, salt=INVITE_SALT, compress=True)


def read_invite_token(token: str, max_age: int = INVITE_MAX_AGE_S) -> int:
    return _read(token, INVITE_SALT, "invalid or expired invite link", lambda d: int(d["p"]), max_age=max_age)


def unit_entry_path(unit) -> str:
    """Path of the page a crowd platform opens for this unit; platforms append their own query parameters."""
    return f"/work/unit/{unit_ref(unit)}/"
