"""Batch studies: one platform study per batch, whose places are sessions in which our own queue hands out units.

A participant enters the batch's entry page (crowd.entry.study_entry_url) with the platform's ids; their place is a
PlaceSession. Inside it they get units of the batch, one at a time, routed like the local queue (gold first when the
quality policy draws gold), until they have done the batch's units per place, or its minutes per place have passed,
or nothing is left for them; then they get the completion code. Their assignments carry
"<session id>/<unit id>" as provider_assignment_id, and hold a unit's slot as the local queue's do (queue.assign).

A place the platform reports returned, timed out or rejected frees its units at once (webhook or sync). Places are
units x assignments / units per place, rounded up; they are raised when the work left needs more (a place ended
early, units freed) and never beyond what the work left needs, so nothing is paid for places with no work.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q, QuerySet
from django.utils import timezone

from annotation_tasks.crowd import CrowdProvider
from annotation_tasks.crowd.base import HourlyRate, SubmissionRecord, SubmissionStatus
from annotation_tasks.models import Assignment, Batch, PlaceSession, Unit, Worker
from annotation_tasks.services import training
from annotation_tasks.services import verification as verifying
from annotation_tasks.services.batch_settings import setting_number

DEFAULT_UNITS_PER_PLACE = 10
DEFAULT_MINUTES_PER_UNIT = 3  # the researcher's estimate before any pilot, unless they give one
_CANDIDATES = 25
_A = Assignment.Status


def is_study_batch(batch: Batch) -> bool:
    """Published as one study (its id on the batch), not one platform object per unit."""
    return bool(batch.provider_ref)


def units_per_place(batch: Batch) -> int:
    return int(setting_number(batch.settings, "units_per_place", DEFAULT_UNITS_PER_PLACE))


def minutes_per_place(batch: Batch) -> int | None:
    value = setting_number(batch.settings, "minutes_per_place", None)
    return int(value) if value is not None else None


def places_needed(units: int, assignments_per_unit: int, per_place: int) -> int:
    """Places for `units` units wanting `assignments_per_unit` workers each, `per_place` units a place."""
    return math.ceil(units * assignments_per_unit / max(1, per_place))


def study_places(units: list[Unit], assignments_per_unit: int, per_place: int) -> int:
    """places_needed for a study whose units may include training units: every participant does the training
    units first (services.training), so a place has room for per_place - training main units, and only main units
    want `assignments_per_unit` workers."""
    lessons = sum(1 for u in units if u.is_training)
    if not lessons:
        return places_needed(len(units), assignments_per_unit, per_place)
    return math.ceil((len(units) - lessons) * assignments_per_unit / max(1, per_place - lessons))


def main_room(batch: Batch) -> int:
    """The main units a fresh place of the batch can take: its units per place less the batch's training units."""
    return max(1, units_per_place(batch) - batch.units.filter(is_training=True).count())


# -- fair pay -------------------------------------------------------------------------------------------------------
def seconds_per_unit(batch: Batch) -> tuple[float, str]:
    """The time one unit takes: the pilot's median time on task (submitted work on this batch's units, else the
    project's), else the researcher's estimate (settings estimated_minutes_per_unit, default 3 minutes)."""
    for scope, label in ((Q(unit__batch=batch), "pilot median"), (Q(unit__project_id=batch.project_id), "project median")):
        times = list(Assignment.objects.filter(scope, status__in=_A.counted(), time_on_task_ms__gt=0)
                     .values_list("time_on_task_ms", flat=True)[:5000])
        if times:
            return statistics.median(times) / 1000.0, f"{label} of {len(times)} submitted units"
    minutes = float(setting_number(batch.settings, "estimated_minutes_per_unit", DEFAULT_MINUTES_PER_UNIT))
    return minutes * 60.0, "researcher's estimate"


def hourly_rate(batch: Batch, provider: CrowdProvider, reward: Decimal) -> HourlyRate:
    seconds, source = seconds_per_unit(batch)
    return provider.hourly_rate(reward, seconds, source)


# -- a participant's place ------------------------------------------------------------------------------------------
@dataclass
class Turn:
    """What the entry page shows: a unit to work on, the completion code, or a request to return the place."""

    assignment: Assignment | None = None
    finished: bool = False
    no_work: bool = False
    closed: bool = False  # the platform returned, timed out or rejected this place
    training_failed: bool = False  # the worker did not reach the project's training pass mark: no main units


