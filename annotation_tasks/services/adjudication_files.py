"""Adjudication outside the dashboard: the queue written as JSON lines for an expert to fill in offline, and
a file of decisions read back all or nothing.

An expert often adjudicates a few hundred items in a spreadsheet or an editor rather than one by one in the
browser. The queue lines carry what the dashboard's queue shows (key, votes, majority, gold, context) plus
empty `label` and `reason` fields; a line read back needs only level, item_id, (aspect,) label and reason.
Every line is checked by services.adjudication's own parser before anything is written, so a bad line is
reported with its file, line and field and no decision of the file is stored.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from annotation_tasks.models import Project
from annotation_tasks.services import adjudication

MAX_FILE_BYTES = 50 * 1024 * 1024  # decisions are short; a bigger file is a wrong file
MAX_LINE_BYTES = 256 * 1024


class DecisionFileError(ValueError):
    """A decisions file that cannot be applied: each error names file, line and field."""

    def __init__(self, errors: list[dict[str, Any]]):
        shown = "; ".join(f"{e['file']}:{e['line']}: {e['field'] or '(line)'}: {e['message']}" for e in errors[:10])
        more = f" (and {len(errors) - 10} more)" if len(errors) > 10 else ""
        super().__init__(shown + more)
        self.errors = errors


@dataclass(frozen=True)
class DecisionFileResult:
    decided: int
    replaced: int

    def summary(self) -> str:
        return f"{self.decided} decisions stored ({self.replaced} of them replace an earlier decision)"


def queue_lines(project: Project, params: dict[str, Any] | None = None) -> Iterator[str]:
    """The adjudication queue (most disputed first, the dashboard's order) as JSON lines to fill in."""
    for row in adjudication.queue_rows(project, params):
        decided = row["adjudicated"] or {}
        yield json.dumps({
            "level": row["level"], "item_id": row["item_id"], "aspect": row["aspect"],
            "label": decided.get("label", ""), "reason": decided.get("reason", ""),
            "allowed": row["labels"], "majority": row["majority"], "tie": row["tie"], "gold": row["gold"],
            "counts": row["counts"], "votes": [{"worker": v["worker"].get("pseudonym") or v["worker"].get("name"),
                                                "label": v["label"]} for v in row["votes"]],
            "context": row["context"],
        }, ensure_ascii=False)


def _read(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, parsed JSON) of each non-empty line; undecodable lines raise with their line number."""
    name = path.name
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if len(raw) > MAX_LINE_BYTES:
                raise DecisionFileError([{"file": name, "line": number, "field": "",
                                          "message": f"line longer than {MAX_LINE_BYTES} bytes"}])
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise DecisionFileError([{"file": name, "line": number, "field": "",
                                          "message": f"not a JSON line ({exc})"}]) from exc


def apply_decision_file(project: Project, path: str | Path, user: Any) -> DecisionFileResult:
    """Store every decision of a JSONL file as `user`'s, all or nothing.

    Lines that leave `label` empty are skipped (the queue file's undecided items); a target decided twice in
    the file is refused, as one of the two would silently win.
    """
    path = Path(path)
    if not path.is_file():
        raise DecisionFileError([{"file": str(path), "line": 0, "field": "", "message": "no such file"}])
    if path.stat().st_size > MAX_FILE_BYTES:
        raise DecisionFileError([{"file": path.name, "line": 0, "field": "",
                                  "message": f"larger than {MAX_FILE_BYTES} bytes"}])
    errors: list[dict[str, Any]] = []
    wanted: list[tuple[int, dict[str, Any]]] = []
    seen: dict[tuple[str, int, str], int] = {}
    for number, data in _read(path):
        if isinstance(data, dict) and data.get("label") in ("", None) and not data.get("reason"):
            continue  # left undecided
        try:
            clean = adjudication.parse_decision(project, data)
        except adjudication.AdjudicationError as exc:
            errors += [{"file": path.name, "line": number, **e} for e in exc.errors]
            continue
        key = (clean["level"], clean["item_id"], clean["aspect"])
        if key in seen:
            errors.append({"file": path.name, "line": number, "field": "item_id",
                           "message": f"already decided on line {seen[key]}"})
            continue
        seen[key] = number
        wanted.append((number, data))
    if errors:
        raise DecisionFileError(errors)
    if not wanted:
        raise DecisionFileError([{"file": path.name, "line": 0, "field": "label",
                                  "message": "no line has a label: nothing to decide"}])
    replaced = 0
    with transaction.atomic():
        for _number, data in wanted:
            replaced += adjudication.decide(project, data, user).version > 1
    return DecisionFileResult(decided=len(wanted), replaced=replaced)
