"""Publish a batch through a crowd provider, and keep our assignments in step with the platform (sync).

Publishing checks the cost against the balance before anything is spent, asks a caller-supplied confirm(),
rate-limits platform calls, and records each unit's platform reference as soon as it exists, so that a crash
or retry resumes where it stopped (providers also deduplicate with request tokens). Nothing here knows which
platform is used: only the provider's name travels.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from annotation_tasks.crowd import CostEstimate, CrowdProvider, ProviderError, get_provider
from annotation_tasks.crowd.base import FairPayError, InsufficientFunds, SubmissionRecord, SubmissionStatus, money
from annotation_tasks.models import Assignment, Batch, Project, Unit, Worker
from annotation_tasks.services import verification as verifying
from annotation_tasks.services.batches import ensure_publishable, funding_blocker

log = logging.getLogger(__name__)

DEFAULT_PUBLISH_RATE = 5.0  # platform calls per second while publishing many units
LOCAL = "local"  # our own annotators: no platform to call, nothing to verify


class RateLimiter:
    """At most `rate` calls per second (evenly spaced): MTurk throttles bursts of CreateHIT calls."""

    def __init__(self, rate: float, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.interval = 1.0 / rate if rate and rate > 0 else 0.0
        self._clock, self._sleep = clock or time.monotonic, sleep or time.sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self._clock()
            if now < self._next:
                self._sleep(self._next - now)
                now = self._next
            self._next = now + self.interval


def provider_for(batch: Batch, provider_name: str | None = None, **provider_options) -> CrowdProvider:
    return get_provider(provider_name or batch.provider or settings.CROWD_DEFAULT_PROVIDER, **provider_options)


@dataclass
class PublishResult:
    batch: Batch
    estimate: CostEstimate
    balance: Decimal | None
    published: list[Unit] = field(default_factory=list)
    already_published: int = 0
    confirmed: bool = True


def estimate_batch(
    batch: Batch, provider: CrowdProvider, *, reward: Decimal, assignments_per_unit: int
) -> tuple[list[Unit], CostEstimate]:
    pending = list(batch.units.filter(provider_ref="").order_by("id"))
    if provider.batch_study and pending:  # one study: whole places are paid, units_per_place units each
        from dataclasses import replace

        from annotation_tasks.services import sessions

        per_place = sessions.units_per_place(batch)
        places = sessions.study_places(pending, assignments_per_unit, per_place)
        paid = provider.estimate_cost(places * per_place, 1, money(reward))
        return pending, replace(paid, units=len(pending), assignments_per_unit=assignments_per_unit, places=places,
                                units_per_place=per_place)
    return pending, provider.estimate_cost(len(pending), assignments_per_unit, money(reward))


@dataclass
class PublishPlan:
    """What a publish would spend and what the account holds, checked before anything is spent."""

    provider: CrowdProvider
    pending: list[Unit]
    estimate: CostEstimate
    balance: Decimal | None


def check_publish(
    batch: Batch, *, reward: Decimal | str, assignments_per_unit: int, provider: CrowdProvider | None = None,
    check_balance: bool = True,
) -> PublishPlan:
    """The batch's publish rules, then the cost against the balance (one platform call, only with units pending).

    Raises BatchRuleError when a rule blocks, FairPayError when the expected hourly rate is below the platform's
    minimum (services.sessions.hourly_rate), InsufficientFunds when the balance does not cover the cost, and
    ProviderError when the platform cannot be asked.
    """
    ensure_publishable(batch)
    provider = provider or provider_for(batch)
    pending, estimate = estimate_batch(batch, provider, reward=money(reward), assignments_per_unit=assignments_per_unit)
    refusal = provider.publish_refusal() if pending else None
    if refusal is not None:
        raise ProviderError(refusal)
    if pending and provider.minimum_hourly:
        from annotation_tasks.services.sessions import hourly_rate

        rate = hourly_rate(batch, provider, money(reward))
        if rate.below_minimum:
            raise FairPayError(
                f"{provider.name} requires at least {rate.minimum} {rate.currency} per hour (judged on the median "
                f"time); this batch pays {rate.per_hour} {rate.currency} per hour: {rate.describe()}. Raise the "
                f"reward to at least {money(rate.minimum * Decimal(str(rate.seconds_per_unit)) / 3600)} "
                f"{rate.currency} per unit, or pilot the batch to measure its time")
    balance = provider.account_balance() if pending else None
    blocker = funding_blocker(provider.name, estimate, balance) if check_balance else None
    if blocker is not None:
        raise InsufficientFunds(blocker.message)
    return PublishPlan(provider, pending, estimate, balance)


def publish_batch(
    batch: Batch,
    *,
    reward: Decimal | str,
    assignments_per_unit: int,
    provider_name: str | None = None,
    provider: CrowdProvider | None = None,
    confirm: Callable[[CostEstimate, Decimal | None], bool] | None = None,
    check_balance: bool = True,
    rate_per_second: float | None = None,
    limiter: RateLimiter | None = None,
    **options,
) -> PublishResult:
    """Publish the batch's unpublished units; returns what was published (resumes after a partial run).

    Checks first (check_publish): BatchRuleError when the batch's rules block it, InsufficientFunds before any
    spending when the platform balance does not cover the estimate.
    `options` go to the provider (title, durations, qualification requirements...) and are kept in
    batch.settings so that later publishes and syncs see the same configuration.
    """
    provider = provider or provider_for(batch, provider_name)
    reward = money(reward)
    for key in ("estimated_minutes_per_unit", "units_per_place"):  # read by the fair-pay check and the estimate
        if options.get(key):
            batch.settings = {**(batch.settings or {}), key: options[key]}
    plan = check_publish(batch, reward=reward, assignments_per_unit=assignments_per_unit, provider=provider,
                         check_balance=check_balance)
    pending, estimate, balance = plan.pending, plan.estimate, plan.balance
    result = PublishResult(batch, estimate, balance, already_published=batch.units.exclude(provider_ref="").count())
    if not pending:
        return result
    if confirm is not None and not confirm(estimate, balance):
        result.confirmed = False
        return result

    # An earlier attempt may have created platform objects whose answers were lost (and request tokens expire):
    # a resumed publish tells the provider to read its state back before creating anything.
    resuming = bool((batch.settings or {}).get("publish_started_at"))
    batch.provider = provider.name
    batch.settings = {
        **(batch.settings or {}),
        **options,
        "reward": str(reward),
        "assignments_per_unit": int(assignments_per_unit),
        "publish_started_at": (batch.settings or {}).get("publish_started_at") or timezone.now().isoformat(),
    }
    batch.save(update_fields=["provider", "settings"])

    if provider.batch_study:
        _publish_study(batch, provider, pending, reward=reward, assignments_per_unit=assignments_per_unit,
                       resume=resuming, options=options)
        result.published.extend(pending)
        batch.status = Batch.Status.PUBLISHED
        batch.published_at = batch.published_at or timezone.now()
        batch.save(update_fields=["status", "published_at"])
        log.info("published %d units of batch %s as one %s study", len(pending), batch.pk, provider.name)
        return result

    if rate_per_second is None:  # the platforms' limit; nothing to hold back where no platform is called
        rate_per_second = 0.0 if provider.name == LOCAL else getattr(settings, "CROWD_PUBLISH_RATE", DEFAULT_PUBLISH_RATE)
    limiter = limiter or RateLimiter(rate_per_second)
    for unit in pending:
        limiter.wait()
        (ref,) = provider.publish(batch, [unit], reward=reward, assignments_per_unit=assignments_per_unit,
                                  resume=resuming, **options)
        unit.provider_ref = ref
        unit.assignments_wanted = assignments_per_unit
        unit.save(update_fields=["provider_ref", "assignments_wanted"])
        result.published.append(unit)

    batch.status = Batch.Status.PUBLISHED
    batch.published_at = batch.published_at or timezone.now()
    batch.save(update_fields=["status", "published_at"])
    log.info("published %d units of batch %s via %s", len(result.published), batch.pk, provider.name)
    return result


def _publish_study(batch: Batch, provider: CrowdProvider, pending: list[Unit], *, reward: Decimal,
                   assignments_per_unit: int, resume: bool, options: dict) -> None:
    """One study for the batch (services.sessions): places = units x assignments / units per place, rounded up;
    every unit's reference, and the batch's, is the study."""
    from annotation_tasks.services import sessions

    per_place = max(1, int(options.get("units_per_place") or sessions.units_per_place(batch)))
    places = sessions.study_places(pending, assignments_per_unit, per_place)  # training units: every place's first
    study_options = {**options, "units_per_place": per_place, "places": places}
    refs = provider.publish(batch, pending, reward=reward, assignments_per_unit=assignments_per_unit, resume=resume,
                            **study_options)
    ref = refs[0]
    with transaction.atomic():
        Unit.objects.filter(pk__in=[u.pk for u in pending]).update(provider_ref=ref,
                                                                   assignments_wanted=assignments_per_unit)
        batch.provider_ref = ref
        batch.settings = {**(batch.settings or {}), "units_per_place": per_place, "places": places}
        batch.save(update_fields=["provider_ref", "settings"])
    for unit in pending:
        unit.provider_ref, unit.assignments_wanted = ref, assignments_per_unit


def close_batch(batch: Batch, provider: CrowdProvider | None = None) -> None:
    """Expire the batch's open work on the platform and close it here."""
    (provider or provider_for(batch)).close(batch)
    batch.units.filter(status=Unit.Status.OPEN).update(status=Unit.Status.CLOSED)
    batch.status = Batch.Status.CLOSED
    batch.save(update_fields=["status"])