def enter(batch: Batch, worker: Worker, session_id: str, verification: str) -> PlaceSession:
    """The participant's place (created on first entry; the same session id reopens it)."""
    try:
        with transaction.atomic():
            session, _ = PlaceSession.objects.get_or_create(
                batch=batch, session_id=session_id, defaults={"worker": worker, "verification": verification})
    except IntegrityError:
        session = PlaceSession.objects.get(batch=batch, session_id=session_id)
    if session.verification == Assignment.Verification.PENDING and verification == Assignment.Verification.ADMITTED:
        PlaceSession.objects.filter(pk=session.pk).update(verification=verification)
        session.verification = verification
    return session


def session_assignments(session: PlaceSession) -> QuerySet[Assignment]:
    return Assignment.objects.filter(worker_id=session.worker_id, unit__batch_id=session.batch_id,
                                     provider_assignment_id__startswith=session.assignment_prefix())


def next_turn(session: PlaceSession) -> Turn:
    """The unit the participant holds, else a new one while the place has room, else the end of the place."""
    if session.status in (PlaceSession.Status.RETURNED, PlaceSession.Status.REJECTED):
        return Turn(closed=True)
    if session.status == PlaceSession.Status.FINISHED:
        return Turn(finished=True)
    mine = session_assignments(session)
    now = timezone.now()
    held = mine.filter(status=_A.ASSIGNED).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now)).first()
    if held is not None:
        return Turn(assignment=held)
    done = mine.filter(status__in=_A.done()).count()
    limit = minutes_per_place(session.batch)
    if done >= units_per_place(session.batch) or (limit and now - session.started_at >= timezone.timedelta(minutes=limit)):
        return _finish(session)
    lesson = training.gate(session.worker, session.batch.project, Unit.objects.filter(batch_id=session.batch_id))
    if lesson.unit is not None:
        return Turn(assignment=_train(session, lesson.unit))
    if lesson.failed:  # paid for the training place (services.training.record approved it), no main units
        finished = _finish(session)
        finished.training_failed = True
        return finished
    assignment = _take(session)
    if assignment is not None:
        return Turn(assignment=assignment)
    if done:
        return _finish(session)
    PlaceSession.objects.filter(pk=session.pk, status=PlaceSession.Status.ACTIVE).update(status=PlaceSession.Status.NO_WORK)
    session.status = PlaceSession.Status.NO_WORK
    return Turn(no_work=True)


def _finish(session: PlaceSession) -> Turn:
    PlaceSession.objects.filter(pk=session.pk, status=PlaceSession.Status.ACTIVE).update(
        status=PlaceSession.Status.FINISHED, finished_at=timezone.now())
    session.status = PlaceSession.Status.FINISHED
    return Turn(finished=True)


def _train(session: PlaceSession, unit: Unit) -> Assignment:
    """The participant's assignment of a training unit: every new worker gets it, whatever its slots."""
    assignment, _ = Assignment.objects.get_or_create(
        unit=unit, worker_id=session.worker_id, provider_assignment_id=f"{session.assignment_prefix()}{unit.pk}",
        defaults={"expires_at": timezone.now() + queue_timeout(unit), "verification": session.verification})
    if assignment.status not in (_A.ASSIGNED, *_A.done()):  # expired or returned: the lesson again
        assignment.status = _A.ASSIGNED
        assignment.expires_at = timezone.now() + queue_timeout(unit)
        assignment.save(update_fields=["status", "expires_at"])
    return assignment


def queue_timeout(unit: Unit) -> timezone.timedelta:
    from annotation_tasks.services import queue

    return queue.timeout_for(unit)


def _candidate_ids(session: PlaceSession) -> list[tuple[int, bool]]:
    """Open units of the batch the worker has not had, with a slot free, oldest first (the count under the
    unit's lock in queue.assign decides)."""
    had = Assignment.objects.filter(worker_id=session.worker_id).values("unit_id")
    holding = Q(assignments__status__in=[s.value for s in _A.active()],
                assignments__verification__in=Assignment.Verification.holds_slot())
    rows = (Unit.objects.filter(batch_id=session.batch_id, status=Unit.Status.OPEN, is_training=False)
            .exclude(pk__in=had)
            .annotate(n=Count("assignments", filter=holding)).filter(n__lt=F("assignments_wanted"))
            .order_by("id").values_list("id", "is_gold")[:_CANDIDATES])
    return [(uid, bool(gold)) for uid, gold in rows]


