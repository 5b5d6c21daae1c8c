"""Who gets which unit: the local next-unit queue, platform entries, and expiry of abandoned assignments.

Invariant: a unit never has more active assignments (assigned / submitted / approved) than it wants, not
counting its project's researchers' own pilots (slot_holders: they never take a worker's place).
Every path that creates or revives an assignment locks the unit row first and counts inside the lock:
PostgreSQL row locks (select_for_update, skip_locked for the queue so concurrent workers spread over
units instead of waiting in line). SQLite has no row locks; there every transaction begins IMMEDIATE
(backend/settings.py), so it holds SQLite's database-wide write lock before it reads a count, and a busy
database makes it wait (busy_timeout) instead of failing: nothing is retried here.
"""
from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from annotation_tasks.compiled_sql import OrmSql
from annotation_tasks.crowd.local import LocalProvider
from annotation_tasks.models import (
    Assignment,
    Project,
    ProjectMembership,
    Unit,
    UnitResponse,
    Worker,
    WorkerProjectStatus,
)
from annotation_tasks.services.batch_settings import setting_number

ACTIVE = [s.value for s in Assignment.Status.active()]
LOCAL_PROVIDER = LocalProvider.name
_CANDIDATES = 25


def timeout_for(unit: Unit) -> timedelta:
    """How long an assignment of `unit` stays with its worker without activity (its batch's setting, else the default)."""
    return timeout_of(unit.batch_id, unit.batch.settings if unit.batch_id else None)


def timeout_of(batch_id: int | None, batch_settings: dict | None) -> timedelta:
    """timeout_for from the batch's id and settings as read (the draft PUT reads them without the unit); a setting
    stored before the API checked it ("abc", 10**12) is the default: one bad batch must not stop every worker's queue."""
    minutes = settings.ASSIGNMENT_TIMEOUT_MINUTES
    if batch_id and batch_settings:
        minutes = setting_number(batch_settings, "assignment_duration_minutes", minutes)
    return timedelta(minutes=minutes)


def slot_holders(assignments: QuerySet[Assignment], project_id: int | Any) -> QuerySet[Assignment]:
    """The assignments that hold one of a unit's `assignments_wanted` slots: not the project's researchers' own.

    A researcher who opens "Annotate" pilots the task; their answers are kept under their name (they can reject
    them like anyone's), but they never take the place of a worker, so every unit still gets its N workers.
    `project_id` may be an OuterRef/F expression."""
    researchers = ProjectMembership.objects.filter(project_id=project_id, role=ProjectMembership.Role.RESEARCHER)
    # made-up platform ids hold none: neither work sync found unverified nor an entry the platform could not vouch for
    holders = assignments.filter(verification__in=Assignment.Verification.holds_slot())
    return holders.exclude(worker__user__is_superuser=True).exclude(worker__user_id__in=researchers.values("user_id"))


def _holders_counted(statuses: list[str]) -> OrmSql:
    """slot_holders(...).count() of a unit's assignments in `statuses`, as compiled-once SQL: grouped by the unit,
    so one row with the count, or none for no holder (holders_count reads it)."""
    return OrmSql(lambda unit_id, project_id: slot_holders(
        Assignment.objects.filter(unit_id=unit_id, status__in=statuses), project_id)
        .order_by().values("unit_id").annotate(n=Count("pk")).values_list("n"),
        unit_id=int, project_id=int)


def holders_count(query: OrmSql, unit_id: int, project_id: int) -> int:
    rows = query.rows(unit_id=unit_id, project_id=project_id)
    return rows[0][0] if rows else 0


_ACTIVE_HOLDERS = _holders_counted(ACTIVE)
COUNTED_HOLDERS = _holders_counted([s.value for s in Assignment.Status.counted()])