def new_batch(project: Project, *, name: str | None = None, provider_name: str = "local", units: int | None = None,
              assignments_per_unit: int | None = None, gold_rate: float | None = None) -> Batch:
    """A batch of freshly composed units from sources not yet in a batch of this project: exactly `units` of them
    when given (whole sources; services.units.sources_for_units), else every such source's.

    With `units` set, gold sources (those with gold labels) make up about `gold_rate` of the batch
    (default: the quality policy's gold_rate), so every platform batch carries its checks.
    """
    from annotation_tasks.services import quality
    from annotation_tasks.services.units import compose_units, sources_for_units

    name = name or f"{provider_name}-{timezone.now():%Y%m%d-%H%M%S}"
    with transaction.atomic():
        batch = Batch.objects.create(project=project, name=name, provider=provider_name)
        used = Unit.objects.filter(project=project).values_list("source_id", flat=True)
        source_ids = list(project.sources.exclude(pk__in=used).order_by("id").values_list("id", flat=True))
        if units is not None:  # exactly `units` units (a source over the caps makes several), gold mixed in first
            rate = quality.policy_for(project)["gold_rate"] if gold_rate is None else gold_rate
            mixed = quality.mix_gold(source_ids, quality.gold_source_ids(project), units, float(rate))
            rest = [s for s in source_ids if s not in frozenset(mixed)]
            source_ids = sources_for_units(project, mixed + rest, units)
        compose_units(batch, sources=list(project.sources.filter(pk__in=source_ids)),
                      assignments_wanted=assignments_per_unit)
    return batch


