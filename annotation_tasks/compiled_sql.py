"""SQL the ORM compiled once per process, run again with new values: for the annotator's hot path.

A neutral module (like signing.py): services and protocols both use it, and protocols may not import services.
"""
from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db import connections

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1  # the widest integer column (BigAutoField ids)


class OrmSql:
    """A query's SQL as the ORM writes it, built once per process and database, then run with new values.

    On the annotator's hot path Django spent more CPU building and compiling `next`'s queries than PostgreSQL
    spent running them. The SQL here is the ORM's own (same joins, filters, ordering, limit), compiled from the
    queryset `build(**stand_ins)` returns, where each changing value is a stand-in integer, string or datetime
    (a datetime stays one only where the backend passes it as is: PostgreSQL; SQLite's text form is not found, so
    there the queryset is built each time); each call
    swaps the real values in for the stand-ins' parameters. A value the compiler wrote into the SQL text
    instead of a parameter would make the stand-ins unfindable: then the queryset is built and run each time.
    `build` returns a values_list queryset; its rows come back as the ORM gives them (the fields' converters
    applied: datetimes, JSON, booleans on SQLite)."""

    def __init__(self, build, **kinds: type) -> None:
        self.build = build
        self.kinds = kinds  # name -> int, str or datetime
        self._compiled: dict[str, tuple[str, list[tuple[str | None, Any]], dict] | None] = {}

    def _stand_ins(self) -> dict[str, Any]:
        def stand_in(i: int, kind: type) -> Any:
            if kind is int:
                return -7_310_000_000 - i
            if kind is datetime:
                return datetime(1901, 2, 3, 4, 5, 6, 7310 + i, tzinfo=UTC)
            return f"\x01stand-in-{i}\x01"

        return {name: stand_in(i, kind) for i, (name, kind) in enumerate(self.kinds.items())}

    def _compile(self, alias: str):
        stand_ins = self._stand_ins()
        by_value = {v: k for k, v in stand_ins.items()}
        try:
            compiler = self.build(**stand_ins).query.get_compiler(using=alias)
            sql, params = compiler.as_sql()
        except (TypeError, ValueError):  # a stand-in the queryset refuses (a slice bound, say): no compiled SQL
            return None
        # what results_iter applies to each row: {column: (converters, expression)}
        converters = compiler.get_converters([col for col, _, _ in compiler.select[: compiler.col_count]])
        slots = [(by_value.get(p) if isinstance(p, int | str | datetime) and not isinstance(p, bool) else None, p)
                 for p in params]
        found = {name for name, _ in slots if name}
        return (sql, slots, converters) if found == set(stand_ins) else None

    @staticmethod
    def fits(values: dict[str, Any]) -> bool:
        """False for an integer past 64 bits (a stranger's id): SQLite's driver raises OverflowError on it, while
        the ORM answers a lookup of it with no row, so such a call takes the queryset and gets the ORM's answer."""
        return all(type(v) is not int or _INT64_MIN <= v <= _INT64_MAX for v in values.values())

    def rows(self, **values: Any) -> list[tuple]:
        alias = "default"
        if alias not in self._compiled:
            self._compiled[alias] = self._compile(alias)
        compiled = self._compiled[alias]
        if compiled is None or not self.fits(values):
            return list(self.build(**values))
        sql, slots, converters = compiled
        conn = connections[alias]
        with conn.cursor() as cursor:
            cursor.execute(sql, [values[name] if name else const for name, const in slots])
            rows = cursor.fetchall()
        if not converters:
            return rows
        out = []
        for row in rows:
            row = list(row)
            for pos, (funcs, expression) in converters.items():
                value = row[pos]
                for convert in funcs:
                    value = convert(value, expression, conn)
                row[pos] = value
            out.append(tuple(row))
        return out