def active_count(unit_id: int, project_id: int | None = None) -> int:
    """Active assignments that hold a slot of the unit (see slot_holders); give the unit's project_id when known."""
    if project_id is None:
        project_id = Unit.objects.filter(pk=unit_id).values("project_id")[:1]
        return slot_holders(Assignment.objects.filter(unit_id=unit_id, status__in=ACTIVE), project_id).count()
    return holders_count(_ACTIVE_HOLDERS, unit_id, project_id)


def _lock_unit(unit_id: int, *, skip_locked: bool = False) -> Unit | None:
    qs = Unit.objects.select_for_update(skip_locked=skip_locked) if connection.vendor != "sqlite" else Unit.objects
    return qs.filter(pk=unit_id).first()


def _create(unit: Unit, worker: Worker, provider_assignment_id: str = "",
            verification: str = Assignment.Verification.NOT_NEEDED) -> Assignment:
    now = timezone.now()
    return Assignment.objects.create(
        unit=unit,
        worker=worker,
        provider_assignment_id=provider_assignment_id,
        expires_at=now + timeout_for(unit),
        verification=verification,
    )


def assign(unit: Unit, worker: Worker, provider_assignment_id: str = "",
           verification: str = Assignment.Verification.NOT_NEEDED, *, free_slot_only: bool = True) -> Assignment | None:
    """The worker's assignment of `unit` (existing, revived or new), or None when the unit is full or closed.

    Platform entries are keyed on (provider_assignment_id, worker): a platform may reuse an assignment id
    after a worker returns the task, and the same worker reopening the page gets the same assignment.
    `verification` is what the platform said at the door (pages.unit_entry): vouched-for entries and our own
    workers need a slot; a PENDING entry holds none (slot_holders), so made-up ids lock nobody out. With
    `free_slot_only` (the platform could not be asked) pending entries never outnumber the free slots; without it
    (MTurk, which reads assignments only once submitted and never lets more real workers in than the unit's places)
    they are let in while the unit still wants work.
    """
    V = Assignment.Verification
    with transaction.atomic():
        locked = _lock_unit(unit.pk)
        if locked is None:
            return None
        mine = Assignment.objects.filter(unit=locked, worker=worker)
        existing = (
            mine.filter(provider_assignment_id=provider_assignment_id).first()
            if provider_assignment_id
            else mine.filter(status__in=ACTIVE).first()
        )
        if existing is not None and existing.status in ACTIVE:
            if existing.verification == V.PENDING and verification == V.ADMITTED \
                    and active_count(locked.pk, locked.project_id) < locked.assignments_wanted:
                existing.verification = V.ADMITTED  # the platform vouches for it now: it takes a slot
                existing.save(update_fields=["verification"])
            return existing
        if locked.status != Unit.Status.OPEN:
            return None
        holders = active_count(locked.pk, locked.project_id)
        if holders >= locked.assignments_wanted:
            return None
        if verification == V.PENDING and free_slot_only:
            pending = Assignment.objects.filter(unit=locked, status__in=ACTIVE, verification=V.PENDING).count()
            if holders + pending >= locked.assignments_wanted:
                return None
        if mine.filter(status__in=ACTIVE).exists():
            return mine.filter(status__in=ACTIVE).first()
        if existing is not None:  # expired or returned, same platform id: take it up again
            existing.status = Assignment.Status.ASSIGNED
            existing.expires_at = timezone.now() + timeout_for(locked)
            fields = ["status", "expires_at"]
            if existing.verification != V.VERIFIED:
                existing.verification = verification
                fields.append("verification")
            existing.save(update_fields=fields)
            return existing
        return _create(locked, worker, provider_assignment_id, verification)


