"""The quality decisions: approve, reject, bonus (per assignment); qualify, warn, block... (per worker).

Each goes through the decision log (decision_log.decide), so it happens once however often it is retried.
Decisions can be reversed; the reversal is a new decision that points at the old one, so the log is never
rewritten. A worker row is shared by every researcher whose projects the worker joins, so worker decisions
apply in one project (WorkerProjectStatus) and are logged there (QualityDecision.project). Soft blocks take a qualification away (the worker stops seeing our work); a platform block only
when asked.
"""
from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from django.utils import timezone

from annotation_tasks.crowd import CrowdProvider
from annotation_tasks.crowd.base import money, request_token
from annotation_tasks.models import Assignment, Project, QualityDecision, Worker, WorkerProjectStatus
from annotation_tasks.services.quality.decision_log import QualityError, decide, provider_of
from annotation_tasks.services.quality.policy import DEFAULT_POLICY

Action = QualityDecision.Action
UNWARN = "unwarn"  # the reversal of a warning: logged like an action, never chosen by a person


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

    return decide(
        worker=worker, assignment=assignment, action=Action.APPROVE, reason=reason, metrics=metrics,
        reverses=reverses, token=request_token(Action.APPROVE, assignment.pk, assignment.provider_assignment_id),
        call=lambda _t: provider_of(worker, provider).approve(assignment, feedback),
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

    return decide(
        worker=worker, assignment=assignment, action=Action.REJECT, reason=reason or feedback, metrics=metrics,
        token=request_token(Action.REJECT, assignment.pk, assignment.provider_assignment_id),
        call=lambda _t: provider_of(worker, provider).reject(assignment, feedback),
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

    def paid_on_platform() -> bool:
        """More payments of this amount on the platform than our log has done: the earlier try went through."""
        paid = provider_of(worker, provider).bonus_payments(assignment)
        if paid is None:
            return False
        done_here = QualityDecision.objects.filter(
            assignment=assignment, action=Action.BONUS, amount=amount, status=QualityDecision.Status.DONE
        ).count()
        return sum(1 for p in paid if money(p) == amount) > done_here

    return decide(
        worker=worker, assignment=assignment, action=Action.BONUS, reason=reason, amount=amount,
        token=request_token(Action.BONUS, assignment.pk, amount, key),
        call=lambda token: provider_of(worker, provider).bonus(assignment, amount, reason, token),
        on_done=done, done_on_platform=paid_on_platform,
    )


def standing(worker: Worker, project: Project) -> WorkerProjectStatus:
    """The worker's status and qualifications in `project` (a row only once something was decided there)."""
    row = WorkerProjectStatus.objects.filter(worker=worker, project=project).first()
    return row or WorkerProjectStatus(worker=worker, project=project)


def blocked_in(worker: Worker, project: Project | int) -> bool:
    """Whether a decision in this project keeps the worker from its units (blocks elsewhere do not count)."""
    return WorkerProjectStatus.blocks(worker, project if isinstance(project, int) else project.pk)


def _set_standing(worker: Worker, project: Project, *, status: str | None = None,
                  qualifications: dict | None = None) -> None:
    row, _ = WorkerProjectStatus.objects.get_or_create(worker=worker, project=project)
    if status is not None:
        row.status = status
    if qualifications is not None:
        row.qualifications = qualifications
    row.save(update_fields=["status", "qualifications", "updated_at"])


def _worker_decision(worker: Worker, project: Project, action: str, reason: str, call: Callable[[str], object], *,
                     status: str | None = None, qualifications: dict | None = None, metrics: dict | None = None,
                     reverses: QualityDecision | None = None) -> QualityDecision:
    """Worker-level decisions apply in one project and keep the previous state there in metrics, so that
    reversing can restore it."""
    current = standing(worker, project)
    previous = {"previous_status": current.status, "previous_qualifications": dict(current.qualifications or {})}
    # Each new worker decision gets its own token (the count of earlier ones), so that qualify → soft_block →
    # qualify again are three decisions, while a retry of an open one reuses the open row.
    mine = QualityDecision.objects.filter(worker=worker, project=project)
    pending = mine.filter(action=action, status__in=QualityDecision.Status.open()).first()
    token = pending.request_token if pending else request_token(
        action, worker.pk, project.pk, mine.count(), timezone.now().isoformat()
    )
    return decide(
        worker=worker, action=action, reason=reason, token=token, call=call, reverses=reverses, project=project,
        metrics={**previous, **(metrics or {})},
        on_done=lambda: _set_standing(worker, project, status=status, qualifications=qualifications),
    )


def grant_qualification(worker: Worker, name: str, value: int = 1, *, project: Project, reason: str = "",
                        metrics: dict | None = None, action: str = Action.GRANT_QUALIFICATION,
                        provider: CrowdProvider | None = None, reverses: QualityDecision | None = None,
                        status: str | None = None) -> QualityDecision:
    quals = {**(standing(worker, project).qualifications or {}), name: value}
    return _worker_decision(
        worker, project, action, reason or f"granted {name}={value}",
        lambda _t: provider_of(worker, provider).grant_qualification(worker, name, value),
        qualifications=quals, metrics=metrics, reverses=reverses, status=status,
    )


def revoke_qualification(worker: Worker, name: str, *, project: Project, reason: str = "",
                         metrics: dict | None = None, action: str = Action.REVOKE_QUALIFICATION,
                         status: str | None = None, provider: CrowdProvider | None = None,
                         reverses: QualityDecision | None = None) -> QualityDecision:
    quals = {k: v for k, v in (standing(worker, project).qualifications or {}).items() if k != name}
    return _worker_decision(
        worker, project, action, reason or f"revoked {name}",
        lambda _t: provider_of(worker, provider).revoke_qualification(worker, name, reason),
        qualifications=quals, status=status, metrics=metrics, reverses=reverses,
    )


def warn(worker: Worker, reason: str, *, project: Project, metrics: dict | None = None) -> QualityDecision:
    return _worker_decision(worker, project, Action.WARN, reason, lambda _t: None, status=Worker.Status.WARNED,
                            metrics=metrics)


def block(worker: Worker, reason: str, *, project: Project, platform: bool = False, metrics: dict | None = None,
          provider: CrowdProvider | None = None, reverses: QualityDecision | None = None) -> QualityDecision:
    """Block in this project: our pages and queue refuse the worker here, and nowhere else. With `platform`, also
    on the platform, where a block is the requester account's (MTurk, Prolific): every project on that account
    loses the worker, so it is asked for explicitly."""
    def call(_token: str) -> None:
        if platform:
            provider_of(worker, provider).block(worker, reason)

    return _worker_decision(
        worker, project, Action.BLOCK, reason, call, status=Worker.Status.BLOCKED,
        metrics={**(metrics or {}), "platform": platform}, reverses=reverses,
    )


def _blocked_on_platform(worker: Worker, project: Project) -> bool:
    """Whether this project's standing block of the worker was also a platform block."""
    last = QualityDecision.objects.filter(worker=worker, project=project, action=Action.BLOCK,
                                          status=QualityDecision.Status.DONE).order_by("-created_at", "-id").first()
    return bool(last and last.metrics.get("platform"))


def unblock(worker: Worker, reason: str, *, project: Project, provider: CrowdProvider | None = None,
            reverses: QualityDecision | None = None, status: str = Worker.Status.ACTIVE) -> QualityDecision:
    """Lift this project's block (and the platform block, when that block was one)."""
    platform = _blocked_on_platform(worker, project)

    def call(_token: str) -> None:
        if platform:
            provider_of(worker, provider).unblock(worker, reason)

    return _worker_decision(worker, project, Action.UNBLOCK, reason, call, status=status, reverses=reverses,
                            metrics={"platform": platform})


def soft_block(worker: Worker, reason: str, *, project: Project, metrics: dict | None = None,
               qualification: str | None = None, provider: CrowdProvider | None = None) -> QualityDecision:
    """Take our qualification away: the worker no longer sees this project's work, and nothing else changes."""
    name = qualification or DEFAULT_POLICY["qualification"]
    return revoke_qualification(
        worker, name, project=project, reason=reason, metrics=metrics, action=Action.SOFT_BLOCK,
        status=Worker.Status.SOFT_BLOCKED, provider=provider,
    )


def reverse_decision(decision: QualityDecision, reason: str, *, provider: CrowdProvider | None = None) -> QualityDecision:
    """Undo a decision with a new, logged one in the same project; the old one is marked reversed."""
    if decision.status != QualityDecision.Status.DONE:
        raise QualityError(f"decision {decision.pk} is {decision.status}; only done decisions can be reversed")
    worker = Worker.objects.get(pk=decision.worker_id)
    action, why = decision.action, f"reversal: {reason}"
    if action == Action.REJECT:
        return approve(decision.assignment, reason=why, reverses=decision, provider=provider)
    if action in (Action.APPROVE, Action.BONUS):
        raise QualityError(f"a done {action} cannot be reversed: the platform has paid")
    project = decision.project
    if project is None:
        raise QualityError(f"decision {decision.pk} names no project; decide again in the project instead")
    previous_status = decision.metrics.get("previous_status", Worker.Status.ACTIVE)
    previous_quals = decision.metrics.get("previous_qualifications", {})
    quals = standing(worker, project).qualifications or {}
    if action in (Action.GRANT_QUALIFICATION, Action.QUALIFY):
        name = next((k for k in quals if k not in previous_quals), DEFAULT_POLICY["qualification"])
        return revoke_qualification(worker, name, project=project, reason=why, reverses=decision, provider=provider,
                                    status=previous_status)
    if action in (Action.REVOKE_QUALIFICATION, Action.SOFT_BLOCK):
        restored = {k: v for k, v in previous_quals.items() if k not in quals}
        name, value = next(iter(restored.items()), (DEFAULT_POLICY["qualification"], 1))
        return grant_qualification(worker, name, value, project=project, reason=why, reverses=decision,
                                   provider=provider, action=Action.GRANT_QUALIFICATION, status=previous_status)
    if action == Action.BLOCK:
        return unblock(worker, why, project=project, reverses=decision, provider=provider, status=previous_status)
    if action == Action.UNBLOCK:
        return block(worker, why, project=project, platform=bool(decision.metrics.get("platform")), reverses=decision,
                     provider=provider)
    if action == Action.WARN:
        return _worker_decision(worker, project, UNWARN, why, lambda _t: None, status=previous_status,
                                reverses=decision)
    raise QualityError(f"no reversal known for {action!r}")
