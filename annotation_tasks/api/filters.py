"""Filtering for every list: exact-match query parameters declared per view, documented in the schema.

django-filter is not a dependency; this small backend covers what the dashboard needs (ids, statuses, flags)
and answers 400 for malformed values instead of a server error.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.filters import BaseFilterBackend, SearchFilter

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _as_bool(value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(value)


class Present:
    """Filter kind: `?param=true` keeps rows where the field is set (`lookup` names the field)."""


class NonZero:
    """Filter kind: `?param=true` keeps rows whose annotated count `lookup` is above zero (false: zero)."""


def id_param(text: str | None) -> int | None:
    """The id a query parameter names: ASCII digits within a 64-bit integer, else None. (str.isdigit() alone also
    takes "²", which int() refuses, and a 20-digit id overflows the database's integer column.)"""
    if not text or not text.isascii() or not text.isdigit() or len(text) > 19 or int(text) >= 2**63:
        return None
    return int(text)


def _as_int(value: str) -> int:
    """An id or count that fits every database's integer column (a larger one is a 400, not an overflow)."""
    number = int(value)
    if not -(2**63) <= number < 2**63:
        raise ValueError(value)
    return number


_CASTS: dict[type, Callable[[str], Any]] = {int: _as_int, str: str, bool: _as_bool, Present: _as_bool,
                                            NonZero: _as_bool}
_SCHEMA_TYPES = {int: "integer", str: "string", bool: "boolean", Present: "boolean", NonZero: "boolean"}


class FieldFilterBackend(BaseFilterBackend):
    """Views declare `filter_fields = {"param": ("orm_lookup", type)}`; "a,b" filters with __in for lists."""

    def filter_queryset(self, request, queryset, view):
        for param, (lookup, kind) in getattr(view, "filter_fields", {}).items():
            raw = request.query_params.get(param)
            if raw is None or raw == "":
                continue
            try:
                if kind is Present:
                    queryset = queryset.filter(**{f"{lookup}__isnull": not _as_bool(raw)})
                elif kind is NonZero:
                    queryset = queryset.filter(**({f"{lookup}__gt": 0} if _as_bool(raw) else {lookup: 0}))
                elif "," in raw and kind is not bool:
                    values = [_CASTS[kind](part) for part in raw.split(",") if part]
                    queryset = queryset.filter(**{f"{lookup}__in": values})
                else:
                    queryset = queryset.filter(**{lookup: _CASTS[kind](raw)})
            except ValueError as exc:
                raise ValidationError({param: f"not a valid {_SCHEMA_TYPES[kind]}: {raw!r}"}) from exc
        return queryset

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [
            {
                "name": param,
                "required": False,
                "in": "query",
                "description": f"Filter by {lookup.replace('__', '.')} (comma-separate several values).",
                "schema": {"type": _SCHEMA_TYPES[kind]},
            }
            for param, (lookup, kind) in getattr(view, "filter_fields", {}).items()
        ]


class WorkerSearchFilter(SearchFilter):
    """`?search=` over the view's search_fields, and also over workers' pseudonymous ids ("W-3f9a...", which are
    computed, not stored): a view sets `pseudonym_lookup` to the path of its worker's pk ("pk", "worker_id")."""

    def filter_queryset(self, request, queryset, view):
        term = request.query_params.get(self.search_param, "").strip()
        lookup = getattr(view, "pseudonym_lookup", None)
        if lookup and term.lower().startswith("w-"):
            from annotation_tasks.services.identity import find_workers

            project = request.query_params.get("project", "")  # pseudonyms are per project: match that one's
            return queryset.filter(**{f"{lookup}__in": find_workers(term, id_param(project))})
        return super().filter_queryset(request, queryset, view)
