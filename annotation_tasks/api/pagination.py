"""Pagination of every researcher list: pages by number (as before) or by cursor, fast at any depth.

A project of 100k units has lists of 10^5-10^6 rows. Offsetting into an annotated query makes the database
compute every skipped row's counts (GROUP BY over joins), so a deep page took most of a second. Here a page is
found on the bare, filtered and ordered ids first (an index scan; pages past the middle are read from the other
end, so no offset is more than half the list), and only that page's rows are then loaded with what the view
adds to them (`view.annotate_page(queryset)`: counts, prefetches). `?cursor=` (the `next_cursor` of a previous
answer) seeks by the ordering's values instead of an offset (keyset pagination): constant time at any depth.

A searched list, or one filtered by what no index holds, cannot count or offset on an index alone: each of the two passes read every row of the project (a `?search=` LIKE over 3*10^5
QAs, a `?status=` join of 3*10^5 assignments to their units: 240-440 ms, issue 25). Its page and its count come
from one query instead (`COUNT(*) OVER ()` beside the page's ids), so the rows are read once; the view says so by
setting `one_pass` in its filter_queryset.
"""
from __future__ import annotations

import base64
import json
import math
from collections import OrderedDict
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.paginator import InvalidPage
from django.db.models import Count, Q, QuerySet, Window
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param


def _ordering(queryset: QuerySet) -> list[str]:
    """The queryset's ordering, with the primary key last (a total order: keyset pages need one)."""
    fields = list(queryset.query.order_by) or list(queryset.model._meta.ordering or [])
    fields = [f for f in fields if isinstance(f, str)]
    names = {f.lstrip("-") for f in fields}
    if not names & {"pk", "id"}:
        fields.append("-pk" if fields and fields[-1].startswith("-") else "pk")
    return fields


def _encode(values: list[Any]) -> str:
    def plain(v: Any) -> Any:
        return v.isoformat() if isinstance(v, (datetime, date)) else str(v) if isinstance(v, Decimal) else v

    raw = json.dumps([plain(v) for v in values], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: str, width: int) -> list[Any]:
    try:
        values = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, TypeError) as exc:
        raise ValidationError({"cursor": "not a cursor this list gave"}) from exc
    if not isinstance(values, list) or len(values) != width:
        raise ValidationError({"cursor": "not a cursor of this list's ordering"})
    return values


def _checked(model: Any, fields: list[str], values: list[Any]) -> list[Any]:
    """A decoded cursor's values as its fields' types (a cursor is client input: an edited one must be a 400, not a
    500 from the database): each as its model field reads it, integers within a 64-bit column."""
    out = []
    for field, value in zip(fields, values, strict=True):
        if value is None:
            out.append(None)
            continue
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ValidationError({"cursor": "not a cursor this list gave"})
        name = field.lstrip("-")
        try:
            model_field = model._meta.pk if name == "pk" else model._meta.get_field(name)
        except FieldDoesNotExist:  # a related or annotated ordering: the query's own checks below
            model_field = None
        try:
            value = model_field.to_python(value) if model_field is not None else value
        except (DjangoValidationError, ValueError, TypeError, OverflowError) as exc:
            raise ValidationError({"cursor": "not a cursor this list gave"}) from exc
        if isinstance(value, int) and not -(2**63) <= value < 2**63 or isinstance(value, float) and not math.isfinite(
                value):
            raise ValidationError({"cursor": "not a cursor this list gave"})
        out.append(value)
    return out


