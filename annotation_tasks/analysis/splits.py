"""Deterministic 50/50 dev/test split by source, shared by the report and the exporters."""
from __future__ import annotations

import hashlib


def split_of(source_external_id: object) -> str:
    """'dev' when the sha1 of the source's external id (as text) is even, else 'test'.

    Hashing the source, not the response, keeps every response and label of one source in the same
    split, and sha1 (unlike Python's hash()) gives the same answer on every machine and run.
    """
    digest = hashlib.sha1(str(source_external_id).encode("utf-8")).digest()
    return "dev" if digest[-1] % 2 == 0 else "test"