# -- sync ------------------------------------------------------------------------------------

_S = Assignment.Status
_STATUS = {  # a platform's verdict (SubmissionStatus) -> our assignment status
    SubmissionStatus.SUBMITTED: _S.SUBMITTED,
    SubmissionStatus.APPROVED: _S.APPROVED,
    SubmissionStatus.REJECTED: _S.REJECTED,
    SubmissionStatus.RETURNED: _S.RETURNED,
}
# A platform's verdict wins over ours only in these directions (it never un-approves what we approved).
_PLATFORM_MAY_MOVE: dict[str, set[str]] = {
    _S.ASSIGNED: {_S.SUBMITTED, _S.APPROVED, _S.REJECTED, _S.RETURNED},
    _S.EXPIRED: {_S.SUBMITTED, _S.APPROVED, _S.REJECTED},
    _S.RETURNED: {_S.SUBMITTED, _S.APPROVED, _S.REJECTED},
    _S.SUBMITTED: {_S.APPROVED, _S.REJECTED, _S.RETURNED},
    _S.APPROVED: set(),
    _S.REJECTED: {_S.APPROVED},
}


@dataclass
class SyncResult:
    seen: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    unknown_unit: int = 0
    missing_labels: list[int] = field(default_factory=list)  # assignments the platform has but our API never got
    verified: int = 0
    unverified: list[int] = field(default_factory=list)  # submitted here, unknown (or doubtful) on the platform

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def _parse_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)


