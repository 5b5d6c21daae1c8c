"""What an expert's decisions and filters from the dashboard must be: one error class that names the request field
("filter.kind", "texts[1]") and the checks QA validation and fact validation share. Its own module so that both
import it and neither imports the other for it (services.validation imports services.fact_validation)."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.db.models import Q, QuerySet


class ValidationInputError(ValueError):
    """A bad decision, correction or filter; `field` names the offending request field."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


def as_int(value: Any, path: str) -> int:
    """An integer within a 64-bit column, else a ValidationInputError at `path`: not a boolean or a fraction (int()
    would take True and truncate 1.7 into another project's id), not a 20-digit id the database cannot hold."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise ValidationInputError(path, "must be an integer")
    if isinstance(value, str) and not (value.strip().lstrip("-").isascii() and value.strip().lstrip("-").isdigit()):
        raise ValidationInputError(path, "must be an integer")
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ValidationInputError(path, "must be an integer") from None
    if not -(2**63) <= number < 2**63:
        raise ValidationInputError(path, "is out of range")
    return number


def as_fraction(value: Any, path: str) -> float:
    """A finite number from 0 to 1 (a confidence), else a ValidationInputError at `path`."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or not 0 <= number <= 1:
        raise ValidationInputError(path, "must be a number from 0 to 1")
    return number


Filter = Callable[[QuerySet, Any, str], QuerySet]
"""One filter key's step: (queryset, the request's value, its path) -> the narrowed queryset."""


def apply_filters(queryset: QuerySet, spec: Any, filters: Mapping[str, Filter], path: str = "filter") -> QuerySet:
    """The list screens' and bulk decisions' one filter reader (QAs: services.validation.filter_qas, facts:
    fact_validation.filter_facts): `spec` ({key: value}, values as JSON or query strings) narrowed key by key;
    an unknown key, or a spec that is no object, is an error at its path; an empty value filters nothing."""
    if not isinstance(spec, Mapping):
        raise ValidationInputError(path or "filter", "must be an object")
    for key, value in spec.items():
        where = f"{path}.{key}" if path else str(key)
        step = filters.get(key)
        if step is None:
            raise ValidationInputError(where, f"unknown filter (known: {', '.join(filters)})")
        if value is None or value == "":
            continue
        queryset = step(queryset, value, where)
    return queryset


def as_choice(value: Any, allowed: Iterable[str], path: str) -> str:
    """One of `allowed` (a choice's values), else a ValidationInputError at `path` naming them."""
    allowed = [str(a) for a in allowed]
    if value not in allowed:
        raise ValidationInputError(path, f"must be one of {', '.join(allowed)}")
    return str(value)


def as_flag(value: Any, path: str) -> bool:
    """true / false (JSON or query string), else a ValidationInputError at `path`."""
    if value not in (True, False, "true", "false"):
        raise ValidationInputError(path, "must be true or false")
    return value in (True, "true")


def held_items(unit_responses: QuerySet, kind: str) -> Q:
    """Items of `kind` ("qas", "facts") these UnitResponse rows hold: a whole response's, or a slice's own.

    Whole responses by a subquery: a batch's 10^4 response ids were read here and sent back in every query of a
    list page (count, ids, rows), over a second at 10^5 units (issue 25); only slices are read (few)."""
    whole = unit_responses.filter(items__isnull=True).order_by().values("response_id")
    null_json, sliced = set(), set()
    for rid, items in unit_responses.filter(items__isnull=False).order_by().values_list("response_id", "items"):
        if items is None:  # a JSON null: the whole response too
            null_json.add(rid)
        else:
            sliced.update(items.get(kind) or [])
    return Q(response_id__in=whole) | Q(response_id__in=null_json) | Q(pk__in=sliced)