def _after(fields: list[str], values: list[Any]) -> Q:
    """Rows after `values` in `fields`' order: (a > x) or (a = x and b > y) ... (descending fields: <)."""
    condition = Q(pk__in=[])
    for i, field in enumerate(fields):
        name = field.lstrip("-")
        op = "lt" if field.startswith("-") else "gt"
        if values[i] is None:  # nulls: no keyset on this field; equality on the earlier ones is all we can say
            continue
        step = Q(**{f"{name}__{op}": values[i]})
        for prev, value in zip(fields[:i], values[:i], strict=True):
            step &= Q(**{f"{prev.lstrip('-')}__isnull": True}) if value is None else Q(**{prev.lstrip("-"): value})
        condition |= step
    return condition


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
    cursor_query_param = "cursor"

    def paginate_queryset(self, queryset, request, view=None):  # type: ignore[override]
        self.legacy = not isinstance(queryset, QuerySet) or any(
            not isinstance(f, str) for f in queryset.query.order_by)
        if self.legacy:  # a list, or an ordering by expressions: Django's page (offset) pagination
            self.next_cursor = None
            return super().paginate_queryset(queryset, request, view)
        self.request = request
        self.view = view
        self.cursor_mode = self.cursor_query_param in request.query_params
        size = self.get_page_size(request) or self.page_size
        fields = _ordering(queryset)
        ordered = queryset.order_by(*fields)
        bare = ordered.values_list("pk", flat=True)
        if not self.cursor_mode and self._one_pass(queryset, view):
            ids = self._counted_page(ordered, size, request)
            rows = self._load(queryset, ids, view)
            self.next_cursor = _encode([_value(rows[-1], f) for f in fields]) if rows and self.has_next else None
            return rows
        self.count = _count(queryset)
        if self.cursor_mode:
            raw = request.query_params.get(self.cursor_query_param, "")
            if raw:
                values = _checked(queryset.model, fields, _decode(raw, len(fields)))
                bare = bare.filter(_after(fields, values))
            try:
                ids = list(bare[: size + 1])
            except (ValueError, TypeError, OverflowError) as exc:  # raised before the query runs (or as SQLite binds)
                raise ValidationError({"cursor": "not a cursor this list gave"}) from exc
            self.has_next = len(ids) > size
            ids = ids[:size]
            self.page_number = None
        else:
            ids = self._numbered_page(bare, size, request)
        rows = self._load(queryset, ids, view)
        self.next_cursor = _encode([_value(rows[-1], f) for f in fields]) if rows and self.has_next else None
        return rows

    @staticmethod
    def _one_pass(queryset: QuerySet, view) -> bool:
        """Whether the view says its filter reads every row (a search, a filter no index holds): then the count
        and the page come from one query. An indexed filter keeps the two index scans (count, then offset)."""
        return bool(getattr(view, "one_pass", False)) and not queryset.query.distinct

    def _counted_page(self, ordered: QuerySet, size: int, request) -> list[int]:
        """The page's ids and the list's count from one query (`COUNT(*) OVER ()` beside the ids): a filtered
        list is read once, not once to count and once more to offset. "last" reads the first rows of the other
        end (the last page is what is left of them past the other pages)."""
        raw = request.query_params.get(self.page_query_param) or 1
        counted = ordered.annotate(_list_count=Window(expression=Count("pk"))).values_list("pk", "_list_count")
        if str(raw) == "last":
            tail = list(counted.reverse()[:size])
            self.count = tail[0][1] if tail else 0
            number = max(1, -(-self.count // size))
            self._check_page(raw, number, size)
            return [pk for pk, _ in reversed(tail[:self.count - (number - 1) * size])]
        number = self._page_number(raw)
        start = (number - 1) * size
        rows = list(counted[start:start + size]) if number >= 1 else []
        self.count = rows[0][1] if rows else _count(ordered)  # past the end (or empty): how far, for the 404
        self._check_page(raw, number, size)
        return [pk for pk, _ in rows]

    @staticmethod
    def _page_number(raw: Any) -> int:
        try:
            return int(raw)
        except ValueError as exc:
            raise NotFound(f"Invalid page ({raw!r}).") from exc

    def _check_page(self, raw: Any, number: int, size: int) -> None:
        pages = max(1, -(-self.count // size))
        if number < 1 or (number > pages and not (number == 1 and self.count == 0)):
            raise NotFound(str(InvalidPage(f"Invalid page ({raw!r}): that page contains no results")))
        self.page_number, self.pages, self.has_next = number, pages, number < pages

    def _numbered_page(self, bare: QuerySet, size: int, request) -> list[int]:
        raw = request.query_params.get(self.page_query_param) or 1
        number = max(1, -(-self.count // size)) if str(raw) == "last" else self._page_number(raw)
        self._check_page(raw, number, size)
        start = (number - 1) * size
        stop = min(start + size, self.count)
        if start > self.count // 2:  # read from the other end: no offset is over half the list
            tail = self.count - stop
            return list(reversed(list(bare.reverse()[tail: tail + (stop - start)])))
        return list(bare[start:stop])

    @staticmethod
    def _load(queryset: QuerySet, ids: list[int], view) -> list:
        """The page's rows in `ids`' order, with what the view adds to a page (counts, prefetches)."""
        page = queryset.filter(pk__in=ids)
        annotate = getattr(view, "annotate_page", None)
        if annotate is not None:
            page = annotate(page)
        by_id = {row.pk: row for row in page}
        return [by_id[i] for i in ids if i in by_id]

    def get_paginated_response(self, data):
        if self.legacy:
            return super().get_paginated_response(data)
        return Response(OrderedDict([
            ("count", self.count),
            ("next", self.get_next_link()),
            ("previous", self.get_previous_link()),
            ("next_cursor", self.next_cursor),
            ("results", data),
        ]))

    def get_paginated_response_schema(self, schema: dict) -> dict:
        out = super().get_paginated_response_schema(schema)
        out["properties"]["next_cursor"] = {
            "type": "string", "nullable": True,
            "description": "Pass as ?cursor= for the next page (keyset: as fast at any depth).",
        }
        return out

    def get_schema_operation_parameters(self, view) -> list[dict]:
        return [*super().get_schema_operation_parameters(view), {
            "name": self.cursor_query_param, "required": False, "in": "query",
            "description": "A next_cursor from a previous page (empty: the first page); instead of page.",
            "schema": {"type": "string"},
        }]

    def get_next_link(self) -> str | None:
        if self.legacy:
            return super().get_next_link()
        if not self.has_next:
            return None
        url = self.request.build_absolute_uri()
        if self.cursor_mode:
            return replace_query_param(url, self.cursor_query_param, self.next_cursor)
        return replace_query_param(url, self.page_query_param, self.page_number + 1)

    def get_previous_link(self) -> str | None:
        if self.legacy:
            return super().get_previous_link()
        if self.cursor_mode or not self.page_number or self.page_number <= 1:
            return None
        url = self.request.build_absolute_uri()
        if self.page_number == 2:
            return remove_query_param(url, self.page_query_param)
        return replace_query_param(url, self.page_query_param, self.page_number - 1)


def _value(row: Any, field: str) -> Any:
    name = field.lstrip("-")
    value: Any = row
    for part in ("pk" if name == "pk" else name).split("__"):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value


def _count(queryset: QuerySet) -> int:
    """The list's length without its ordering, select_related or unused annotations (Django strips those)."""
    return queryset.order_by().count()


class PageAnnotations:
    """For views whose rows carry counts (GROUP BY over joins): `annotate_page(queryset)` adds them. The list
    adds them to its page only (Pagination._load); a single row (retrieve, update) gets them here."""

    action: str | None

    def annotate_page(self, queryset: QuerySet) -> QuerySet:
        return queryset

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()  # type: ignore[misc]
        return queryset if self.action == "list" else self.annotate_page(queryset)
