"""Quality control: gold mixing, per-worker metrics, thresholds, the approval policy and logged decisions.

Every decision (qualify, warn, soft-block, block, approve, reject, bonus...) is a QualityDecision written
*before* the platform is called, with a deterministic request token: a crash or retry finds the pending row and
repeats the call with the same token, and a decision already done is never done twice. Decisions can be
reversed; the reversal is a new decision that points at the old one, so the log is never rewritten.
Soft blocks take a qualification away (the worker stops seeing our work); a platform block only when asked.
"""
from __future__ import annotations

import logging
import random
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import timedelta
from decimal import Decimal

import pandas as pd
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotation_tasks.crowd import CrowdProvider, get_provider
from annotation_tasks.crowd.base import money, request_token
from annotation_tasks.models import (
    Assignment,
    Batch,
    GoldLabel,
    Project,
    QualityDecision,
    Worker,
)

log = logging.getLogger(__name__)

DEFAULT_POLICY: dict = {
    # gold mixing: more gold while a worker is new, then less
    "gold_rate_initial": 0.5,
    "gold_initial_units": 5,
    "gold_rate": 0.1,
    # thresholds on gold accuracy, once a worker has answered enough gold items
    "min_gold_items": 5,
    "qualify_accuracy": 0.8,
    "warn_accuracy": 0.7,
    "soft_block_accuracy": 0.5,
    "qualification": "factcrowd-qualified",
    "platform_block": False,
    # approval policy
    "auto_approve_days": 3,
    "auto_approve_gold_accuracy": 0.8,
}
WORKER_ACTIONS = {"qualify", "warn", "soft_block", "block", "unblock", "grant_qualification", "revoke_qualification"}
COUNTED = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED)


class QualityError(Exception):
    """A decision cannot be made or reversed (e.g. a paid bonus cannot be taken back)."""


class DecisionInProgress(QualityError):
    """Another process is carrying out the same decision right now; try again later."""


CLAIM_LEASE = timedelta(minutes=10)


def policy_for(target: Batch | Project | None = None) -> dict:
    """Defaults < settings.QUALITY_POLICY < the batch's settings["quality"] (per-batch overrides)."""
    policy = {**DEFAULT_POLICY, **getattr(settings, "QUALITY_POLICY", {})}
    if isinstance(target, Batch):
        policy.update((target.settings or {}).get("quality", {}))
    return policy


def _provider(worker: Worker, provider: CrowdProvider | None) -> CrowdProvider:
    return provider or get_provider(worker.provider)


# -- gold mixing ------------------------------------------------------------------------------
def units_done(worker: Worker, project: Project) -> int:
    return Assignment.objects.filter(worker=worker, unit__project=project, status__in=COUNTED).count()


def gold_rate(worker: Worker, project: Project, policy: dict | None = None) -> float:
    """The probability that the worker's next unit is a gold unit: higher during the first units."""
    policy = policy or policy_for(project)
    if units_done(worker, project) < int(policy["gold_initial_units"]):
        return float(policy["gold_rate_initial"])
    return float(policy["gold_rate"])


def should_serve_gold(worker: Worker, project: Project, rng: random.Random | None = None,
                      policy: dict | None = None) -> bool:
    """Whether the queue should hand this worker a gold unit next (the queue picks which one)."""
    return (rng or random).random() < gold_rate(worker, project, policy)


def gold_first(worker: Worker, project: Project, candidates: Iterable[tuple[int, bool]],
               rng: random.Random | None = None, policy: dict | None = None) -> list[int]:
    """Order queue candidates (unit id, is_gold) for this worker: gold units first when the draw says the next
    unit should be gold, otherwise ordinary units first (gold stays available as a fallback). Order is kept
    within each group, so the queue's own priority (oldest first) still holds."""
    items = list(candidates)
    serve_gold = should_serve_gold(worker, project, rng, policy)
    return [uid for uid, gold in items if gold == serve_gold] + [uid for uid, gold in items if gold != serve_gold]


def gold_source_ids(project: Project) -> set[int]:
    """Sources with at least one gold label (their units test the worker)."""
    ids: set[int] = set()
    for target in ("span", "qa", "fact"):
        ids |= set(
            GoldLabel.objects.filter(**{f"{target}__response__project": project}).values_list(
                f"{target}__response__source_id", flat=True
            )
        )
    return ids