def _mark_verified(a: Assignment, rec: SubmissionRecord, result: SyncResult) -> None:
    """What the platform's record says of our assignment: it knows it, and its proof (if any) holds. Verifying goes
    through services.verification (what the submission held back applies once: protocol.on_verified)."""
    if rec.doubt:
        verifying.unverify([a.pk], rec.doubt)
        result.unverified.append(a.pk)
    else:
        verifying.verify([a.pk])
        result.verified += 1
    a.refresh_from_db(fields=["verification", "verification_note", "verified_at"])


def _reconcile(batch: Batch, unit: Unit, rec: SubmissionRecord, result: SyncResult, seen: set[int]) -> None:
    worker, _ = Worker.objects.get_or_create(provider=batch.provider, external_id=rec.worker_external_id)
    status = _STATUS.get(rec.status)
    if status is None:
        return
    a = Assignment.objects.filter(provider_assignment_id=rec.provider_assignment_id, worker=worker).first()
    if a is None:
        # Our page may have made the assignment before the platform id was known: adopt it.
        a = (
            Assignment.objects.filter(unit=unit, worker=worker, provider_assignment_id="")
            .order_by("-id")
            .first()
        )
        if a is not None:
            a.provider_assignment_id = rec.provider_assignment_id
            a.save(update_fields=["provider_assignment_id"])
    verify = batch.provider != LOCAL
    if a is None:
        a = Assignment.objects.create(
            unit=unit,
            worker=worker,
            provider_assignment_id=rec.provider_assignment_id,
            status=status,
            submitted_at=_parse_time(rec.submitted_at) or timezone.now(),
            submission={"platform_answer": dict(rec.answer)} if rec.answer else None,
            **({"verification": Assignment.Verification.PENDING} if verify else {}),
        )
        result.created += 1
        result.missing_labels.append(a.pk)
        seen.add(a.pk)
        if verify:
            _mark_verified(a, rec, SyncResult())  # counted as created, not verified (as before)
            if a.verification == Assignment.Verification.UNVERIFIED:
                result.unverified.append(a.pk)
        return
    seen.add(a.pk)
    if status in _PLATFORM_MAY_MOVE.get(a.status, set()):
        _move_status(a, status, rec, result)
    else:
        result.unchanged += 1
    if verify:  # after the status moved: on_verified reads the status the platform reports
        _mark_verified(a, rec, result)


def _move_status(a: Assignment, status: str, rec: SubmissionRecord, result: SyncResult) -> None:
    fields = ["status"]
    if a.status == Assignment.Status.ASSIGNED and status != Assignment.Status.RETURNED:
        # Submitted on the platform but never through our API: keep what the platform has, flag it.
        a.submitted_at = _parse_time(rec.submitted_at) or timezone.now()
        fields.append("submitted_at")
        if a.submission is None:
            a.submission = {"platform_answer": dict(rec.answer)}
            fields.append("submission")
        result.missing_labels.append(a.pk)
    if status in (Assignment.Status.APPROVED, Assignment.Status.REJECTED):
        a.reviewed_at = timezone.now()
        fields.append("reviewed_at")
    a.status = status
    a.save(update_fields=fields)
    result.updated += 1