def _take(session: PlaceSession) -> Assignment | None:
    from annotation_tasks.services import queue

    rows = _candidate_ids(session)
    if not rows:
        return None
    worker = session.worker
    if len({gold for _, gold in rows}) > 1:
        # attention checks: gold units mixed in at the batch's rate (settings["quality"]: gold_rate, and
        # gold_rate_initial for a worker's first units), indistinguishable in the payload
        from annotation_tasks.services.quality import gold_first, policy_for

        ids = gold_first(worker, session.batch.project, rows, policy=policy_for(session.batch))
    else:
        ids = [uid for uid, _ in rows]
    units = {u.pk: u for u in Unit.objects.select_related("batch").filter(pk__in=ids)}
    for uid in ids:
        unit = units.get(uid)
        if unit is None:
            continue
        assignment = queue.assign(unit, worker, f"{session.assignment_prefix()}{uid}", session.verification,
                                  free_slot_only=True)
        if assignment is not None and assignment.status == _A.ASSIGNED:
            return assignment
    return None


# -- the platform's verdict on a place ------------------------------------------------------------------------------
def free_place(session: PlaceSession, status: str) -> int:
    """The platform returned, timed out or rejected this place: its units are freed at once (their assignments
    stop holding slots: returned, or rejected for work it rejected); complete units reopen. Answers how many."""
    with transaction.atomic():
        mine = session_assignments(session)
        touched = list(mine.filter(status__in=[_A.ASSIGNED, _A.SUBMITTED]).values_list("unit_id", flat=True))
        mine.filter(status=_A.ASSIGNED).update(status=_A.RETURNED)
        if status == PlaceSession.Status.REJECTED:
            mine.filter(status=_A.SUBMITTED).update(status=_A.REJECTED, reviewed_at=timezone.now())
        else:
            mine.filter(status=_A.SUBMITTED).update(status=_A.RETURNED)
        PlaceSession.objects.filter(pk=session.pk).update(status=status, finished_at=timezone.now())
        session.status = status
        reopen_units(Unit.objects.filter(pk__in=touched))
    return len(touched)


def reopen_units(units: QuerySet[Unit]) -> None:
    """A complete unit whose slot-holding work fell below what it wants is open again."""
    V = Assignment.Verification
    for unit in units.filter(status=Unit.Status.COMPLETE):
        holding = unit.assignments.filter(status__in=_A.counted(), verification__in=V.holds_slot()).count()
        if holding < unit.assignments_wanted:
            Unit.objects.filter(pk=unit.pk, status=Unit.Status.COMPLETE).update(status=Unit.Status.OPEN)


@dataclass
class PlaceSync:
    seen: int = 0
    verified: int = 0
    unverified: list[int] = field(default_factory=list)  # assignments the platform does not vouch for
    freed: int = 0
    unknown: int = 0


def reconcile(batch: Batch, records: list[SubmissionRecord]) -> PlaceSync:
    """Sync of a batch study: each platform submission is a place; its verdict applies to the place's units."""
    out = PlaceSync()
    sessions = {s.session_id: s for s in PlaceSession.objects.filter(batch=batch).select_related("batch")}
    V = Assignment.Verification
    listed = {rec.provider_assignment_id for rec in records}
    for rec in records:
        out.seen += 1
        session = sessions.get(rec.provider_assignment_id)
        if session is None:
            out.unknown += 1  # completed on the platform without ever entering our page
            continue
        if rec.status == SubmissionStatus.RETURNED:
            if session.status not in (PlaceSession.Status.RETURNED, PlaceSession.Status.REJECTED):
                out.freed += free_place(session, PlaceSession.Status.RETURNED)
            continue
        if rec.status == SubmissionStatus.REJECTED:
            if session.status != PlaceSession.Status.REJECTED:
                out.freed += free_place(session, PlaceSession.Status.REJECTED)
            continue
        mine = session_assignments(session)
        now = timezone.now()
        if rec.status == SubmissionStatus.APPROVED:
            mine.filter(status=_A.SUBMITTED).update(status=_A.APPROVED, reviewed_at=now)
        done = list(mine.filter(status__in=_A.done()).values_list("pk", flat=True))
        if rec.doubt:
            verifying.unverify(done, rec.doubt)
            out.unverified.extend(done)
        else:  # the one way to verify: what the place's work held back applies once (protocol.on_verified)
            out.verified += len(verifying.verify(done))
        # the place is over on the platform: a unit still held in it will never be submitted
        held = list(mine.filter(status=_A.ASSIGNED).values_list("unit_id", flat=True))
        mine.filter(status=_A.ASSIGNED).update(status=_A.EXPIRED)
        out.freed += len(held)
        if session.status in (PlaceSession.Status.ACTIVE, PlaceSession.Status.NO_WORK):
            PlaceSession.objects.filter(pk=session.pk).update(status=PlaceSession.Status.FINISHED, finished_at=now)
    # places let in while the platform could not be asked, that it does not list (made-up sessions, or ones not
    # completed yet): their work stops counting and gives its slots back; a later sync may verify it after all
    for session in sessions.values():
        if session.session_id in listed or session.verification != V.PENDING:
            continue
        unlisted = list(session_assignments(session).filter(status__in=_A.done(), verification=V.PENDING)
                        .values_list("pk", flat=True))
        verifying.unverify(unlisted, "the platform does not list this submission")
        out.unverified.extend(unlisted)
    _complete_units(batch)
    reopen_units(Unit.objects.filter(batch=batch))
    return out