def revive(assignment: Assignment) -> bool:
    """Make an expired (or overdue) assignment workable again when its unit still has room.

    So an annotator who comes back after the timeout keeps their draft unless someone else took the slot.
    """

    def attempt() -> bool:
        with transaction.atomic():
            unit = _lock_unit(assignment.unit_id)
            current = Assignment.objects.get(pk=assignment.pk)
            now = timezone.now()
            if current.status == Assignment.Status.ASSIGNED:
                if current.expires_at and current.expires_at < now:
                    current.expires_at = now + timeout_for(unit)
                    current.save(update_fields=["expires_at"])
                return True
            if current.status != Assignment.Status.EXPIRED or unit is None or unit.status != Unit.Status.OPEN:
                return False
            if active_count(unit.pk) >= unit.assignments_wanted:
                return False
            if Assignment.objects.filter(unit=unit, worker_id=current.worker_id, status__in=ACTIVE).exists():
                return False
            current.status = Assignment.Status.ASSIGNED
            current.expires_at = now + timeout_for(unit)
            current.save(update_fields=["status", "expires_at"])
            return True

    ok = attempt()
    assignment.refresh_from_db()
    return ok


def annotator_in(user, project_id: int) -> tuple[Project | None, bool, bool]:
    """(the project or None, whether the user may annotate it, whether a decision there blocks them), read in one
    query for POST /api/work/next: members of any role and superusers annotate (services.local_workers)."""
    project, may_annotate, blocked, _ = annotator_and_worker_in(user, project_id)
    return project, may_annotate, blocked


def _annotator_query(project_id: int, user_id: int) -> QuerySet:
    member = ProjectMembership.objects.filter(project=OuterRef("pk"), user_id=user_id)
    blocked = WorkerProjectStatus.objects.filter(project=OuterRef("pk"), worker__user_id=user_id,
                                                 status__in=Worker.Status.blocked())
    # the same Worker services.local_workers.local_worker finds (the user's first, in Worker.Meta.ordering)
    worker_id = Worker.objects.filter(user_id=user_id).values("pk")[:1]
    lessons = Unit.objects.filter(project=OuterRef("pk"), is_training=True)
    return (Project.objects.filter(pk=project_id)
            .annotate(_member=Exists(member), _blocked=Exists(blocked), _worker_id=Subquery(worker_id),
                      _training=Exists(lessons))
            .values_list("pk", "_member", "_blocked", "_worker_id", "_training"))


_ANNOTATOR = OrmSql(_annotator_query, project_id=int, user_id=int)


def annotator_and_worker_in(user, project_id: int) -> tuple[Project | None, bool, bool, Worker | None]:
    """annotator_in and the user's local Worker (None before their first unit: services.local_workers creates it),
    in one query. The Project and the Worker carry their ids (and the worker's user); any other field is read
    when first used."""
    rows = _ANNOTATOR.rows(project_id=project_id, user_id=user.pk)
    if not rows:
        return None, False, False, None
    pk, member, blocked, worker_id, lessons = rows[0]
    db = Project.objects.db
    project = Project.from_db(db, ["id"], [pk])
    project.has_training_units = bool(lessons)  # read here so `next` asks no more on the hot path
    worker = Worker.from_db(db, ["id", "user_id"], [worker_id, user.pk]) if worker_id is not None else None
    return project, bool(user.is_superuser or member), bool(blocked), worker


RETEST = "retest"  # Batch.settings key: the researcher asks for the same workers again on purpose (test-retest)


def judged_elsewhere(worker_id: int | Any, statuses: list[str] | tuple[str, ...]) -> Exists:
    """A unit (OuterRef "pk", batch OuterRef "batch_id") one of whose responses the worker already has in a unit of
    another batch, with an assignment in `statuses`: a second batch over the same sources would give the worker
    the same items again. Parts of one split response are in one batch, so they stay open to the same worker."""
    earlier = UnitResponse.objects.filter(
        response_id=OuterRef("response_id"), unit__assignments__worker_id=worker_id,
        unit__assignments__status__in=statuses,
    ).exclude(unit__batch_id=OuterRef(OuterRef("batch_id")))
    return Exists(UnitResponse.objects.filter(unit_id=OuterRef("pk")).filter(Exists(earlier)))