def mix_gold(source_ids: list[int], gold_ids: set[int], n: int, rate: float) -> list[int]:
    """Pick n sources with about `rate` of them gold (a platform batch: HITs are shared, so one batch rate)."""
    gold = [s for s in source_ids if s in gold_ids]
    plain = [s for s in source_ids if s not in gold_ids]
    n_gold = min(len(gold), round(n * rate))
    chosen = gold[:n_gold] + plain[: n - n_gold]
    if len(chosen) < n:  # not enough ordinary sources: fill with more gold
        chosen += gold[n_gold : n_gold + n - len(chosen)]
    return sorted(chosen, key=source_ids.index)


# -- metrics ----------------------------------------------------------------------------------
@dataclass
class WorkerMetrics:
    worker_id: int
    external_id: str
    provider: str
    status: str
    units_done: int = 0
    gold_total: int = 0
    gold_correct: int = 0
    gold_accuracy: float | None = None
    agreement: float | None = None
    agreement_compared: int = 0
    median_time_on_task_ms: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def labels_frame(project: Project) -> pd.DataFrame:
    """The project's labels frame (services.frames, the one place that reads labels for analysis) plus a
    `gold` column: the gold value of the labelled item, or None."""
    from annotation_tasks.services.frames import labels_frame as project_labels

    frame = project_labels(project)[["level", "item_id", "worker_id", "label"]].copy()
    frame["level"] = frame["level"].astype(object)
    frame["label"] = frame["label"].astype(object)
    gold: dict[tuple[str, int], str] = {}
    for level, field_name in (("span", "span_id"), ("qa", "qa_id"), ("fact", "fact_id")):
        target = field_name.removesuffix("_id")
        for item_id, value in GoldLabel.objects.filter(**{f"{target}__response__project": project}).values_list(
            field_name, "value"
        ):
            gold[(level, item_id)] = value
    frame["gold"] = [gold.get((lv, int(i))) for lv, i in zip(frame["level"], frame["item_id"], strict=True)]
    return frame


def worker_metrics(project: Project, workers: Iterable[Worker] | None = None) -> dict[int, WorkerMetrics]:
    """Gold accuracy, agreement with the other workers' majority (per level, pooled), units done, time on task."""
    from annotation_tasks.analysis.agreement import worker_agreement

    qs = Worker.objects.filter(assignments__unit__project=project).distinct() if workers is None else workers
    out = {w.pk: WorkerMetrics(w.pk, w.external_id, w.provider, w.status) for w in qs}
    times: dict[int, list[int]] = defaultdict(list)
    for worker_id, status, ms in Assignment.objects.filter(unit__project=project, worker_id__in=list(out)).values_list(
        "worker_id", "status", "time_on_task_ms"
    ):
        if status in COUNTED:
            out[worker_id].units_done += 1
            if ms:
                times[worker_id].append(ms)
    for worker_id, values in times.items():
        out[worker_id].median_time_on_task_ms = float(statistics.median(values))

    frame = labels_frame(project)
    frame = frame[frame["worker_id"].isin(list(out))]
    if not frame.empty:
        gold = frame[frame["gold"].notna()]
        for worker_id, group in gold.groupby("worker_id"):
            m = out[int(worker_id)]
            m.gold_total = len(group)
            m.gold_correct = int((group["label"] == group["gold"]).sum())
            m.gold_accuracy = m.gold_correct / m.gold_total
        agreed: dict[int, float] = defaultdict(float)
        compared: dict[int, int] = defaultdict(int)
        for _level, group in frame.groupby("level"):
            table = worker_agreement(group[["level", "item_id", "worker_id", "label"]].reset_index(drop=True))
            for row in table.itertuples():
                if row.agreement is not None and row.n_compared:
                    agreed[int(row.worker_id)] += row.agreement * row.n_compared
                    compared[int(row.worker_id)] += int(row.n_compared)
        for worker_id, n in compared.items():
            out[worker_id].agreement = agreed[worker_id] / n
            out[worker_id].agreement_compared = n
    return out


# -- the decision log ---------------------------------------------------------------------------
def _claim(decision: QualityDecision) -> bool:
    """Atomically take the right to call the platform for this decision (one conditional UPDATE, any database).

    A row is claimable when recorded but not attempted (pending), after a failure, or when a claim is older
    than CLAIM_LEASE (its process died mid-call); a live claim by another process is never taken over.
    """
    stale = timezone.now() - CLAIM_LEASE
    claimable = Q(status__in=["pending", "failed"]) | Q(status="calling", created_at__lt=stale)
    return QualityDecision.objects.filter(pk=decision.pk).filter(claimable).update(status="calling") == 1


