"""Serving a unit to a worker, saving drafts, and recording a submission once.

Here: tokens, the worker's draft, the submit transaction and its idempotency. What a unit shows and how its
labels are checked and written belongs to the unit's protocol (annotation_tasks.protocols, by Unit.Mode);
the payload itself is built in protocols/payload.py, which names every field that reaches the browser.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.protocols import Errors, Shown, Submission, UnknownProtocol, get_protocol, label_levels, payload
from annotation_tasks.services import queue, routing
from annotation_tasks.services.tokens import BadToken, read_assignment_token, read_preview_token
from annotation_tasks.textcheck import json_text_problem, walk_json


class WorkError(Exception):
    status_code = 400

    def __init__(self, message: str, errors: list[dict] | None = None):
        super().__init__(message)
        self.errors = errors or [{"field": "", "message": message}]


class Forbidden(WorkError):
    status_code = 403


class Conflict(WorkError):
    status_code = 409


class Invalid(WorkError):
    status_code = 400


# -- tokens ------------------------------------------------------------------------------------


# What each caller of assignment_for_token reads of the assignment's relations: every query on the annotator's hot
# path compiles and reads only what it uses (a wide select_related was half of a unit GET's CPU).
ALL_RELATED = ("unit__project", "unit__source", "unit__batch", "worker")
UNIT_RELATED = ("unit__project", "unit__source")  # the unit payload
# what no payload shows (read if something does use it): left out of the unit GET's read
UNIT_UNSHOWN = ("submission", "unit__source__metadata", "unit__project__description", "unit__project__parse_policy",
                "unit__project__unit_caps")
NO_RELATED: tuple[str, ...] = ()  # submit: it re-reads the assignment and its unit under the locks


def assignment_for_token(token: str, *, for_write: bool = False, related: tuple[str, ...] = ALL_RELATED,
                         defer: tuple[str, ...] = ()) -> Assignment:
    """The assignment a token names; Forbidden when tampered, foreign, returned or expired for good.

    `related` / `defer`: the relations read with it and the fields left unread (loaded if something reads them)."""
    try:
        claim = read_assignment_token(token)
    except BadToken as exc:
        raise Forbidden("invalid token") from exc
    assignment = _token_read(related, defer).read(claim.assignment_id, claim.worker_id)
    if assignment is None:
        raise Forbidden("invalid token")
    overdue = assignment.expires_at is not None and assignment.expires_at < timezone.now()
    if assignment.status == Assignment.Status.EXPIRED or (assignment.status == Assignment.Status.ASSIGNED and overdue):
        if not queue.revive(assignment):
            raise Forbidden("this assignment has expired")
    if assignment.status == Assignment.Status.RETURNED:
        raise Forbidden("this assignment was returned")
    if for_write and assignment.status in Assignment.Status.done():
        raise Conflict("already submitted")
    return assignment


class _TokenRead:
    """assignment_for_token's read: the assignment of (pk, worker) with `related` (a chain of non-null foreign keys
    from the assignment, e.g. unit__project) and without `defer`, as `select_related(*related).defer(*defer)
    .filter(...).first()` gives it, from SQL the ORM compiled once (annotation_tasks.compiled_sql.OrmSql): model instances with
    the same fields loaded and the relations cached, any other field read when first used."""

    def __init__(self, related: tuple[str, ...], defer: tuple[str, ...], *, lock: bool = False) -> None:
        paths = sorted({"", *(p for r in related for p in ("__".join(r.split("__")[: i + 1])
                                                           for i in range(len(r.split("__")))))}, key=len)
        self.parts: list[tuple[str, type, list[str]]] = []  # (path, model, attnames read)
        for path in paths:
            model = Assignment
            for name in path.split("__") if path else []:
                model = model._meta.get_field(name).related_model
            prefix = f"{path}__" if path else ""
            names = [f.attname for f in model._meta.concrete_fields
                     if f"{prefix}{f.name}" not in defer and f"{prefix}{f.attname}" not in defer]
            self.parts.append((path, model, names))
        columns = [f"{path}__{n}" if path else n for path, _, names in self.parts for n in names]
        if lock:  # submit's read under the assignment's row lock (compiled inside the transaction it needs)
            self.sql = queue.OrmSql(lambda assignment_id: Assignment.objects.select_for_update(of=("self",))
                                    .filter(pk=assignment_id).order_by().values_list(*columns), assignment_id=int)
        else:
            self.sql = queue.OrmSql(lambda assignment_id, worker_id: Assignment.objects.filter(
                pk=assignment_id, worker_id=worker_id).order_by("pk").values_list(*columns)[:1],
                assignment_id=int, worker_id=int)

    def read(self, assignment_id: int, worker_id: int | None = None) -> Assignment | None:
        rows = self.sql.rows(assignment_id=assignment_id, **({} if worker_id is None else {"worker_id": worker_id}))
        if not rows:
            return None
        row, at, db = rows[0], 0, Assignment.objects.db
        made: dict[str, Any] = {}
        for path, model, names in self.parts:
            values = row[at: at + len(names)]
            at += len(names)
            pk = values[names.index(model._meta.pk.attname)] if model._meta.pk.attname in names else None
            made[path] = model.from_db(db, names, values) if pk is not None or not path else None
            if path:  # cache it on its parent, as select_related does (None for a nullable key without a row)
                parent, _, name = path.rpartition("__")
                if made[parent] is not None:
                    made[parent]._meta.get_field(name).set_cached_value(made[parent], made[path])
        return made[""]


_TOKEN_READS: dict[tuple[tuple[str, ...], tuple[str, ...]], _TokenRead] = {}


def _token_read(related: tuple[str, ...], defer: tuple[str, ...]) -> _TokenRead:
    key = (related, defer)
    if key not in _TOKEN_READS:
        _TOKEN_READS[key] = _TokenRead(related, defer)
    return _TOKEN_READS[key]


@dataclass(frozen=True)
class DraftTarget:
    """The assignment a draft PUT writes to and how long activity keeps it (its batch's timeout)."""

    assignment_id: int
    timeout: timedelta


_DRAFT_TARGET = queue.OrmSql(
    lambda assignment_id, worker_id: Assignment.objects.filter(pk=assignment_id, worker_id=worker_id)
    .order_by("pk").values_list("status", "expires_at", "unit__batch_id", "unit__batch__settings")[:1],
    assignment_id=int, worker_id=int,
)


def draft_target(token: str) -> DraftTarget:
    """The draft PUT's token check in one narrow query: an open assignment that is not overdue is written to at
    once; any other state (overdue, expired, returned, done, unknown) goes through assignment_for_token's full
    rules (revive, 403, 409), so both paths answer alike."""
    try:
        claim = read_assignment_token(token)
    except BadToken as exc:
        raise Forbidden("invalid token") from exc
    rows = _DRAFT_TARGET.rows(assignment_id=claim.assignment_id, worker_id=claim.worker_id)
    if rows:
        status, expires_at, batch_id, batch_settings = rows[0]
        if status == Assignment.Status.ASSIGNED and (expires_at is None or expires_at >= timezone.now()):
            return DraftTarget(claim.assignment_id, queue.timeout_of(batch_id, batch_settings))
    assignment = assignment_for_token(token, for_write=True)
    return DraftTarget(assignment.pk, queue.timeout_for(assignment.unit))


def unit_for_preview_token(token: str) -> Unit:
    try:
        unit_id = read_preview_token(token)
    except BadToken as exc:
        raise Forbidden("invalid token") from exc
    unit = Unit.objects.select_related("project", "source").filter(pk=unit_id).first()
    if unit is None:
        raise Forbidden("invalid token")
    return unit


# -- the unit payload ----------------------------------------------------------------------------


def _payload(unit: Unit, assignment_part: dict[str, Any], recorded: dict[str, Any] | None = None
             ) -> tuple[dict[str, Any], Shown]:
    return payload.build(unit, assignment_part, recorded)


def unit_payload(assignment: Assignment) -> dict[str, Any]:
    """The GET unit answer for a worker; the first fetch records what was shown and when work started."""
    data, record = unit_payload_then_record(assignment)
    record()
    return data


def unit_payload_then_record(assignment: Assignment) -> tuple[dict[str, Any], Callable[[], None]]:
    """The GET unit answer, and what the first fetch records (the items shown, when work started) as a callable.

    The unit page embeds the answer and runs the callable once the page has been sent: the write (one commit)
    is then off the path to the first label. `started_at` is the time the answer was built either way, and a
    submit that finds nothing recorded rebuilds what was shown (see submit)."""
    unit = assignment.unit
    data, shown = _payload(
        unit, {"id": assignment.pk, "status": assignment.status, "mode": unit.mode, "preview": False},
        assignment.shown,
    )
    data["draft"] = readable_draft(assignment.draft)
    data["draft_saved_at"] = assignment.draft_saved_at.isoformat() if assignment.draft_saved_at else None
    data["draft_version"] = assignment.draft_version  # what the next draft save names (stale tabs get a 409)
    changes: dict[str, Any] = {}
    if assignment.started_at is None:
        changes["started_at"] = timezone.now()
    if not assignment.shown:
        changes["shown"] = shown.as_dict()

    def record() -> None:
        if changes:  # the first fetch only
            Assignment.objects.filter(pk=assignment.pk).update(**changes)
            for name, value in changes.items():
                setattr(assignment, name, value)
            changes.clear()

    return data, record


def preview_payload(unit: Unit) -> dict[str, Any]:
    data, _ = _payload(unit, {"id": None, "status": "preview", "mode": unit.mode, "preview": True})
    return data


# -- drafts --------------------------------------------------------------------------------------


STALE = ("this unit was changed in another tab or window (draft version {current}, this page has {given}): "
         "reload to continue from the saved answers")


def stale_conflict(current: int, given: int) -> Conflict:
    """The 409 of a stale tab: its draft or submit names an older draft version than the one saved."""
    message = STALE.format(current=current, given=given)
    return Conflict(message, [{"field": "draft_version", "message": message, "current": current}])


MAX_DRAFT_VERSION = 2**31 - 1  # the column's range (a bigger number would reach the database as an overflow)


def _version(value: Any) -> int | None:
    """The draft version a client names (None: it names none, the last write wins as before versions)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_DRAFT_VERSION:
        raise Invalid("bad draft version", [{"field": "draft_version",
                                             "message": f"must be an integer from 0 to {MAX_DRAFT_VERSION}"}])
    return value


def _non_finite_at(value: Any, path: str) -> str | None:
    """The path of the first infinite or NaN number in a parsed JSON value, in document order, else None."""
    found = (where for where, item in walk_json(value, path) if isinstance(item, float) and not math.isfinite(item))
    return next((where or "(body)" for where in found), None)


NOT_FINITE = "must be a finite number (JSON has no infinity or NaN: 1e999 reads as infinity)"


def _stored_form(draft: Any, path: str) -> tuple[tuple[str, str] | None, int]:
    """((field path, problem) or None, the draft's size in bytes as stored). One compact json.dumps (C speed) tells
    whether anything is wrong: it refuses infinity and NaN, writes a NUL as \\u0000 and keeps a lone surrogate, which
    the UTF-8 encoder then refuses; only then does a walk name the place (a walk over every string of every draft
    was a good part of a draft save's CPU)."""
    try:
        text = json.dumps(draft, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:
        return (_non_finite_at(draft, path) or path, NOT_FINITE), 0
    try:
        stored = text.encode("utf-8")
    except UnicodeEncodeError:
        return json_text_problem(draft, path), len(text.encode("utf-8", "surrogatepass"))
    return (json_text_problem(draft, path) if "\\u0000" in text else None), len(stored)


def draft_problem(draft: Any, path: str = "draft") -> tuple[str, str] | None:
    """(field path, problem) when a parsed draft holds what not every database can store, else None: an infinite or
    NaN number (a JSON column refuses it: the save was a 500), a NUL or a lone surrogate in any key or string
    (PostgreSQL refuses them; SQLite stored them and every later read of the draft was a 500). Checked on the
    parsed value: a form field's JSON and a UTF-16 body bring such values as well as a UTF-8 JSON body."""
    return _stored_form(draft, path)[0]


def check_draft(draft: Any) -> None:
    """Invalid naming `draft` and the place in it when the draft cannot be stored or is larger than
    WORK_DRAFT_MAX_BYTES (its nesting depth is the view's check: json.dumps would recurse into any depth)."""
    problem, size = _stored_form(draft, "draft")
    if problem is None and size > settings.WORK_DRAFT_MAX_BYTES:
        problem = ("draft", f"larger than {settings.WORK_DRAFT_MAX_BYTES} bytes")
    if problem is not None:
        raise Invalid("invalid request", [{"field": problem[0], "message": problem[1]}])


_UNSTORABLE_CHARACTER = re.compile("[\x00\ud800-\udfff]")


def _mended(value: Any) -> Any:
    if isinstance(value, str):
        return _UNSTORABLE_CHARACTER.sub("\ufffd", value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {_mended(str(key)): _mended(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_mended(child) for child in value]
    return value


def readable_draft(draft: Any) -> Any:
    """A stored draft as the unit and review answers show it. One saved before drafts were checked may hold a lone
    surrogate or a NUL (SQLite stored them; no UTF-8 encoder writes a lone surrogate, so every read of the unit
    was a 500): such characters come back as U+FFFD, so the annotator keeps the rest of their work and their next
    save stores only good text."""
    return draft if draft_problem(draft) is None else _mended(draft)


def save_draft(assignment: Assignment | DraftTarget, draft: Any, version: Any = None
               ) -> tuple[timezone.datetime, int | None]:
    """Store the element's draft; activity also pushes the expiry back so a working annotator keeps the unit.
    One conditional UPDATE: a submit or expiry that got there first leaves it writing nothing (409 / 403).

    Drafts carry a version (Assignment.draft_version, in the unit payload): a save naming `version` writes only
    over that version and bumps it, so a second tab on the same assignment that saved meanwhile makes this one's
    save a 409 conflict it shows, never a silent overwrite. Returns (saved at, the new version; None unversioned).
    A draft that cannot be stored is refused first (check_draft), whatever content type brought it."""
    check_draft(draft)
    if isinstance(assignment, DraftTarget):
        pk, timeout = assignment.assignment_id, assignment.timeout
    else:
        pk, timeout = assignment.pk, queue.timeout_for(assignment.unit)
    version = _version(version)
    now = timezone.now()
    rows = Assignment.objects.filter(pk=pk, status=Assignment.Status.ASSIGNED)
    if version is not None:
        rows = rows.filter(draft_version=version)
    updated = rows.update(draft=draft, draft_saved_at=now, expires_at=now + timeout,
                          draft_version=F("draft_version") + 1)
    if not updated:
        found = Assignment.objects.filter(pk=pk).values_list("status", "draft_version").first()
        status, current = found if found else (None, None)
        if status in Assignment.Status.done():
            raise Conflict("already submitted")
        if status == Assignment.Status.ASSIGNED and version is not None and current != version:
            raise stale_conflict(int(current or 0), version)
        raise Forbidden("this assignment is not open")
    return now, (None if version is None else version + 1)


# -- submission ----------------------------------------------------------------------------------


@dataclass
class SubmitResult:
    status: str
    duplicate: bool


def _read_body(body: Any) -> tuple[Mapping[str, Any], int | None]:
    """The labels object and the optional time on task of a submit body; Invalid naming the field otherwise."""
    labels = body.get("labels") if isinstance(body, Mapping) else None
    if not isinstance(labels, Mapping):
        raise Invalid("labels missing", [{"field": "labels", "message": "must be an object"}])
    time_ms = body.get("time_on_task_ms")
    if time_ms is not None and (not isinstance(time_ms, int) or isinstance(time_ms, bool) or time_ms < 0):
        raise Invalid("bad time", [{"field": "time_on_task_ms", "message": "must be a non-negative integer"}])
    return labels, time_ms


def _record(locked: Assignment, labels: Mapping[str, Any], time_ms: int | None) -> None:
    """Validate through the unit's protocol, write its labels, mark the assignment submitted and the unit
    complete once enough assignments count. Runs inside the submit transaction, which holds the unit's lock:
    the count sees every other submit of the unit that committed, and none is in flight."""
    unit = locked.unit
    try:
        protocol = get_protocol(unit.mode)
    except UnknownProtocol as exc:
        raise Invalid(str(exc)) from exc
    shown = locked.shown or _payload(unit, {"id": locked.pk})[1].as_dict()  # drawn as the page drew it
    submission = Submission(unit=unit, responses=payload.unit_responses(unit), shown=shown, labels=labels)
    errors = Errors()
    clean = protocol.validate(submission, errors)
    if errors.items:
        raise Invalid("incomplete or invalid submission", errors.items)
    protocol.write(locked, submission, clean)
    _drop_votes_cast_elsewhere(locked, unit)
    now = timezone.now()
    elapsed = int((now - locked.started_at).total_seconds() * 1000) if time_ms is None and locked.started_at else time_ms
    Assignment.objects.filter(pk=locked.pk).update(
        status=Assignment.Status.SUBMITTED, submitted_at=now, time_on_task_ms=elapsed,
        submission={"labels": dict(labels), "time_on_task_ms": time_ms},
    )
    counted = queue.holders_count(queue.COUNTED_HOLDERS, unit.pk, unit.project_id)
    if counted >= unit.assignments_wanted or routing.stops(unit):  # routing: all its items already confident
        Unit.objects.filter(pk=unit.pk, status=Unit.Status.OPEN).update(status=Unit.Status.COMPLETE)


def _drop_votes_cast_elsewhere(locked: Assignment, unit: Unit) -> None:
    """One counted vote per worker per item: labels of items the worker already labelled through a unit of another
    batch (work that counts: submitted or approved) are not stored again, unless this unit's batch is a retest
    (settings.retest, test-retest on purpose; the exports mark those votes). The raw submission keeps them. The
    queue already keeps such units from the worker (queue.judged_elsewhere); platform entries reach them anyway."""
    counted = [s.value for s in Assignment.Status.counted()]
    if not Unit.objects.filter(pk=unit.pk).filter(queue.judged_elsewhere(locked.worker_id, counted)).exists():
        return
    # (read only now: the batch's settings are no part of a submit's locked read; a JSON key's negation in SQL is
    # NULL for batches without the key)
    if unit.batch_id and (Unit.objects.filter(pk=unit.pk).values_list("batch__settings", flat=True)[0] or {}).get(
            queue.RETEST):
        return
    earlier = Assignment.objects.filter(worker_id=locked.worker_id, status__in=counted,
                                        unit__project_id=unit.project_id).exclude(pk=locked.pk)
    for level in label_levels():
        item = level.item_field
        level.model.objects.filter(assignment_id=locked.pk, **{f"{item}__in": level.model.objects.filter(
            assignment__in=earlier).values(item)}).delete()


# what no protocol's validate or write reads (read if one does): left out of the locked read of a submit
_NOT_VALIDATED = ("unit__source__text", "unit__source__tokens", "unit__source__metadata", "unit__project__description",
                  "unit__project__instructions", "unit__project__parse_policy", "unit__project__unit_caps")


# submit's read of the assignment under its lock, with what validate and write use of its unit
_LOCKED_READ = _TokenRead(("unit__project", "unit__source"), ("draft", "submission", *_NOT_VALIDATED), lock=True)

# the unit's row lock that orders a unit's submits (compiled inside a transaction: select_for_update needs one)
_LOCK_UNIT = queue.OrmSql(lambda unit_id: Unit.objects.select_for_update().filter(pk=unit_id).values_list("pk"),
                          unit_id=int)


def submit(assignment: Assignment, body: Mapping[str, Any]) -> SubmitResult:
    """Validate and record a submission in one transaction; a repeat (also a concurrent one) records nothing.

    The unit row is locked first, then the assignment row (select_for_update; the queue locks units in the same
    order): of two concurrent submits of one assignment one writes and the other sees "submitted", and the
    submits of one unit follow each other, so the one that brings the count to `assignments_wanted` sees the
    others and completes the unit (counted without the lock, two last submits landing within a few ms each
    missed the other's and left a fully labelled unit open). SQLite has no row locks: every transaction begins
    IMMEDIATE (backend/settings.py), holding the database-wide write lock before it reads anything.
    """
    labels, time_ms = _read_body(body)
    with transaction.atomic():
        _LOCK_UNIT.rows(unit_id=assignment.unit_id)  # FOR UPDATE; no-op on SQLite
        locked = _LOCKED_READ.read(assignment.pk)  # FOR UPDATE OF the assignment
        if locked is None:
            raise Assignment.DoesNotExist("Assignment matching query does not exist.")
        if locked.status in Assignment.Status.done():
            return SubmitResult(locked.status, True)
        if locked.status != Assignment.Status.ASSIGNED:
            raise Forbidden("this assignment is not open")
        version = _version(body.get("draft_version")) if isinstance(body, Mapping) else None
        if version is not None and version != locked.draft_version:  # a stale tab: another saved since it loaded
            raise stale_conflict(locked.draft_version, version)
        _record(locked, labels, time_ms)
        return SubmitResult(Assignment.Status.SUBMITTED, False)