def _candidates(project_id: int, worker_id: int, mode: str | None = None) -> QuerySet:
    """Open units of the project's local batches (or of none) the worker has not had, with a slot free not counting
    researchers' pilots, oldest first: `next`'s candidates (the count under the unit's lock decides). A unit whose
    items the worker judged through another batch is left out, unless its batch is a retest (settings.retest)."""
    mine = Assignment.objects.filter(worker_id=worker_id).values("unit_id")
    researchers = ProjectMembership.objects.filter(project_id=project_id, role=ProjectMembership.Role.RESEARCHER)
    pilots = (Q(assignments__worker__user__is_superuser=True)
              | Q(assignments__worker__user_id__in=researchers.values("user_id")))
    candidates = (
        Unit.objects.filter(project_id=project_id, status=Unit.Status.OPEN, is_training=False)
        # units of an MTurk / Prolific batch belong to that platform's workers: a local annotator taking
        # one would leave a platform worker who accepted the task with a full unit
        .filter(Q(batch__isnull=True) | Q(batch__provider=LOCAL_PROVIDER))
        .exclude(pk__in=mine)
        .filter(Q(**{f"batch__settings__{RETEST}": True}) | ~judged_elsewhere(worker_id, ACTIVE))
        # researchers' own assignments hold no slot (slot_holders); counted positively: NULL users
        .annotate(n=Count("assignments", filter=Q(assignments__status__in=ACTIVE))
                  - Count("assignments", filter=Q(assignments__status__in=ACTIVE) & pilots))
        .filter(n__lt=F("assignments_wanted"))
    )
    if mode is not None:
        candidates = candidates.filter(mode=mode)
    # the routing policy's name rides along (services/routing.py reorders those units): no query when none routes
    return candidates.order_by("id").values_list("id", "is_gold", "batch__settings__routing__policy")[:_CANDIDATES]


_HAS_TRAINING = OrmSql(lambda project_id: Unit.objects.filter(project_id=project_id, is_training=True)
                       .order_by().values_list("pk")[:1], project_id=int)
_CANDIDATES_ANY = OrmSql(_candidates, project_id=int, worker_id=int)
_CANDIDATES_OF_MODE = OrmSql(_candidates, project_id=int, worker_id=int, mode=str)


def _take_first_free(ids: list[int], worker: Worker, project: Project) -> tuple[Assignment | None, bool]:
    """Inside `next`'s transaction: the worker's new assignment of the first of `ids` (queue order) with a slot
    free, counted under the unit's lock; (None, whether a candidate was locked by another `next`) when none."""
    if connection.vendor == "sqlite":  # the IMMEDIATE transaction holds the database's write lock
        by_id = {u.pk: u for u in Unit.objects.select_related("batch").filter(pk__in=ids)}
        for unit in (by_id[i] for i in ids if i in by_id):
            if active_count(unit.pk, project.pk) < unit.assignments_wanted:
                return _create(unit, worker), False
        return None, len(by_id) < len(ids)
    # One candidate locked at a time, in the queue's order, skipping those another `next` holds: locking
    # all candidates in one statement made concurrent `next`s (all offered the same oldest units) find
    # every candidate taken and retry, which was most of `next`'s CPU when annotators start together.
    contended = False
    for uid in ids:
        rows = _LOCK_CANDIDATE.rows(unit_id=uid)
        if not rows:  # locked by another transaction (or gone)
            contended = True
            continue
        pk, wanted, batch_id, batch_settings = rows[0]
        if active_count(pk, project.pk) < wanted:
            # the unit as the queue read it (its other fields are read if something uses them)
            unit = Unit.from_db(Unit.objects.db, ["id", "project_id", "assignments_wanted", "batch_id"],
                                [pk, project.pk, wanted, batch_id])
            return Assignment.objects.create(unit=unit, worker=worker, provider_assignment_id="",
                                             expires_at=timezone.now() + timeout_of(batch_id, batch_settings),
                                             verification=Assignment.Verification.NOT_NEEDED), False
    return None, contended