def sync_batch(batch: Batch, provider: CrowdProvider | None = None) -> SyncResult:
    """Upsert the platform's submissions on (assignment id, worker id) and reconcile statuses with ours."""
    provider = provider or provider_for(batch)
    result = SyncResult()
    from annotation_tasks.services import sessions

    if sessions.is_study_batch(batch):  # one study: its submissions are places, each with several units
        places = sessions.reconcile(batch, list(provider.list_submissions(batch)))
        result.seen, result.verified, result.unknown_unit = places.seen, places.verified, places.unknown
        result.unverified = places.unverified
        sessions.ensure_places(batch, provider)
        return result
    units = {u.provider_ref: u for u in batch.units.exclude(provider_ref="")}
    seen: set[int] = set()
    for rec in provider.list_submissions(batch):
        result.seen += 1
        unit = units.get(rec.unit_ref)
        if unit is None:
            result.unknown_unit += 1
            continue
        with transaction.atomic():
            _reconcile(batch, unit, rec, result, seen)
    if batch.provider != LOCAL:
        _unverify_unlisted(batch, seen, result)
        if result.verified:
            _complete_units(batch)
    return result


def _complete_units(batch: Batch) -> None:
    """Units whose verified work now reaches what they want are complete (entries the platform could not vouch
    for at the door never completed them on submit)."""
    from django.db.models import Count, F, Q

    counted = Q(assignments__status__in=Assignment.Status.counted(),
                assignments__verification__in=Assignment.Verification.holds_slot())
    full = (batch.units.filter(status=Unit.Status.OPEN).annotate(n=Count("assignments", filter=counted))
            .filter(n__gte=F("assignments_wanted")).values("pk"))
    Unit.objects.filter(pk__in=full, status=Unit.Status.OPEN).update(status=Unit.Status.COMPLETE)


def _unverify_unlisted(batch: Batch, seen: set[int], result: SyncResult) -> None:
    """Work submitted through our page that the platform does not list was entered with made-up ids: it stops
    counting (Assignment.counted_q) and gives its slot back; a later sync that finds it verifies it after all."""
    V = Assignment.Verification
    unlisted = (Assignment.objects.filter(unit__batch=batch, verification=V.PENDING,
                                          status__in=Assignment.Status.done())
                .exclude(pk__in=seen))
    ids = list(unlisted.values_list("pk", flat=True))
    if ids:
        Assignment.objects.filter(pk__in=ids).update(
            verification=V.UNVERIFIED, verified_at=timezone.now(),
            verification_note="the platform does not list this submission")
        result.unverified.extend(ids)
    if result.unverified:
        _reopen_units(Unit.objects.filter(assignments__pk__in=result.unverified).distinct())


def _reopen_units(units) -> None:
    """A complete unit whose counting work fell below what it wants (unverified work left it) is open again."""
    V = Assignment.Verification
    for unit in units.filter(status=Unit.Status.COMPLETE):
        holding = unit.assignments.filter(status__in=Assignment.Status.counted(),
                                          verification__in=V.holds_slot()).count()
        if holding < unit.assignments_wanted:
            Unit.objects.filter(pk=unit.pk, status=Unit.Status.COMPLETE).update(status=Unit.Status.OPEN)


def sync_open_batches() -> dict[int, dict]:
    """Sync every published batch (the Celery beat job); one failing platform does not stop the others.

    A batch whose settings ask for it also gets its workers evaluated against the thresholds
    (settings["evaluate_workers"]) and its approval policy applied (settings["approval_policy"]).
    """
    out: dict[int, dict] = {}
    for batch in Batch.objects.filter(status=Batch.Status.PUBLISHED).order_by("id"):
        try:
            out[batch.pk] = sync_batch(batch).as_dict()
            from annotation_tasks.services import quality

            if (batch.settings or {}).get("evaluate_workers"):
                decisions = quality.evaluate_workers(batch.project, batch=batch)
                out[batch.pk]["decisions"] = [f"{d.action}:{d.worker.external_id}" for d in decisions]
            if (batch.settings or {}).get("approval_policy"):
                out[batch.pk]["policy"] = quality.apply_approval_policy(batch)
        except Exception as exc:  # logged and reported per batch; beat runs again later
            log.exception("sync of batch %s failed", batch.pk)
            out[batch.pk] = {"error": str(exc)}
    return out
