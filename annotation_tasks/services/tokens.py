"""Signed references handed to browsers: per-assignment tokens, preview tokens, invite links.

The unit entry reference is shared with the crowd providers, so it lives in the neutral annotation_tasks.signing
(re-exported here for the work pages). Each kind has its own salt, so a token of one kind never verifies as another (an invite link is not an
assignment token). Tokens carry ids only; the server re-reads state (status, expiry) on every use.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from annotation_tasks.signing import UNIT_SALT, BadToken, read_unit_ref, unit_entry_path, unit_ref
from annotation_tasks.signing import read_signed as _read

__all__ = [
    "ASSIGNMENT_SALT", "INVITE_MAX_AGE_S", "INVITE_SALT", "PREVIEW_SALT", "UNIT_SALT", "AssignmentClaim", "BadToken",
    "assignment_token", "invite_token", "is_preview_token", "preview_token", "read_assignment_token",
    "read_invite_token", "read_preview_token", "read_unit_ref", "unit_entry_path", "unit_ref",
]

ASSIGNMENT_SALT = "factcrowd.assignment"
PREVIEW_SALT = "factcrowd.preview"
INVITE_SALT = "factcrowd.invite"

INVITE_MAX_AGE_S = 60 * 60 * 24 * 30


@dataclass(frozen=True)
class AssignmentClaim:
    assignment_id: int
    worker_id: int


def assignment_token(assignment) -> str:
    """The token that authorizes reading and writing exactly this assignment (bound to its worker too)."""
    return signing.dumps({"a": assignment.pk, "w": assignment.worker_id}, salt=ASSIGNMENT_SALT, compress=True)


def read_assignment_token(token: str) -> AssignmentClaim:
    return _read(token, ASSIGNMENT_SALT, "invalid assignment token", lambda d: AssignmentClaim(int(d["a"]), int(d["w"])))


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