# a candidate's row lock, skipping one another `next` holds, with what creating its assignment needs
_LOCK_CANDIDATE = OrmSql(lambda unit_id: Unit.objects.select_for_update(skip_locked=True, of=("self",))
                         .filter(pk=unit_id).order_by()
                         .values_list("pk", "assignments_wanted", "batch_id", "batch__settings")[:1],
                         unit_id=int)
_ASSIGNMENT_FIELDS = [f.attname for f in Assignment._meta.concrete_fields]


def _held_query(worker_id: int, project_id: int, now: datetime, mode: str | None = None) -> QuerySet:
    """The worker's open assignment in the project (of `mode`) that is not overdue, oldest first: every field."""
    held = Assignment.objects.filter(worker_id=worker_id, unit__project_id=project_id, status=Assignment.Status.ASSIGNED)
    if mode is not None:
        held = held.filter(unit__mode=mode)
    return (held.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now)).order_by("id")
            .values_list(*_ASSIGNMENT_FIELDS)[:1])


_HELD_ANY = OrmSql(_held_query, worker_id=int, project_id=int, now=datetime)
_HELD_OF_MODE = OrmSql(_held_query, worker_id=int, project_id=int, now=datetime, mode=str)


def local_units(project_id: int) -> QuerySet[Unit]:
    """The project's units the local queue serves: of local batches or of none."""
    return Unit.objects.filter(project_id=project_id).filter(Q(batch__isnull=True) | Q(batch__provider=LOCAL_PROVIDER))


def next_assignment(worker: Worker, project: Project, mode: str | None = None, *,
                    blocked: bool | None = None) -> Assignment | None:
    """The local annotator's next assignment in `project`: the one they hold, else a new one, else None.

    A unit goes to exactly `assignments_wanted` distinct workers, never more. Only units of local batches are
    served (a draft local batch too, so researchers can pilot before launching); platform batches are never.
    `blocked`: whether a decision in the project blocks the worker, when the caller has read it (annotator_in).
    This is the annotator's hot path (bench/bench_load.py): one locked query (more only when other `next`s hold
    the first candidates), a count inside the lock, and no
    query whose answer is known already (tests/work/test_hot_path_queries.py pins the number).
    """
    if blocked is None:
        blocked = WorkerProjectStatus.blocks(worker, project.pk)
    if blocked:  # blocks are per project (services.quality)
        return None
    expire_abandoned(project=project)
    now = timezone.now()
    held = (_HELD_OF_MODE.rows(worker_id=worker.pk, project_id=project.pk, now=now, mode=mode) if mode
            else _HELD_ANY.rows(worker_id=worker.pk, project_id=project.pk, now=now))
    if held:
        return Assignment.from_db(Assignment.objects.db, _ASSIGNMENT_FIELDS, held[0])
    lessons = getattr(project, "has_training_units", None)
    if lessons is None:
        lessons = bool(_HAS_TRAINING.rows(project_id=project.pk))
    if lessons:  # a new worker's first units are the training units
        from annotation_tasks.services import training

        lesson = training.gate(worker, project, local_units(project.pk))
        if lesson.unit is not None:
            unit = Unit.objects.select_related("batch").get(pk=lesson.unit.pk)
            return Assignment.objects.filter(unit=unit, worker=worker, status=Assignment.Status.ASSIGNED).first() \
                or _create(unit, worker)  # every new worker gets it, whatever its slots
        if lesson.failed:
            return None

    def attempt() -> tuple[Assignment | None, bool]:
        """(assignment, all candidates were locked by others)."""
        with transaction.atomic():
            found = (_CANDIDATES_OF_MODE if mode else _CANDIDATES_ANY).rows(
                project_id=project.pk, worker_id=worker.pk, **({"mode": mode} if mode else {}))
            rows = [(uid, bool(gold)) for uid, gold, _ in found]
            if any(policy is not None for _, _, policy in found):
                from annotation_tasks.services import routing  # numpy / scipy: loaded on first use

                place = {uid: i for i, uid in enumerate(routing.prefer_uncertain([uid for uid, _ in rows]))}
                rows = sorted((r for r in rows if r[0] in place), key=lambda r: place[r[0]])
            if not rows:
                return None, False
            if len({gold for _, gold in rows}) > 1:
                # quality control decides whether this worker's next unit is a gold one (oldest first in each
                # group); with only gold or only ordinary candidates the order is the queue's own either way
                from annotation_tasks.services.quality import gold_first  # imports pandas: loaded on first use

                ids = gold_first(worker, project, rows)
            else:
                ids = [uid for uid, _ in rows]
            return _take_first_free(ids, worker, project)

    for _ in range(50):
        try:
            assignment, contended = attempt()
        except IntegrityError:
            # the same worker's concurrent next took that unit first (one active assignment per worker and
            # unit): the transaction is rolled back as a whole, and the next attempt no longer offers the unit
            assignment, contended = None, True
        if assignment is not None or not contended:
            return assignment
        time.sleep(0.01)
    return None


