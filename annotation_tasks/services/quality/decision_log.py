"""The decision log: every platform action is a QualityDecision recorded *before* the platform is called.

Each decision carries a deterministic request token: a crash or retry finds the open row and repeats the call
with the same token, and a decision already done is never done twice. A claim (one conditional UPDATE) keeps
two processes from calling the platform for the same decision at once.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotation_tasks.crowd import CrowdProvider, get_provider
from annotation_tasks.models import Assignment, Project, QualityDecision, Worker

Status = QualityDecision.Status
CLAIM_LEASE = timedelta(minutes=10)


class QualityError(Exception):
    """A decision cannot be made or reversed (e.g. a paid bonus cannot be taken back)."""


class DecisionInProgress(QualityError):
    """Another process is carrying out the same decision right now; try again later."""


def provider_of(worker: Worker, provider: CrowdProvider | None) -> CrowdProvider:
    return provider or get_provider(worker.provider)


def _claim(decision: QualityDecision) -> bool:
    """Atomically take the right to call the platform for this decision (one conditional UPDATE, any database).

    A row is claimable when recorded but not attempted (pending), after a failure, or when a claim is older
    than CLAIM_LEASE (its process died mid-call); a live claim by another process is never taken over.
    """
    stale = timezone.now() - CLAIM_LEASE
    claimable = Q(status__in=[Status.PENDING, Status.FAILED]) | Q(status=Status.CALLING, created_at__lt=stale)
    return QualityDecision.objects.filter(pk=decision.pk).filter(claimable).update(status=Status.CALLING) == 1


def _record(worker: Worker, action: str, reason: str, token: str, assignment: Assignment | None,
            metrics: dict | None, amount: Decimal | None, reverses: QualityDecision | None,
            project: Project | None = None) -> QualityDecision:
    """The decision with this token: the existing row, or a new pending one (a concurrent insert wins).
    Its project is the assignment's, else the one given (worker decisions apply in one project)."""
    decision = QualityDecision.objects.filter(request_token=token).first()
    if decision is not None:
        return decision
    project_id = assignment.unit.project_id if assignment is not None else (project.pk if project else None)
    try:
        with transaction.atomic():
            return QualityDecision.objects.create(
                worker=worker, assignment=assignment, action=action, reason=reason, metrics=metrics or {},
                amount=amount, request_token=token, status=Status.PENDING, reverses=reverses, project_id=project_id,
            )
    except IntegrityError:  # a concurrent attempt recorded it first
        return QualityDecision.objects.get(request_token=token)


def decide(
    *,
    worker: Worker,
    action: str,
    reason: str,
    token: str,
    call: Callable[[str], object],
    assignment: Assignment | None = None,
    metrics: dict | None = None,
    amount: Decimal | None = None,
    reverses: QualityDecision | None = None,
    on_done: Callable[[], None] | None = None,
    done_on_platform: Callable[[], bool] | None = None,
    project: Project | None = None,
) -> QualityDecision:
    """Record the intent, claim it, call the platform, mark it done. A done decision with this token is a no-op.

    Statuses: pending (recorded), calling (a process is talking to the platform), done, failed (retry with
    the same token), reversed. The unique request token makes the row, and so the platform call, happen once.
    A decision tried before (failed, or a claim whose process died) may have gone through on the platform, and
    platforms forget request tokens (MTurk after 24 hours; Prolific has none for payments): before calling
    again, `done_on_platform` reads the platform's state back, and a call found done is not repeated.
    """
    decision = _record(worker, action, reason, token, assignment, metrics, amount, reverses, project)
    if decision.status in Status.settled():
        return decision
    tried_before = decision.status != Status.PENDING
    if not _claim(decision):
        decision.refresh_from_db()
        if decision.status in Status.settled():
            return decision
        raise DecisionInProgress(f"decision {decision.pk} ({action}) is being carried out by another process")
    try:
        if tried_before and done_on_platform is not None and done_on_platform():
            decision.metrics = {**decision.metrics, "found_done_on_platform": timezone.now().isoformat()}
            decision.save(update_fields=["metrics"])
        else:
            call(token)
    except Exception as exc:
        decision.status = Status.FAILED
        decision.metrics = {**decision.metrics, "error": str(exc)[:500]}
        decision.save(update_fields=["status", "metrics"])
        raise
    with transaction.atomic():
        decision.status = Status.DONE
        decision.save(update_fields=["status"])
        if on_done is not None:
            on_done()
        if reverses is not None:
            reverses.status = Status.REVERSED
            reverses.save(update_fields=["status"])
    return decision
