"""The labels of every protocol's levels as JSON lines: one line per labelled item of each level.

A protocol's own format (the QASem release, the FActScore schema, the QA JSONL) stays its own module; this one
reads nothing but the label levels the protocols declare (LabelLevel: items, label rows, label names), so a new
protocol's labels are exportable the day it is registered (the entailment worked example, docs/protocols.md).
Each line: level, item_type, item_id, response (external id), text (when the item has one), votes (labels in
assignment order), majority (the analysis's tie rule, or the chosen aggregation's label) and adjudication (the
expert's decision with its provenance, or null).
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from annotation_tasks.exporters.base import id_list, level_votes, majorities
from annotation_tasks.models import AdjudicatedLabel, Project
from annotation_tasks.protocols import label_levels

ITEMS_PER_CHUNK = 2_000  # items (and their votes) a chunk: few round trips, a few MB held


def export_lines(project: Project, *, chunk_size: int = ITEMS_PER_CHUNK) -> Iterator[str]:
    """One JSON line (no newline) per (level, item) with counted labels or a decision, levels in registry order,
    items in id order."""
    for level in label_levels():
        model = level.items(project).model
        fields = ["id", "response__external_id", *(["text"] if any(f.name == "text" for f in model._meta.fields) else [])]
        rows = level.items(project).order_by("id").values_list(*fields)
        chunk: list[tuple] = []
        for row in rows.iterator(chunk_size=chunk_size):
            chunk.append(row)
            if len(chunk) >= chunk_size:
                yield from _lines(level.name, level.item_type, chunk)
                chunk = []
        if chunk:
            yield from _lines(level.name, level.item_type, chunk)


def _lines(level: str, item_type: str, items: list[tuple]) -> Iterator[str]:
    ids = [row[0] for row in items]
    votes = majorities(level_votes(level, ids))
    decided = AdjudicatedLabel.of_items(level, id_list(ids), item_type)
    for row in items:
        item_id = row[0]
        got = votes.get((level, item_id))
        adjudication = decided.get(item_id)
        if got is None and adjudication is None:
            continue
        record: dict[str, Any] = {"level": level, "item_type": item_type, "item_id": item_id, "response": row[1]}
        if len(row) > 2:
            record["text"] = row[2]
        record["votes"] = list(got[1]) if got else []
        record["majority"] = got[0] if got else None
        record["adjudication"] = adjudication.provenance() if adjudication else None
        yield json.dumps(record, ensure_ascii=False)
