"""Streaming helpers: keyset-paginated chunks and per-chunk majority labels.

Exporters are generators of lines. They read responses in chunks by primary key (``WHERE id > last ORDER BY
id LIMIT n``), so memory holds one chunk whatever the project's size, and the same query works on SQLite
and PostgreSQL. Labels of a chunk are read through their protocol's label level (level_votes) and go through
annotation_tasks.analysis.aggregation.majority_labels, so the label names and the tie rule are the analysis's.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from functools import lru_cache
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

import pandas as pd
from django.db import connection
from django.db.models import Model, QuerySet
from django.db.models.expressions import RawSQL

from annotation_tasks.analysis.aggregation import majority_labels
from annotation_tasks.models import Assignment, Worker
from annotation_tasks.protocols import label_level, label_order

CHUNK = 200
T = TypeVar("T")
def iter_chunks(queryset: QuerySet, size: int = CHUNK) -> Iterator[list[Model]]:
    """Lists of at most `size` rows in primary-key order, one query each."""
    last = None
    qs = queryset.order_by("pk")
    while True:
        page = list((qs.filter(pk__gt=last) if last is not None else qs)[:size])
        if not page:
            return
        yield page
        last = page[-1].pk


def id_list(ids: Iterable[int]) -> Any:
    """Ids for a `field__in=` filter. On PostgreSQL one array parameter (`IN (SELECT unnest(%s))`) instead of a
    placeholder per id: for a chunk's thousands of ids psycopg's parse of the query string cost more than the
    query. Elsewhere (SQLite) the plain list."""
    ids = list(ids)
    if len(ids) > 64 and connection.vendor == "postgresql":  # the array as its text form: one str to send
        return RawSQL("SELECT unnest(%s::bigint[])", ("{" + ",".join(map(str, map(int, ids))) + "}",))
    return ids


def iter_value_chunks(queryset: QuerySet, fields: tuple[str, ...] | list[str], size: int = CHUNK
                      ) -> Iterator[list[tuple]]:
    """Lists of at most `size` rows of plain values (`fields`, the first being "id") in primary-key order, one
    query each: iter_chunks without a model instance per row (and without the columns an exporter never reads)."""
    last = None
    qs = queryset.order_by("pk")
    while True:
        page = list((qs.filter(pk__gt=last) if last is not None else qs).values_list(*fields)[:size])
        if not page:
            return
        yield page
        last = page[-1][0]


def counted_only(rows: list[tuple]) -> list[tuple]:
    """Keep label rows (item id, assignment id, value) whose assignment counts (submitted or approved), one per
    worker and item (the earliest assignment's; retest votes beside it).

    Assignment status is checked in a second query on the chunk's own assignment ids rather than joined:
    with the join, SQLite starts from the status index and walks every assignment of the database per chunk.
    """
    ids = {r[1] for r in rows}
    # rejected / returned work is not a label, nor is work its platform has not vouched for (Assignment.counted_q)
    found = list(Assignment.objects.filter(Assignment.data_q(), pk__in=id_list(ids)).values_list(
        "pk", "worker_id", "unit__batch__settings__retest")) if ids else []
    return _first_counted(rows, {pk: worker for pk, worker, _retest in found},
                          {pk for pk, _worker, flag in found if flag is True})


def _first_counted(rows: list[tuple], ok: dict[int, int], retest: set[int]) -> list[tuple]:
    """counted_only's rule on the counted assignments' workers (`ok`: {assignment id: worker id}) and the retest
    assignments among them."""
    # one counted vote per worker per item: a second vote through another batch (stored before submit dropped
    # such votes) is left out, unless it is a test-retest the researcher asked for (marked by retest_marks)
    first: dict[tuple[Any, int], int] = {}
    for r in rows:
        if r[1] in ok and r[1] not in retest:
            key = (r[0], ok[r[1]])
            first[key] = min(first.get(key, r[1]), r[1])
    return [r for r in rows if r[1] in ok and (r[1] in retest or first[(r[0], ok[r[1]])] == r[1])]


class ChunkVotes(NamedTuple):
    """A chunk's counted votes of one level and who cast them: level_votes' rows (sorted by item, then assignment),
    vote_workers' names and retest_marks' marks, from one query of the chunk's assignments instead of three."""

    rows: list[tuple[str, int, int, Any]]
    workers: dict[tuple[str, int], list[str]]
    retests: dict[tuple[str, int], list[bool]]


def chunk_votes(level: str, item_ids: list[int], *, with_platform_ids: bool = False) -> ChunkVotes:
    """level_votes(level, item_ids), vote_workers of its rows and retest_marks of its rows, the assignments read
    once (their status, worker, retest flag and pseudonym columns together)."""
    spec = label_level(level)
    raw = list(spec.labels_of_items(id_list(item_ids))) if item_ids else []
    ids = {r[1] for r in raw}
    found = list(Assignment.objects.filter(Assignment.data_q(), pk__in=id_list(ids)).values_list(
        "pk", "worker_id", "unit__batch__settings__retest", "unit__project_id", "worker__provider",
        "worker__external_id", "worker__pseudonym_salt")) if ids else []
    retest = {row[0] for row in found if row[2] is True}
    kept = _first_counted(raw, {row[0]: row[1] for row in found}, retest)
    rows = [(level, item, a_id, spec.label_of(value)) for item, a_id, value in kept]
    names = {pk: _pseudonym(project_id, provider, external_id, salt)
             + (f"|{provider}:{external_id}" if with_platform_ids else "")
             for pk, _worker, _flag, project_id, provider, external_id, salt in found}
    ordered = sorted(rows, key=itemgetter(0, 1, 2))  # by item, then assignment: the order of majorities' votes
    workers: dict[tuple[str, int], list[str]] = {}
    retests: dict[tuple[str, int], list[bool]] = {}
    for (lv, item), group in groupby(ordered, itemgetter(0, 1)):
        a_ids = [r[2] for r in group]
        key = (lv, int(item))
        workers[key] = [names[a] for a in a_ids]
        if retest and not retest.isdisjoint(a_ids):
            retests[key] = [a in retest for a in a_ids]
    return ChunkVotes(ordered, workers, retests)


def level_votes(level: str, item_ids: list[int]) -> list[tuple[str, int, int, Any]]:
    """(level, item id, assignment id, label) of the counted labels of these items, read and named by the
    protocol that owns the level (annotation_tasks.protocols): the exporters' hook into the protocols."""
    spec = label_level(level)
    rows = counted_only(list(spec.labels_of_items(id_list(item_ids)))) if item_ids else []
    return [(level, item, a_id, spec.label_of(value)) for item, a_id, value in rows]


# The aggregated label of each item, {(level, item id): label}, when an export asks for a model other than the
# majority (services.exports sets it around one export with with_aggregation): majorities() then names that label.
AGGREGATED: ContextVar[dict[tuple[str, int], Any] | None] = ContextVar("aggregated_labels", default=None)


def with_aggregation(lines: Iterator[T], labels: dict[tuple[str, int], Any]) -> Iterator[T]:
    """The exporter's lines, produced while `labels` stand in for the majority (items without one keep it).

    The labels are set around each step of the exporter only, never while the consumer holds a line: a streaming
    response may resume the generator in another context, and nothing else sees the override."""
    steps = iter(lines)
    while True:
        token = AGGREGATED.set(labels)
        try:
            line = next(steps)
        except StopIteration:
            return
        finally:
            AGGREGATED.reset(token)
        yield line


def majorities(rows: Iterable[tuple[str, int, int, Any]]) -> dict[tuple[str, int], tuple[Any, list]]:
    """{(level, item id): (majority, votes in assignment order)} from (level, item id, assignment id, label);
    within with_aggregation the label is the chosen model's."""
    frame = pd.DataFrame(list(rows), columns=["level", "item_id", "worker_id", "label"])
    if frame.empty:
        return {}
    out = majority_labels(frame, orders=label_order())  # the protocols' tie order, whoever imported what
    chosen = AGGREGATED.get()
    if chosen is not None:
        out["majority"] = [chosen.get((lv, int(i)), m) for lv, i, m in zip(
            out["level"].tolist(), out["item_id"].tolist(), out["majority"].tolist(), strict=True)]
    return {
        (level, int(item)): (majority, list(votes))
        for level, item, majority, votes in zip(
            out["level"].tolist(), out["item_id"].tolist(), out["majority"].tolist(), out["votes"].tolist(), strict=True
        )
    }


@lru_cache(maxsize=65_536)
def _pseudonym(project_id: int, provider: str, external_id: str, salt: str) -> str:
    """Worker.pseudonym_in on the worker's columns, once per worker and project (a chunk names the same few
    hundred workers thousands of times)."""
    return Worker(provider=provider, external_id=external_id, pseudonym_salt=salt).pseudonym_in(project_id)


def assignment_workers(assignment_ids: Iterable[int], *, with_platform_ids: bool = False) -> dict[int, str]:
    """{assignment id: the worker's pseudonymous id in the assignment's project} ("W-...|provider:external_id" with
    platform ids): how every export names a voter (services.identity names workers the same way everywhere else).
    Per project: a worker shared by two researchers' projects cannot be matched across their datasets.
    One query of plain values (no model instance per assignment)."""
    ids = set(assignment_ids)
    rows = Assignment.objects.filter(pk__in=id_list(ids)).values_list(
        "pk", "unit__project_id", "worker__provider", "worker__external_id", "worker__pseudonym_salt") if ids else []
    return {
        pk: _pseudonym(project_id, provider, external_id, salt)
        + (f"|{provider}:{external_id}" if with_platform_ids else "")
        for pk, project_id, provider, external_id, salt in rows
    }


def vote_workers(rows: Iterable[tuple[str, int, int, Any]], *, with_platform_ids: bool = False
                 ) -> dict[tuple[str, int], list[str]]:
    """{(level, item id): voters in assignment order} from level_votes rows (level, item, assignment, label): the
    order of majorities' votes, so workers[i] cast votes[i]."""
    rows = sorted(rows, key=itemgetter(0, 1, 2))  # by item, then assignment (C sort; no Python per-row loop)
    names = assignment_workers((r[2] for r in rows), with_platform_ids=with_platform_ids)
    return {(level, int(item)): [names[r[2]] for r in group] for (level, item), group in groupby(rows, itemgetter(0, 1))}


def retest_marks(rows: Iterable[tuple[str, int, int, Any]]) -> dict[tuple[str, int], list[bool]]:
    """{(level, item id): [whether vote i is a retest]} of the items with at least one retest vote: a vote cast
    through a batch the researcher made a test-retest on purpose (Batch.settings.retest), beside the same worker's
    first vote. In the order of majorities' votes and vote_workers' names."""
    rows = list(rows)
    ids = {r[2] for r in rows}
    retest = set(Assignment.objects.filter(pk__in=id_list(ids), unit__batch__settings__retest=True).values_list("pk", flat=True)
                 ) if ids else set()
    if not retest:
        return {}
    by_item: dict[tuple[str, int], list[int]] = {}
    for level, item, a_id, _label in rows:
        by_item.setdefault((level, int(item)), []).append(a_id)
    return {key: [a in retest for a in sorted(a_ids)] for key, a_ids in by_item.items() if retest & set(a_ids)}