def _decide(
    *,
    worker: Worker,
    action: str,
    reason: str,
    token: str,
    call,
    assignment: Assignment | None = None,
    metrics: dict | None = None,
    amount: Decimal | None = None,
    reverses: QualityDecision | None = None,
    on_done=None,
) -> QualityDecision:
    """Record the intent, claim it, call the platform, mark it done. A done decision with this token is a no-op.

    Statuses: pending (recorded), calling (a process is talking to the platform), done, failed (retry with
    the same token), reversed. The unique request token makes the row, and so the platform call, happen once.
    """
    decision = QualityDecision.objects.filter(request_token=token).first()
    if decision is None:
        try:
            with transaction.atomic():
                decision = QualityDecision.objects.create(
                    worker=worker,
                    assignment=assignment,
                    action=action,
                    reason=reason,
                    metrics=metrics or {},
                    amount=amount,
                    request_token=token,
                    status="pending",
                    reverses=reverses,
                )
        except IntegrityError:  # a concurrent attempt recorded it first
            decision = QualityDecision.objects.get(request_token=token)
    if decision.status in ("done", "reversed"):
        return decision
    if not _claim(decision):
        decision.refresh_from_db()
        if decision.status in ("done", "reversed"):
            return decision
        raise DecisionInProgress(f"decision {decision.pk} ({action}) is being carried out by another process")
    try:
        call(token)
    except Exception as exc:
        decision.status = "failed"
        decision.metrics = {**decision.metrics, "error": str(exc)[:500]}
        decision.save(update_fields=["status", "metrics"])
        raise
    with transaction.atomic():
        decision.status = "done"
        decision.save(update_fields=["status"])
        if on_done is not None:
            on_done()
        if reverses is not None:
            reverses.status = "reversed"
            reverses.save(update_fields=["status"])
    return decision


def approve(assignment: Assignment, *, reason: str = "approved", feedback: str = "",
            metrics: dict | None = None, provider: CrowdProvider | None = None,
            reverses: QualityDecision | None = None) -> QualityDecision:
    """Approve on the platform (pays the reward) and here; repeating it is a no-op."""
    worker = assignment.worker

    def done() -> None:
        Assignment.objects.filter(pk=assignment.pk).update(
            status=Assignment.Status.APPROVED, reviewed_at=timezone.now(), feedback=feedback or assignment.feedback
        )
        assignment.refresh_from_db()

    return _decide(
        worker=worker, assignment=assignment, action="approve", reason=reason, metrics=metrics, reverses=reverses,
        token=request_token("approve", assignment.pk, assignment.provider_assignment_id),
        call=lambda _t: _provider(worker, provider).approve(assignment, feedback),
        on_done=done,
    )


def reject(assignment: Assignment, feedback: str, *, reason: str = "", metrics: dict | None = None,
           provider: CrowdProvider | None = None) -> QualityDecision:
    """Reject with feedback the worker sees; reversible with reverse_decision (approves after all)."""
    if assignment.status == Assignment.Status.APPROVED:
        raise QualityError(f"assignment {assignment.pk} is approved; platforms cannot reject it any more")
    worker = assignment.worker

    def done() -> None:
        Assignment.objects.filter(pk=assignment.pk).update(
            status=Assignment.Status.REJECTED, reviewed_at=timezone.now(), feedback=feedback
        )
        assignment.refresh_from_db()

    return _decide(
        worker=worker, assignment=assignment, action="reject", reason=reason or feedback, metrics=metrics,
        token=request_token("reject", assignment.pk, assignment.provider_assignment_id),
        call=lambda _t: _provider(worker, provider).reject(assignment, feedback),
        on_done=done,
    )


def pay_bonus(assignment: Assignment, amount: Decimal | str, reason: str, *, key: str = "",
              provider: CrowdProvider | None = None) -> QualityDecision:
    """Pay a bonus once per (assignment, amount, key); the token goes to the platform too (UniqueRequestToken)."""
    amount = money(amount)
    if amount <= 0:
        raise QualityError("a bonus must be positive")
    worker = assignment.worker

    def done() -> None:
        Assignment.objects.filter(pk=assignment.pk).update(bonus_paid=money(assignment.bonus_paid) + amount)
        assignment.refresh_from_db()

    return _decide(
        worker=worker, assignment=assignment, action="bonus", reason=reason, amount=amount,
        token=request_token("bonus", assignment.pk, amount, key),
        call=lambda token: _provider(worker, provider).bonus(assignment, amount, reason, token),
        on_done=done,
    )


