"""An exported item's `adjudication` (AdjudicatedLabel.provenance()) read back, so export then import keeps the
expert's decision as a decision (the report and every other export see it), not as an opaque extra key.

The decider is kept by name (`decided_by_name`): the account that decided may not exist where the file is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation_tasks.importers.base import Where, check_type
from annotation_tasks.models import AdjudicatedLabel, Project

KEYS = ("label", "reason", "decided_by", "decided_at", "version", "majority_at_decision", "votes_at_decision")


@dataclass(frozen=True)
class Decision:
    label: str
    reason: str
    decided_by: str | None
    decided_at: datetime
    version: int
    majority: str | None
    votes: list[str]


def parse(obj: Any, where: Where, labels: tuple[str, ...]) -> Decision:
    """The provenance object of one item, every field checked (errors name it)."""
    check_type(obj, where, dict)
    unknown = [k for k in obj if k not in KEYS]
    if unknown:
        raise where.child(unknown[0]).error(f"unexpected field (an adjudication has {', '.join(KEYS)})")
    label = obj.get("label")
    if label not in labels:
        raise where.child("label").error(f"unknown label {label!r} (expected one of {', '.join(labels)})")
    reason = obj.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise where.child("reason").error("an adjudication keeps its reason: expected non-empty text")
    decided_by = obj.get("decided_by")
    if decided_by is not None and (not isinstance(decided_by, str) or len(decided_by) > 150):
        raise where.child("decided_by").error("expected a name of at most 150 characters, or null")
    try:
        decided_at = datetime.fromisoformat(check_type(obj.get("decided_at"), where.child("decided_at"), str))
    except ValueError as exc:
        raise where.child("decided_at").error("expected an ISO 8601 date and time") from exc
    version = obj.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise where.child("version").error("expected a positive integer")
    majority = obj.get("majority_at_decision")
    if majority is not None and majority not in labels:
        raise where.child("majority_at_decision").error(f"unknown label {majority!r}")
    votes = obj.get("votes_at_decision") or []
    check_type(votes, where.child("votes_at_decision"), list)
    for i, v in enumerate(votes):
        if v not in labels:
            raise where.child("votes_at_decision").child(i).error(f"unknown label {v!r}")
    return Decision(label, reason.strip(), decided_by, decided_at, version, majority, list(votes))


def row(project: Project, level: str, decision: Decision, **target: Any) -> AdjudicatedLabel:
    """The unsaved AdjudicatedLabel of an imported decision on `target` (span= / qa= / fact=)."""
    return AdjudicatedLabel(
        project=project, level=level, value=decision.label, reason=decision.reason,
        decided_by_name=decision.decided_by or "", decided_at=decision.decided_at, version=decision.version,
        majority=decision.majority or "", votes=[{"label": v} for v in decision.votes], **target,
    )
