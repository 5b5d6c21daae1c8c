"""Signed references handed to browsers, at the level both the work pages and the crowd providers use.

A neutral module (Django's signing only, no models, no services): the crowd providers put the unit page's
URL in front of platforms, the work pages read it back, and neither has to import the other. The other
token kinds (assignment, preview, invite) live in annotation_tasks.services.tokens on top of `read_signed`.
Each kind has its own salt, so a token of one kind never verifies as another.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.core import signing

UNIT_SALT = "factcrowd.unit"

T = TypeVar("T")


class BadToken(Exception):
    """The token is tampered, of another kind, or too old."""


def read_signed(token: str, salt: str, invalid: str, fields: Callable[[Any], T], max_age: int | None = None) -> T:
    """The ids signed into a token of one kind; any tampering, other kind, age or shape raises BadToken(invalid)."""
    try:
        return fields(signing.loads(token, salt=salt, max_age=max_age))
    except (signing.BadSignature, KeyError, TypeError, ValueError) as exc:
        raise BadToken(invalid) from exc


def unit_ref(unit) -> str:
    """The opaque unit reference put in the URL crowd platforms open (/work/unit/<ref>/)."""
    return signing.dumps({"u": unit.pk}, salt=UNIT_SALT, compress=True)


def read_unit_ref(ref: str) -> int:
    return read_signed(ref, UNIT_SALT, "invalid unit reference", lambda d: int(d["u"]))


def unit_entry_path(unit) -> str:
    """Path of the page a crowd platform opens for this unit; platforms append their own query parameters."""
    return f"/work/unit/{unit_ref(unit)}/"
