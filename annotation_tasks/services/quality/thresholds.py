"""What the policy decides by itself from the metrics: worker states by gold accuracy, and approval of
submitted work (good gold accuracy, or enough days after submission)."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.utils import timezone

from annotation_tasks.crowd import CrowdProvider
from annotation_tasks.models import Assignment, Batch, Project, QualityDecision, Worker
from annotation_tasks.services.quality.decisions import (
    approve,
    block,
    grant_qualification,
    soft_block,
    standing,
    warn,
)
from annotation_tasks.services.quality.metrics import WorkerMetrics, worker_metrics
from annotation_tasks.services.quality.policy import policy_for


def _threshold_decision(worker: Worker, project: Project, m: WorkerMetrics, policy: dict,
                        provider: CrowdProvider | None) -> QualityDecision | None:
    """The one change of state the worker's gold accuracy in `project` calls for, decided there (and logged),
    or None."""
    name, metrics, acc = policy["qualification"], m.as_dict(), m.gold_accuracy
    if acc is None:
        return None
    here = standing(worker, project)
    if here.status == Worker.Status.BLOCKED:
        return None  # a person decided; thresholds do not undo that
    if acc < float(policy["soft_block_accuracy"]):
        if here.status == Worker.Status.SOFT_BLOCKED:
            return None
        reason = f"gold accuracy {acc:.2f} < {policy['soft_block_accuracy']} on {m.gold_total} gold items"
        if policy.get("platform_block"):
            return block(worker, reason, project=project, platform=True, metrics=metrics, provider=provider)
        return soft_block(worker, reason, project=project, metrics=metrics, qualification=name, provider=provider)
    if acc < float(policy["warn_accuracy"]):
        if here.status in (Worker.Status.WARNED, Worker.Status.SOFT_BLOCKED):
            return None
        return warn(worker, f"gold accuracy {acc:.2f} < {policy['warn_accuracy']}", project=project, metrics=metrics)
    if acc >= float(policy["qualify_accuracy"]) and name not in (here.qualifications or {}):
        return grant_qualification(
            worker, name, 1, project=project, action=QualityDecision.Action.QUALIFY, metrics=metrics,
            provider=provider,
            status=Worker.Status.ACTIVE,
            reason=f"gold accuracy {acc:.2f} >= {policy['qualify_accuracy']} on {m.gold_total} gold items",
        )
    return None


def evaluate_workers(project: Project, *, batch: Batch | None = None, provider: CrowdProvider | None = None,
                     workers: Iterable[Worker] | None = None) -> list[QualityDecision]:
    """Qualify, warn or soft-block workers by gold accuracy; only changes of state are decided (and logged)."""
    policy = policy_for(batch or project)
    decisions: list[QualityDecision] = []
    for m in worker_metrics(project, workers).values():
        if m.gold_total < int(policy["min_gold_items"]) or m.gold_accuracy is None:
            continue
        decision = _threshold_decision(Worker.objects.get(pk=m.worker_id), project, m, policy, provider)
        if decision is not None:
            decisions.append(decision)
    return decisions


def apply_approval_policy(batch: Batch, *, now=None, provider: CrowdProvider | None = None) -> dict:
    """Approve submitted work when the worker's gold accuracy is high enough, or after N days regardless.

    Only work that counts (Assignment.counted_q): what its platform has not vouched for waits, however old,
    until a sync verifies it (or a person decides)."""
    policy = policy_for(batch)
    now = now or timezone.now()
    in_batch = Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED)
    submitted = list(in_batch.filter(Assignment.counted_q()).select_related("worker"))
    unverified = in_batch.exclude(Assignment.counted_q()).count()
    if not submitted:
        return {"approved": 0, "waiting": 0, "unverified": unverified}
    metrics = worker_metrics(batch.project, {a.worker for a in submitted})
    cutoff = now - timedelta(days=float(policy["auto_approve_days"]))
    approved = waiting = 0
    for a in submitted:
        m = metrics.get(a.worker_id)
        accuracy = m.gold_accuracy if m is not None and m.gold_total >= int(policy["min_gold_items"]) else None
        if accuracy is not None and accuracy >= float(policy["auto_approve_gold_accuracy"]):
            reason = f"gold accuracy {accuracy:.2f} >= {policy['auto_approve_gold_accuracy']}"
        elif a.submitted_at and a.submitted_at <= cutoff:
            reason = f"auto-approved {policy['auto_approve_days']} days after submission"
        else:
            waiting += 1
            continue
        approve(a, reason=reason, metrics=m.as_dict() if m else {}, provider=provider)
        approved += 1
    return {"approved": approved, "waiting": waiting, "unverified": unverified}
