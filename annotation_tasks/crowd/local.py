"""The local provider: our own annotators, with our database as the "platform".

There is nothing to pay and nobody else to tell, so platform calls are no-ops; the services record status,
qualifications and blocks on our own rows for every provider, which is all the local platform needs.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal

from annotation_tasks.crowd.base import (
    CostEstimate,
    CrowdProvider,
    EntryCheck,
    EntryContext,
    EntryVerdict,
    SubmissionRecord,
    SubmissionStatus,
    money,
)
from annotation_tasks.crowd.entry import read_local_worker_param, unit_entry_url

LOCAL_REF_PREFIX = "local-"
# Our assignment statuses a platform would report (their values are the same words).
_REPORTED = (SubmissionStatus.SUBMITTED, SubmissionStatus.APPROVED, SubmissionStatus.REJECTED, SubmissionStatus.RETURNED)


class LocalProvider(CrowdProvider):
    name = "local"

    def __init__(self, **_options) -> None:
        pass

    def parse_entry(self, query: Mapping[str, str]) -> EntryContext | None:
        """A signed `worker` parameter from a link we issued, or `preview=1` (the links `publish` prints: the unit
        as a worker will see it, nothing can be saved); the logged-in path is the work pages' business."""
        if query.get("preview") == "1" and not query.get("worker"):
            return EntryContext(worker_external_id="", preview=True)
        value = query.get("worker", "")
        external_id = read_local_worker_param(value) if value else None
        if external_id is None:
            return None
        return EntryContext(worker_external_id=external_id)

    def verify_entry(self, unit, context: EntryContext) -> EntryCheck:
        """Our own signed link vouches for the worker (parse_entry checked its signature)."""
        return EntryCheck(EntryVerdict.VERIFIED)

    def estimate_cost(self, units: int, assignments_per_unit: int, reward: Decimal) -> CostEstimate:
        total = money(Decimal(units * assignments_per_unit) * money(reward))
        return CostEstimate(units, assignments_per_unit, money(reward), money(0), total)

    def account_balance(self) -> Decimal | None:
        return None  # nothing to spend from

    def publish(self, batch, units: Iterable, *, reward: Decimal, assignments_per_unit: int, **options) -> list[str]:
        # Publishing locally only makes the units visible to the queue; the ref is stable, so retries agree.
        return [f"{LOCAL_REF_PREFIX}{unit.pk}" for unit in units]

    def preview_url(self, unit) -> str:
        return unit_entry_url(unit, self.name, preview="1")

    def list_submissions(self, batch) -> Iterable[SubmissionRecord]:
        from annotation_tasks.models.work import Assignment

        rows = (
            Assignment.objects.filter(unit__batch=batch, status__in=[s.value for s in _REPORTED])
            .select_related("worker", "unit")
            .order_by("id")
        )
        for a in rows:
            yield SubmissionRecord(
                provider_assignment_id=a.provider_assignment_id or f"{LOCAL_REF_PREFIX}a{a.pk}",
                worker_external_id=a.worker.external_id,
                unit_ref=a.unit.provider_ref or f"{LOCAL_REF_PREFIX}{a.unit_id}",
                status=SubmissionStatus(a.status),
                submitted_at=a.submitted_at.isoformat() if a.submitted_at else None,
            )

    def approve(self, assignment, feedback: str = "") -> None:
        pass

    def reject(self, assignment, feedback: str) -> None:
        pass

    def bonus(self, assignment, amount: Decimal, reason: str, request_token: str) -> None:
        pass  # paid outside FactCrowd; the decision log is the record

    def block(self, worker, reason: str) -> None:
        pass

    def unblock(self, worker, reason: str) -> None:
        pass

    def grant_qualification(self, worker, qualification: str, value: int = 1) -> None:
        pass

    def revoke_qualification(self, worker, qualification: str, reason: str = "") -> None:
        pass

    def close(self, batch) -> None:
        pass
