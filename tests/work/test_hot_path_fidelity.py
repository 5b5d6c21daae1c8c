"""What the hot path's shortcuts (issue 10's load work) may never change: what a worker is shown and who gets what.

The unit GET remembers detokenized texts and rendered instructions by their content, the draft PUT checks its
token in one narrow read, and `next` runs its candidate query from SQL the ORM compiled once (annotation_tasks.compiled_sql.OrmSql).
Each must answer exactly as the plain path does: an edit shows at the next fetch, an overdue draft revives, and the
candidate list is the ORM queryset's, for every kind of unit the queue must skip.
"""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.models import QA, Assignment, Batch, ProjectMembership, Unit, Worker
from annotation_tasks.services import queue
from annotation_tasks.services.local_workers import local_worker
from annotation_tasks.services.tokens import assignment_token
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _annotator(project, name: str, role=ProjectMembership.Role.ANNOTATOR):
    user = get_user_model().objects.create_user(name)
    ProjectMembership.objects.create(project=project, user=user, role=role)
    return user


def _unit_json(client: APIClient, token: str) -> dict:
    r = client.get(f"/api/work/{token}/unit")
    assert r.status_code == 200, r.content
    return r.json()


def test_every_edit_of_what_a_unit_shows_appears_at_the_next_fetch():
    unit = make_unit("Fidelity", n_qas=3, n_responses=2)
    project = unit.project
    user = _annotator(project, "fid-1")
    assignment = queue.assign(unit, local_worker(user))
    token = assignment_token(assignment)
    client = APIClient()
    first = _unit_json(client, token)
    assert _unit_json(client, token) == first  # a second fetch is the same answer

    project.instructions = "Read **carefully** now."
    project.save(update_fields=["instructions"])
    response = unit.unit_responses.order_by("position").first().response
    words = [t[0] for t in response.tokens]
    words[0] = "Zed"
    text, pos, tokens = "", 0, []
    for w in words:
        if text:
            text, pos = text + " ", pos + 1
        tokens.append([w, pos, pos + len(w)])
        text, pos = text + w, pos + len(w)
    response.text, response.tokens = text, tokens
    response.save(update_fields=["text", "tokens"])
    hidden = QA.objects.filter(response=response).order_by("order").first()
    QA.objects.filter(pk=hidden.pk).update(validity=QA.Validity.INVALID)  # a bulk update: no signal, no save()
    edited = QA.objects.filter(response=response).exclude(pk=hidden.pk).order_by("order").first()
    QA.objects.filter(pk=edited.pk).update(question="Who went somewhere ?")

    again = _unit_json(client, token)
    assert "<strong>carefully</strong>" in again["project"]["instructions_html"]
    shown = next(r for r in again["responses"] if r["id"] == response.pk)
    assert shown["text"].startswith("Zed ") and shown["tokens"][0][0] == "Zed"
    qa_ids = [q["id"] for q in shown["qas"]]
    assert hidden.pk not in qa_ids and edited.pk in qa_ids
    assert next(q for q in shown["qas"] if q["id"] == edited.pk)["question"] == "Who went somewhere?"
    before = next(r for r in first["responses"] if r["id"] == response.pk)
    assert hidden.pk in [q["id"] for q in before["qas"]] and not before["text"].startswith("Zed")


def test_a_draft_of_an_overdue_assignment_revives_it_and_a_done_one_is_refused():
    unit = make_unit("Drafts", n_qas=1, wanted=1)
    worker = local_worker(_annotator(unit.project, "fid-2"))
    assignment = queue.assign(unit, worker)
    token = assignment_token(assignment)
    client = APIClient()
    Assignment.objects.filter(pk=assignment.pk).update(expires_at=timezone.now() - timedelta(minutes=5))
    r = client.put(f"/api/work/{token}/draft", {"draft": {"step": 1}}, format="json")
    assert r.status_code == 200, r.content
    assignment.refresh_from_db()
    assert assignment.draft == {"step": 1} and assignment.expires_at > timezone.now() + timedelta(minutes=1)

    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.EXPIRED)
    other = local_worker(_annotator(unit.project, "fid-3"))
    assert queue.assign(unit, other) is not None  # the slot went to someone else meanwhile
    assert client.put(f"/api/work/{token}/draft", {"draft": {"step": 2}}, format="json").status_code == 403

    mine = Assignment.objects.get(unit=unit, worker=other)
    Assignment.objects.filter(pk=mine.pk).update(status=Assignment.Status.SUBMITTED)
    r = client.put(f"/api/work/{assignment_token(mine)}/draft", {"draft": {"step": 3}}, format="json")
    assert r.status_code == 409
    forged = assignment_token(mine)[:-2] + "xx"
    assert client.put(f"/api/work/{forged}/draft", {"draft": {}}, format="json").status_code == 403