def _complete_units(batch: Batch) -> None:
    counted = Q(assignments__status__in=_A.counted(),
                assignments__verification__in=Assignment.Verification.holds_slot())
    full = (batch.units.filter(status=Unit.Status.OPEN).annotate(n=Count("assignments", filter=counted))
            .filter(n__gte=F("assignments_wanted")).values("pk"))
    Unit.objects.filter(pk__in=full, status=Unit.Status.OPEN).update(status=Unit.Status.COMPLETE)


# -- places ---------------------------------------------------------------------------------------------------------
def work_left(batch: Batch) -> int:
    """Assignments the batch's open units still want beyond what holds their slots now."""
    holding = Q(assignments__status__in=[s.value for s in _A.active()],
                assignments__verification__in=Assignment.Verification.holds_slot())
    rows = (batch.units.filter(status=Unit.Status.OPEN, is_training=False)  # lessons go to everyone: never "left"
            .annotate(n=Count("assignments", filter=holding))
            .values_list("assignments_wanted", "n"))
    return sum(max(0, wanted - n) for wanted, n in rows)


def places_to_open(batch: Batch) -> int | None:
    """The study's new number of places when the work left needs more than the places it has can do; else None.

    Places taken (active, finished, or asked to return) are the platform's; the free ones and the room left in
    active places can take work_left; only the shortfall, in whole places, is added."""
    per = units_per_place(batch)
    total = int(setting_number(batch.settings, "places", 0))
    sessions = PlaceSession.objects.filter(batch=batch)
    taken = sessions.filter(status__in=[PlaceSession.Status.ACTIVE, PlaceSession.Status.FINISHED,
                                        PlaceSession.Status.NO_WORK]).count()
    room = 0
    for session in sessions.filter(status=PlaceSession.Status.ACTIVE):
        used = session_assignments(session).filter(status__in=[*_A.done(), _A.ASSIGNED]).count()
        room += max(0, per - used)
    fresh = main_room(batch)  # a new place does the training units first
    capacity = max(0, total - taken) * fresh + room
    need = work_left(batch)
    if need <= capacity:
        return None
    return total + math.ceil((need - capacity) / fresh)


def ensure_places(batch: Batch, provider: CrowdProvider) -> int | None:
    """Raise the study's places when the work left needs more (see places_to_open); answers the new number."""
    if not is_study_batch(batch) or batch.status != Batch.Status.PUBLISHED:
        return None
    places = places_to_open(batch)
    if places is None:
        return None
    provider.set_places(batch, places)
    batch.settings = {**(batch.settings or {}), "places": places}
    batch.save(update_fields=["settings"])
    return places


# -- panels: statuses set by hand or imported -----------------------------------------------------------------------
@dataclass
class StatusImport:
    approved: int = 0
    rejected: int = 0
    unknown: list[str] = field(default_factory=list)  # participant ids with no place in the batch
    skipped: list[str] = field(default_factory=list)  # rows whose status is neither approved nor rejected


def import_place_statuses(batch: Batch, rows: list[dict[str, str]]) -> StatusImport:
    """Apply a panel's statuses (rows with participant_id and status: approved / rejected) to the units of each
    participant's place, through the quality decisions (so the decision log records them; the panel is paid
    outside FactCrowd). A repeated import changes nothing."""
    from annotation_tasks.services import quality

    out = StatusImport()
    for row in rows:
        pid = str(row.get("participant_id") or "").strip()
        status = str(row.get("status") or "").strip().lower()
        if status not in ("approved", "rejected"):
            out.skipped.append(pid)
            continue
        place = PlaceSession.objects.filter(batch=batch, worker__external_id=pid).first()
        if place is None:
            out.unknown.append(pid)
            continue
        for a in session_assignments(place).filter(status=_A.SUBMITTED).select_related("worker", "unit"):
            if status == "approved":
                quality.approve(a, reason="panel status import")
                out.approved += 1
            else:
                quality.reject(a, str(row.get("feedback") or "Rejected on the panel."), reason="panel status import")
                out.rejected += 1
    return out
