"""Django's PostgreSQL backend with a health check that asks the socket before it asks the server.

With persistent connections and CONN_HEALTH_CHECKS (backend/settings.py), Django checks the connection at the
start of every request that reuses it by sending `SELECT 1`: one more round trip on every annotator request
(about a tenth of the web's CPU per request on the hot path, bench/bench_load.py). A connection the server has
closed (a PostgreSQL restart or a terminated backend) is always readable while it is idle: the server sends its
FATAL message, or the kernel the end of the stream. So a zero-timeout poll of the socket answers "usable" when
nothing is waiting there, and only a readable idle connection (or one not idle) is checked with `SELECT 1`.

Its operations also cap a batch at psycopg's 65,535 parameters a statement: Django leaves PostgreSQL's batches
unbounded, so deleting a project of 30,000 units (the cascade's `unit_id IN (...)` over every assignment) or a
bulk_create of that many rows failed with "number of parameters must be between 0 and 65535".
"""
from __future__ import annotations

import select

from django.db.backends.postgresql import base, operations
from psycopg import pq

MAX_PARAMETERS = 65_535  # the protocol's limit on a statement's parameters (an Int16 count)


class DatabaseOperations(operations.DatabaseOperations):
    def bulk_batch_size(self, fields, objs) -> int:
        """Rows a batch may hold so that it stays within MAX_PARAMETERS (one per field and row)."""
        return max(1, min(len(objs), MAX_PARAMETERS // max(1, len(fields))))


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed:
            return False
        if connection.pgconn.transaction_status == pq.TransactionStatus.IDLE:
            try:
                readable, _, _ = select.select([connection.fileno()], [], [], 0)
            except (OSError, ValueError):
                return False
            if not readable:
                return True
        return super().is_usable()