def _orm_candidates(worker: Worker, project, mode: str | None) -> list[tuple[int, bool, str | None]]:
    """(unit, gold, routing policy): the rows `next_assignment` orders by, from the ORM queryset."""
    return [(uid, bool(gold), policy) for uid, gold, policy in queue._candidates(project.pk, worker.pk, mode)]


def test_next_candidates_from_the_compiled_sql_are_the_orm_querysets():
    units = make_unit("Candidates", n_sources=8, wanted=2, n_qas=1)
    project = units[0].project
    annotators = [local_worker(_annotator(project, f"cand-{k}")) for k in range(3)]
    researcher = local_worker(_annotator(project, "cand-r", ProjectMembership.Role.RESEARCHER))
    platform = Batch.objects.create(project=project, name="On MTurk", provider="mturk")
    Unit.objects.filter(pk=units[1].pk).update(batch=platform)  # platform units are never offered
    Unit.objects.filter(pk=units[2].pk).update(status=Unit.Status.COMPLETE)
    Unit.objects.filter(pk=units[3].pk).update(is_gold=True)
    queue.assign(units[4], annotators[0])
    queue.assign(units[4], annotators[1])  # full
    queue.assign(units[5], researcher)  # a pilot: holds no slot
    queue.assign(units[5], annotators[1])
    other_mode = Unit.Mode.FACTSCORE if units[6].mode != Unit.Mode.FACTSCORE else Unit.Mode.QASEM
    Unit.objects.filter(pk=units[6].pk).update(mode=other_mode)
    for worker in [*annotators, researcher]:
        for mode in (None, units[0].mode, other_mode):
            compiled = [(uid, bool(gold), policy) for uid, gold, policy in
                        (queue._CANDIDATES_OF_MODE if mode else queue._CANDIDATES_ANY).rows(
                            project_id=project.pk, worker_id=worker.pk, **({"mode": mode} if mode else {}))]
            assert compiled == _orm_candidates(worker, project, mode), (worker, mode)
    seen = {uid: gold for uid, gold, _ in _orm_candidates(annotators[2], project, None)}
    assert units[1].pk not in seen and units[2].pk not in seen and units[4].pk not in seen
    assert units[5].pk in seen and seen[units[3].pk] is True
    assert units[4].pk not in {uid for uid, *_ in _orm_candidates(annotators[0], project, None)}  # had it already


def test_compiled_sql_falls_back_to_the_queryset_when_a_value_is_not_a_parameter():
    units = make_unit("Fallback", n_sources=2, wanted=1, n_qas=1)
    project = units[0].project
    # a value written into the SQL text: its stand-in is not among the parameters
    inlined = queue.OrmSql(lambda project_id: Unit.objects.extra(where=[f"project_id = {int(project_id)}"])
                           .order_by("id").values_list("id"), project_id=int)
    assert inlined.rows(project_id=project.pk) == [(u.pk,) for u in units]
    assert inlined._compiled["default"] is None
    # a stand-in the queryset refuses (a negative slice bound)
    sliced = queue.OrmSql(lambda project_id, n: Unit.objects.filter(project_id=project_id).order_by("id")
                          .values_list("id")[:n], project_id=int, n=int)
    assert sliced.rows(project_id=project.pk, n=1) == [(units[0].pk,)]
    assert sliced._compiled["default"] is None
    plain = queue.OrmSql(lambda project_id: Unit.objects.filter(project_id=project_id).order_by("id")
                         .values_list("id"), project_id=int)
    assert plain.rows(project_id=project.pk) == [(u.pk,) for u in units]
    assert plain._compiled["default"] is not None