def _set_worker(worker: Worker, *, status: str | None = None, qualifications: dict | None = None) -> None:
    if status is not None:
        worker.status = status
    if qualifications is not None:
        worker.qualifications = qualifications
    worker.save(update_fields=["status", "qualifications"])


def _worker_decision(worker: Worker, action: str, reason: str, call, *, status: str | None = None,
                     qualifications: dict | None = None, metrics: dict | None = None,
                     reverses: QualityDecision | None = None) -> QualityDecision:
    """Worker-level decisions keep the previous state in metrics so that reversing can restore it."""
    previous = {"previous_status": worker.status, "previous_qualifications": dict(worker.qualifications or {})}
    # Each new worker decision gets its own token (the count of earlier ones), so that qualify → soft_block →
    # qualify again are three decisions, while a retry of a pending one reuses the pending row.
    pending = QualityDecision.objects.filter(
        worker=worker, action=action, status__in=["pending", "failed", "calling"]
    ).first()
    token = pending.request_token if pending else request_token(
        action, worker.pk, QualityDecision.objects.filter(worker=worker).count(), timezone.now().isoformat()
    )
    return _decide(
        worker=worker, action=action, reason=reason, token=token, call=call, reverses=reverses,
        metrics={**previous, **(metrics or {})},
        on_done=lambda: _set_worker(worker, status=status, qualifications=qualifications),
    )


def grant_qualification(worker: Worker, name: str, value: int = 1, *, reason: str = "", metrics: dict | None = None,
                        action: str = "grant_qualification", provider: CrowdProvider | None = None,
                        reverses: QualityDecision | None = None, status: str | None = None) -> QualityDecision:
    quals = {**(worker.qualifications or {}), name: value}
    return _worker_decision(
        worker, action, reason or f"granted {name}={value}",
        lambda _t: _provider(worker, provider).grant_qualification(worker, name, value),
        qualifications=quals, metrics=metrics, reverses=reverses, status=status,
    )


def revoke_qualification(worker: Worker, name: str, *, reason: str = "", metrics: dict | None = None,
                         action: str = "revoke_qualification", status: str | None = None,
                         provider: CrowdProvider | None = None,
                         reverses: QualityDecision | None = None) -> QualityDecision:
    quals = {k: v for k, v in (worker.qualifications or {}).items() if k != name}
    return _worker_decision(
        worker, action, reason or f"revoked {name}",
        lambda _t: _provider(worker, provider).revoke_qualification(worker, name, reason),
        qualifications=quals, status=status, metrics=metrics, reverses=reverses,
    )


def warn(worker: Worker, reason: str, *, metrics: dict | None = None) -> QualityDecision:
    return _worker_decision(worker, "warn", reason, lambda _t: None, status="warned", metrics=metrics)


def block(worker: Worker, reason: str, *, metrics: dict | None = None,
          provider: CrowdProvider | None = None, reverses: QualityDecision | None = None) -> QualityDecision:
    """A platform block (the worker can no longer work for us anywhere on that platform); use sparingly."""
    return _worker_decision(
        worker, "block", reason, lambda _t: _provider(worker, provider).block(worker, reason),
        status="blocked", metrics=metrics, reverses=reverses,
    )


def unblock(worker: Worker, reason: str, *, provider: CrowdProvider | None = None,
            reverses: QualityDecision | None = None, status: str = "active") -> QualityDecision:
    return _worker_decision(
        worker, "unblock", reason, lambda _t: _provider(worker, provider).unblock(worker, reason),
        status=status, reverses=reverses,
    )


def soft_block(worker: Worker, reason: str, *, metrics: dict | None = None, qualification: str | None = None,
               provider: CrowdProvider | None = None) -> QualityDecision:
    """Take our qualification away: the worker no longer sees our work, and nothing else on the platform changes."""
    name = qualification or DEFAULT_POLICY["qualification"]
    return revoke_qualification(
        worker, name, reason=reason, metrics=metrics, action="soft_block", status="soft_blocked", provider=provider
    )