def expire_abandoned(now=None, project: Project | None = None) -> int:
    """Assignments past expires_at and not submitted become expired, which returns their slot to the queue.

    A conditional UPDATE: on PostgreSQL it waits for a submit holding the row lock and then skips the row.
    """
    now = now or timezone.now()
    if project is not None and connection.vendor == "postgresql":  # `next`'s call: the UPDATE compiled once
        return _EXPIRE_IN_PROJECT.run(project_id=project.pk, now=now)
    return _abandoned(now, project.pk if project is not None else None).update(status=Assignment.Status.EXPIRED)


def _abandoned(now, project_id: int | None) -> QuerySet[Assignment]:
    qs = Assignment.objects.filter(status=Assignment.Status.ASSIGNED, expires_at__lt=now)
    return qs.filter(unit__project_id=project_id) if project_id is not None else qs


class _CompiledUpdate(OrmSql):
    """An UPDATE as QuerySet.update writes it (the filter on a relation as Django's `pk IN (subquery)`), compiled
    once and run with new values; answers the rows updated. PostgreSQL only (elsewhere Django's pre-update step may
    run a query of its own)."""

    def __init__(self, build, changes: dict[str, Any], **kinds: type) -> None:
        super().__init__(build, **kinds)
        self.changes = changes

    def _compile(self, alias: str):
        from django.db.models.sql import UpdateQuery

        stand_ins = self._stand_ins()
        by_value = {v: k for k, v in stand_ins.items()}
        query = self.build(**stand_ins).query.chain(UpdateQuery)
        query.add_update_values(self.changes)
        query.annotations = {}
        compiler = query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots = [(by_value.get(p) if isinstance(p, int | str | datetime) and not isinstance(p, bool) else None, p)
                 for p in params]
        return (sql, slots) if {name for name, _ in slots if name} == set(stand_ins) else None

    def run(self, **values: Any) -> int:
        alias = "default"
        if alias not in self._compiled:
            self._compiled[alias] = self._compile(alias)
        compiled = self._compiled[alias]
        if compiled is None or not self.fits(values):
            return self.build(**values).update(**self.changes)
        sql, slots = compiled
        with transaction.mark_for_rollback_on_error(using=alias), connections[alias].cursor() as cursor:
            cursor.execute(sql, [values[name] if name else const for name, const in slots])
            return cursor.rowcount


_EXPIRE_IN_PROJECT = _CompiledUpdate(lambda project_id, now: _abandoned(now, project_id),
                                     {"status": Assignment.Status.EXPIRED}, project_id=int, now=datetime)