def test_compiled_sql_rows_carry_the_fields_converted_as_the_orm_does():
    from annotation_tasks.services import work

    unit = make_unit("Converted", n_qas=1, wanted=1)
    Batch.objects.filter(pk=unit.batch_id).update(settings={"assignment_duration_minutes": 7})
    assignment = queue.assign(unit, local_worker(_annotator(unit.project, "conv-1")))
    rows = work._DRAFT_TARGET.rows(assignment_id=assignment.pk, worker_id=assignment.worker_id)
    assert work._DRAFT_TARGET._compiled["default"] is not None
    orm = list(Assignment.objects.filter(pk=assignment.pk).values_list(
        "status", "expires_at", "unit__batch_id", "unit__batch__settings"))
    assert rows == orm and rows[0][3] == {"assignment_duration_minutes": 7}
    assert rows[0][1] == assignment.expires_at and rows[0][1].tzinfo is not None
    assert work.draft_target(assignment_token(assignment)).timeout == timedelta(minutes=7)
    assert work._DRAFT_TARGET.rows(assignment_id=assignment.pk, worker_id=assignment.worker_id + 1) == []


def test_held_assignment_and_slot_counts_from_the_compiled_sql_are_the_orms():
    """`next`'s held assignment (a datetime among the values) and the slot counts (active, counted), from compiled
    SQL, equal the ORM's: pilots and unverified entries hold no slot, an overdue or other-mode assignment is not held."""
    from django.db import connection

    units = make_unit("Held", n_sources=4, wanted=3, n_qas=1)
    project = units[0].project
    ann = [local_worker(_annotator(project, f"held-{k}")) for k in range(3)]
    pilot = local_worker(_annotator(project, "held-r", ProjectMembership.Role.RESEARCHER))
    a0 = queue.assign(units[0], ann[0])
    queue.assign(units[0], pilot)
    queue.assign(units[0], ann[1], "ext-1", Assignment.Verification.PENDING, free_slot_only=False)
    Assignment.objects.filter(pk=queue.assign(units[0], ann[2]).pk).update(status=Assignment.Status.SUBMITTED)
    overdue = queue.assign(units[1], ann[1])
    Assignment.objects.filter(pk=overdue.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    now = timezone.now()
    for worker in [*ann, pilot]:
        for mode in (None, units[0].mode, "other"):
            orm = queue._held_query(worker.pk, project.pk, now, mode)
            compiled = (queue._HELD_OF_MODE.rows(worker_id=worker.pk, project_id=project.pk, now=now, mode=mode) if mode
                        else queue._HELD_ANY.rows(worker_id=worker.pk, project_id=project.pk, now=now))
            assert compiled == list(orm), (worker, mode)
    assert queue.next_assignment(ann[0], project) == a0  # held, every field as the ORM reads it
    held = queue.next_assignment(ann[0], project)
    assert {f: getattr(held, f) for f in queue._ASSIGNMENT_FIELDS} == {
        f: getattr(Assignment.objects.get(pk=a0.pk), f) for f in queue._ASSIGNMENT_FIELDS}
    if connection.vendor == "postgresql":  # SQLite passes datetimes as text: there the queryset runs each time
        assert queue._HELD_ANY._compiled["default"] is not None
    for unit in units[:2]:
        orm_active = queue.slot_holders(Assignment.objects.filter(unit_id=unit.pk, status__in=queue.ACTIVE),
                                        project.pk).count()
        orm_counted = queue.slot_holders(Assignment.objects.filter(
            unit_id=unit.pk, status__in=Assignment.Status.counted()), project.pk).count()
        assert queue.active_count(unit.pk, project.pk) == orm_active
        assert queue.holders_count(queue.COUNTED_HOLDERS, unit.pk, project.pk) == orm_counted
    assert queue.active_count(units[0].pk, project.pk) == 2  # ann[0] and the submitted ann[2]
    assert queue.holders_count(queue.COUNTED_HOLDERS, units[0].pk, project.pk) == 1
    assert queue.active_count(units[3].pk, project.pk) == 0


def test_unit_items_from_the_compiled_sql_are_the_orm_querysets():
    """The unit GET's predicates, QAs and spans (compiled once per number of responses) equal the ORM queryset's
    answer, an expert-invalidated QA and the span left with no QA dropped alike, for one to three responses."""
    from annotation_tasks.models import Response
    from annotation_tasks.protocols import Shown
    from annotation_tasks.protocols.qasem import crowd_qas, qa_items_of

    unit = make_unit("Items", n_qas=3, n_responses=3)
    ids = list(Response.objects.filter(project=unit.project).order_by("id").values_list("id", flat=True))
    QA.objects.filter(pk=QA.objects.filter(response_id=ids[0]).order_by("id").first().pk).update(
        validity=QA.Validity.INVALID)
    for n in (1, 2, 3):
        some = ids[:n]
        shown_c, shown_o = ({rid: Shown() for rid in some} for _ in range(2))
        compiled = qa_items_of(some, None, shown_c)
        assert compiled == qa_items_of(some, crowd_qas(some), shown_o)
        assert {rid: (s.qas, s.spans) for rid, s in shown_c.items()} == {
            rid: (s.qas, s.spans) for rid, s in shown_o.items()}
        assert sum(len(v["qas"]) for v in compiled.values()) == 3 * n - 1
    assert qa_items_of([], None, {}) == {}


@pytest.mark.parametrize("related, defer", [
    ("ALL_RELATED", ()), ("UNIT_RELATED", "UNIT_UNSHOWN"), ("NO_RELATED", ("draft", "shown", "submission"))])
def test_the_token_read_from_compiled_sql_gives_what_select_related_gives(related, defer):
    """assignment_for_token's instances (compiled once): the same field values and cached relations as the
    select_related/defer queryset, a unit without a batch included; what was left unread still loads when used."""
    from annotation_tasks.services import work

    related = getattr(work, related)
    defer = getattr(work, defer) if isinstance(defer, str) else defer
    unit = make_unit("Token read", n_qas=1, wanted=2)
    other = make_unit("Token read, no batch", n_qas=1, wanted=2)
    Unit.objects.filter(pk=other.pk).update(batch=None)
    for u in (unit, other):
        a = queue.assign(Unit.objects.get(pk=u.pk), local_worker(_annotator(u.project, f"tr-{u.pk}")))
        Assignment.objects.filter(pk=a.pk).update(draft={"x": [1, "ü"]}, submission={"labels": {}})
        got = work.assignment_for_token(assignment_token(a), related=related, defer=defer)
        qs = Assignment.objects.select_related(*related) if related else Assignment.objects.all()
        want = qs.defer(*defer).get(pk=a.pk)
        assert got.get_deferred_fields() == want.get_deferred_fields()
        loaded = [f.attname for f in Assignment._meta.concrete_fields if f.attname not in want.get_deferred_fields()]
        assert {f: getattr(got, f) for f in loaded} == {f: getattr(want, f) for f in loaded}
        assert Assignment.unit.field.is_cached(got) == bool(related)  # read with it: no query when used
        for path in related:
            g, w = got, want
            for name in path.split("__"):
                g, w = getattr(g, name), getattr(w, name)
            if w is None:
                assert g is None
                continue
            assert g.get_deferred_fields() == w.get_deferred_fields()
            names = [f.attname for f in type(w)._meta.concrete_fields if f.attname not in w.get_deferred_fields()]
            assert {n: getattr(g, n) for n in names} == {n: getattr(w, n) for n in names}
        assert got.draft == {"x": [1, "ü"]} and got.submission == {"labels": {}}  # deferred ones load when read


def test_submits_locked_read_from_compiled_sql_gives_what_select_related_gives():
    from django.db import transaction

    from annotation_tasks.services import work

    unit = make_unit("Locked read", n_qas=1, wanted=2)
    a = queue.assign(unit, local_worker(_annotator(unit.project, "lr-1")))
    with transaction.atomic():
        got = work._LOCKED_READ.read(a.pk)
        want = (Assignment.objects.select_related("unit__project", "unit__source")
                .defer("draft", "submission", *work._NOT_VALIDATED).get(pk=a.pk))
        assert work._LOCKED_READ.read(a.pk + 1000) is None
    for g, w in ((got, want), (got.unit, want.unit), (got.unit.project, want.unit.project),
                 (got.unit.source, want.unit.source)):
        assert g.get_deferred_fields() == w.get_deferred_fields()
        names = [f.attname for f in type(w)._meta.concrete_fields if f.attname not in w.get_deferred_fields()]
        assert {n: getattr(g, n) for n in names} == {n: getattr(w, n) for n in names}


def test_submits_unit_responses_from_compiled_sql_are_the_querysets():
    from annotation_tasks.models import UnitResponse
    from annotation_tasks.protocols import payload
    from annotation_tasks.protocols.qasem import LATER_PART_ATTR

    unit = make_unit("Unit responses", n_qas=1, n_responses=2)
    got = payload.unit_responses(Unit.objects.get(pk=unit.pk))
    links = list(UnitResponse.objects.filter(unit=unit).select_related("response")
                 .defer("response__tokens", "response__text", "response__metadata").order_by("position", "response_id"))
    want = [link.response for link in links]
    assert [r.pk for r in got] == [r.pk for r in want] and len(got) == 2
    for g, w in zip(got, want, strict=True):
        assert g.get_deferred_fields() == w.get_deferred_fields()
        names = [f.attname for f in type(w)._meta.concrete_fields if f.attname not in w.get_deferred_fields()]
        assert {n: getattr(g, n) for n in names} == {n: getattr(w, n) for n in names}
        assert g.text == w.text  # deferred: read when used
    UnitResponse.objects.filter(unit=unit, response=want[1]).update(items={"part": 1})
    fresh = Unit.objects.get(pk=unit.pk)
    payload.unit_responses(fresh)
    assert getattr(fresh, LATER_PART_ATTR) is True


def test_next_expiry_update_compiled_once_expires_exactly_what_the_queryset_update_does():
    """Only the project's overdue open assignments expire (on PostgreSQL from the UPDATE compiled once, with the
    same SQL QuerySet.update writes); the count answered is the rows changed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    here = make_unit("Expire here", n_sources=2, n_qas=1, wanted=2)
    there = make_unit("Expire there", n_qas=1, wanted=2)
    w = [local_worker(_annotator(here[0].project, f"ex-{k}")) for k in range(2)]
    past = timezone.now() - timedelta(minutes=5)
    overdue = [queue.assign(here[0], w[0]), queue.assign(here[1], w[0])]
    fresh = queue.assign(here[0], w[1])
    elsewhere = queue.assign(there, local_worker(_annotator(there.project, "ex-x")))
    done = queue.assign(here[1], w[1])
    Assignment.objects.filter(pk__in=[a.pk for a in [*overdue, elsewhere, done]]).update(expires_at=past)
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    with CaptureQueriesContext(connection) as ctx:
        assert queue.expire_abandoned(project=here[0].project) == 2
    status = dict(Assignment.objects.values_list("pk", "status"))
    assert [status[a.pk] for a in overdue] == [Assignment.Status.EXPIRED] * 2
    assert status[fresh.pk] == status[elsewhere.pk] == Assignment.Status.ASSIGNED
    assert status[done.pk] == Assignment.Status.SUBMITTED
    assert queue.expire_abandoned(project=here[0].project) == 0
    if connection.vendor == "postgresql":  # the very statement QuerySet.update sends, values and all
        assert queue._EXPIRE_IN_PROJECT._compiled["default"] is not None
        now = timezone.now()
        with CaptureQueriesContext(connection) as compiled:
            queue._EXPIRE_IN_PROJECT.run(project_id=here[0].project.pk, now=now)
        with CaptureQueriesContext(connection) as orm:
            queue._abandoned(now, here[0].project.pk).update(status=Assignment.Status.EXPIRED)
        assert compiled.captured_queries[-1]["sql"] == orm.captured_queries[-1]["sql"]
    assert ctx.captured_queries