def reverse_decision(decision: QualityDecision, reason: str, *, provider: CrowdProvider | None = None) -> QualityDecision:
    """Undo a decision with a new, logged one; the old one is marked reversed."""
    if decision.status != "done":
        raise QualityError(f"decision {decision.pk} is {decision.status}; only done decisions can be reversed")
    worker = Worker.objects.get(pk=decision.worker_id)
    previous_status = decision.metrics.get("previous_status", "active")
    previous_quals = decision.metrics.get("previous_qualifications", {})
    action = decision.action
    if action == "reject":
        return approve(decision.assignment, reason=f"reversal: {reason}", reverses=decision, provider=provider)
    if action in ("approve", "bonus"):
        raise QualityError(f"a done {action} cannot be reversed: the platform has paid")
    if action in ("grant_qualification", "qualify"):
        name = next((k for k in worker.qualifications if k not in previous_quals), DEFAULT_POLICY["qualification"])
        return revoke_qualification(worker, name, reason=f"reversal: {reason}", reverses=decision,
                                    provider=provider, status=previous_status)
    if action in ("revoke_qualification", "soft_block"):
        restored = {k: v for k, v in previous_quals.items() if k not in worker.qualifications}
        name, value = next(iter(restored.items()), (DEFAULT_POLICY["qualification"], 1))
        return grant_qualification(worker, name, value, reason=f"reversal: {reason}", reverses=decision,
                                   provider=provider, action="grant_qualification", status=previous_status)
    if action == "block":
        return unblock(worker, f"reversal: {reason}", reverses=decision, provider=provider, status=previous_status)
    if action == "unblock":
        return block(worker, f"reversal: {reason}", reverses=decision, provider=provider)
    if action == "warn":
        return _worker_decision(worker, "unwarn", f"reversal: {reason}", lambda _t: None,
                                status=previous_status, reverses=decision)
    raise QualityError(f"no reversal known for {action!r}")


# -- thresholds ---------------------------------------------------------------------------------
def evaluate_workers(project: Project, *, batch: Batch | None = None, provider: CrowdProvider | None = None,
                     workers: Iterable[Worker] | None = None) -> list[QualityDecision]:
    """Qualify, warn or soft-block workers by gold accuracy; only changes of state are decided (and logged)."""
    policy = policy_for(batch or project)
    name = policy["qualification"]
    decisions: list[QualityDecision] = []
    for m in worker_metrics(project, workers).values():
        if m.gold_total < int(policy["min_gold_items"]) or m.gold_accuracy is None:
            continue
        worker = Worker.objects.get(pk=m.worker_id)
        metrics = m.as_dict()
        acc = m.gold_accuracy
        if worker.status == "blocked":
            continue  # a person decided; thresholds do not undo that
        if acc < float(policy["soft_block_accuracy"]):
            if worker.status != "soft_blocked":
                reason = f"gold accuracy {acc:.2f} < {policy['soft_block_accuracy']} on {m.gold_total} gold items"
                if policy.get("platform_block"):
                    decisions.append(block(worker, reason, metrics=metrics, provider=provider))
                else:
                    decisions.append(soft_block(worker, reason, metrics=metrics, qualification=name, provider=provider))
        elif acc < float(policy["warn_accuracy"]):
            if worker.status not in ("warned", "soft_blocked"):
                decisions.append(warn(worker, f"gold accuracy {acc:.2f} < {policy['warn_accuracy']}", metrics=metrics))
        elif acc >= float(policy["qualify_accuracy"]) and name not in (worker.qualifications or {}):
            decisions.append(grant_qualification(
                worker, name, 1, action="qualify", metrics=metrics, provider=provider, status="active",
                reason=f"gold accuracy {acc:.2f} >= {policy['qualify_accuracy']} on {m.gold_total} gold items",
            ))
    return decisions


def apply_approval_policy(batch: Batch, *, now=None, provider: CrowdProvider | None = None) -> dict:
    """Approve submitted work when the worker's gold accuracy is high enough, or after N days regardless."""
    policy = policy_for(batch)
    now = now or timezone.now()
    submitted = list(
        Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).select_related("worker")
    )
    if not submitted:
        return {"approved": 0, "waiting": 0}
    metrics = worker_metrics(batch.project, {a.worker for a in submitted})
    cutoff = now - timedelta(days=float(policy["auto_approve_days"]))
    approved = waiting = 0
    for a in submitted:
        m = metrics.get(a.worker_id)
        good = (
            m is not None
            and m.gold_accuracy is not None
            and m.gold_total >= int(policy["min_gold_items"])
            and m.gold_accuracy >= float(policy["auto_approve_gold_accuracy"])
        )
        if good:
            reason = f"gold accuracy {m.gold_accuracy:.2f} >= {policy['auto_approve_gold_accuracy']}"
        elif a.submitted_at and a.submitted_at <= cutoff:
            reason = f"auto-approved {policy['auto_approve_days']} days after submission"
        else:
            waiting += 1
            continue
        approve(a, reason=reason, metrics=m.as_dict() if m else {}, provider=provider)
        approved += 1
    return {"approved": approved, "waiting": waiting}
