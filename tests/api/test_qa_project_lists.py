"""The QA and assignment lists at 10^5 units (issue 25 item 1): a QA keeps its response's project (QA.project,
migration 0021), so the QA list's scope, count and pages read QA ids alone; the assignments of one of the caller's
projects are counted over units alone. Every page must still be exactly the rows of the plain queryset."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from annotation_tasks.models import QA, Assignment, Predicate, Response, Worker
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def _qas(project, n: int, tag: str) -> list[QA]:
    source = project.sources.first()
    rows = []
    for i in range(n):
        r = Response.objects.create(project=project, source=source, external_id=f"{tag}-{i}", text="A man died .")
        p = Predicate.objects.create(response=r, token_index=2, text="died", verb_form="die")
        rows.append(QA(response=r, predicate=p, question=f"Who died {i}?", answer="A man", answer_start=0,
                       answer_end=2, validity=["unknown", "valid", "unknown"][i % 3]))
    return QA.objects.bulk_create(rows)


@pytest.fixture
def interleaved(world):
    # the two projects' QAs interleave by id, so a page of one is never a plain id range
    for k in range(4):
        _qas(world.a, 6, f"a{k}")
        _qas(world.b, 3, f"b{k}")
    return world


def test_a_qa_keeps_its_responses_project_however_it_is_created(world):
    response = Response.objects.get(project=world.a, external_id="r-a")
    predicate = response.predicates.first()
    kw = {"predicate": predicate, "question": "Who?", "answer": "A man", "answer_start": 0, "answer_end": 2}
    assert world.qa_a.project_id == world.a.pk and world.qa_b.project_id == world.b.pk  # QA.objects.create
    saved = QA(response_id=response.pk, **kw)
    saved.save()
    assert QA.objects.get(pk=saved.pk).project_id == world.a.pk
    by_instance = [QA(response=response, **kw) for _ in range(3)]
    with CaptureQueriesContext(connection) as queries:  # the response at hand: no query to find its project
        QA.objects.bulk_create(by_instance)
    assert not any("annotation_tasks_response" in q["sql"] for q in queries.captured_queries)
    other = Response.objects.get(project=world.b, external_id="r-b")
    by_id = [QA(response_id=rid, **kw) for rid in (response.pk, other.pk, response.pk)]
    with CaptureQueriesContext(connection) as queries:  # ids only: one query for all their projects
        QA.objects.bulk_create(by_id)
    assert sum("annotation_tasks_response" in q["sql"] for q in queries.captured_queries) == 1
    assert [q.project_id for q in by_id] == [world.a.pk, world.b.pk, world.a.pk]
    assert {q.project_id for q in QA.objects.filter(pk__in=[q.pk for q in by_id + by_instance])} == {
        world.a.pk, world.b.pk}
    assert response.qas.create(**kw).project_id == world.a.pk


@pytest.mark.parametrize("query,where", [
    ("ordering=id", {}),
    ("ordering=-id", {}),
    ("ordering=id&validity=unknown", {"validity": "unknown"}),
    ("", {}),  # the model's ordering: response, order, id
])
def test_every_qa_page_is_the_plain_querysets_rows(interleaved, users, query, where):
    client = client_for(users["alice"])
    plain = QA.objects.filter(response__project=interleaved.a, **where)  # the join, as the list was
    if "ordering" in query:
        plain = plain.order_by(query.split("&")[0].split("=")[1])
    expected = list(plain.values_list("id", flat=True))
    size = 4
    pages = -(-len(expected) // size)
    assert pages >= 5  # pages before and past the middle (read from the other end)
    for number in [*range(1, pages + 1), "last"]:
        start = (pages - 1 if number == "last" else number - 1) * size
        with CaptureQueriesContext(connection) as queries:
            body = client.get(f"/api/qas/?project={interleaved.a.pk}&page_size={size}&page={number}&{query}").json()
        assert body["count"] == len(expected)
        assert [r["id"] for r in body["results"]] == expected[start:start + size], number
        assert len(queries.captured_queries) <= 8  # token, permission, project ids, count, ids, page, edits
        for q in queries.captured_queries:  # the count and the page's ids read QAs alone, never a join
            if "COUNT(" in q["sql"] or 'AS "pk" FROM "annotation_tasks_qa"' in q["sql"]:
                assert "JOIN" not in q["sql"], q["sql"]
    cursor_walk, url = [], f"/api/qas/?project={interleaved.a.pk}&page_size={size}&cursor=&{query}"
    while url:
        body = client.get(url).json()
        cursor_walk += [r["id"] for r in body["results"]]
        url = body["next"]
    assert cursor_walk == expected


def test_a_qa_list_shows_only_the_callers_projects(interleaved, users):
    alice, bob = client_for(users["alice"]), client_for(users["bob"])
    assert {r["id"] for r in alice.get("/api/qas/?page_size=500").json()["results"]} == set(
        QA.objects.filter(response__project=interleaved.a).values_list("id", flat=True))
    assert alice.get(f"/api/qas/?project={interleaved.b.pk}").json()["count"] == 0
    assert alice.get(f"/api/qas/{interleaved.qa_b.pk}/").status_code == 404
    assert bob.get(f"/api/qas/?project={interleaved.b.pk}").json()["count"] == QA.objects.filter(
        response__project=interleaved.b).count()
    assert client_for(users["nobody"]).get("/api/qas/").status_code == 403


def test_assignments_of_a_researched_project_count_without_the_worker_join(world, users):
    alice = client_for(users["alice"])
    mine_in_b = Assignment.objects.create(unit=world.unit_b, worker=Worker.objects.create(
        external_id="alice", user=users["alice"]), status="submitted")
    extra = [Assignment.objects.create(unit=world.unit_a, worker=Worker.objects.create(external_id=f"w{i}"),
                                       status="submitted") for i in range(9)]
    expected = list(Assignment.objects.filter(unit__project=world.a).order_by("-id").values_list("id", flat=True))
    assert len(expected) == len(extra) + 2
    rows = []
    for number in range(1, 4):
        with CaptureQueriesContext(connection) as queries:
            body = alice.get(f"/api/assignments/?project={world.a.pk}&ordering=-id&page_size=4&page={number}").json()
        rows += [r["id"] for r in body["results"]]
        assert body["count"] == len(expected) and len(queries.captured_queries) <= 6
        count = next(q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"])
        assert "annotation_tasks_worker" not in count
    assert rows == expected
    # not her project: only her own work there; no project: her project's and her own
    assert [r["id"] for r in alice.get(f"/api/assignments/?project={world.b.pk}").json()["results"]] == [
        mine_in_b.pk]
    everything = {r["id"] for r in alice.get("/api/assignments/?page_size=100").json()["results"]}
    assert everything == {*expected, mine_in_b.pk}
    ann = client_for(users["ann"])  # an annotator of A sees only their own, project named or not
    for url in ("/api/assignments/", f"/api/assignments/?project={world.a.pk}"):
        assert [r["id"] for r in ann.get(url).json()["results"]] == [world.own_assignment.pk]


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_project_of_existing_qas():
    executor = MigrationExecutor(connection)
    before = [("annotation_tasks", "0020_scale")]
    executor.migrate(before)
    try:
        apps = executor.loader.project_state(before).apps
        Project, Source = apps.get_model("annotation_tasks", "Project"), apps.get_model("annotation_tasks", "Source")
        Resp, Pred = apps.get_model("annotation_tasks", "Response"), apps.get_model("annotation_tasks", "Predicate")
        OldQA = apps.get_model("annotation_tasks", "QA")
        made = []
        for name in ("one", "two"):
            project = Project.objects.create(name=name)
            r = Resp.objects.create(project=project, source=Source.objects.create(project=project, external_id="s"),
                                    external_id="r", text="A man died .")
            p = Pred.objects.create(response=r, token_index=2, text="died")
            made += [(OldQA.objects.create(response=r, predicate=p, question="Who?", answer="A man", answer_start=0,
                                           answer_end=2).pk, project.pk) for _ in range(2)]
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())  # through 0021_qa_project, to the latest
    assert {(qa.pk, qa.project_id) for qa in QA.objects.filter(pk__in=[m[0] for m in made])} == set(made)


@pytest.mark.parametrize("cap", [5000, 0])  # ids read first, or subqueries past the cap
def test_assignment_search_finds_what_a_joined_search_finds(world, users, monkeypatch, cap):
    from django.db.models import Q

    from annotation_tasks.api.assignments import AssignmentSearchFilter

    monkeypatch.setattr(AssignmentSearchFilter, "CAP", cap)
    alice = client_for(users["alice"])
    named = Worker.objects.create(external_id="p-991", display_name="Maria Tall")
    Assignment.objects.create(unit=world.unit_a, worker=named, status="submitted")
    Assignment.objects.create(unit=world.unit_a, worker=Worker.objects.create(external_id="p-992"),
                              status="rejected", feedback="Too fast: maria would not")
    for term in ("maria", "ann", "S-A", "p-99", "tall maria", "fast", "nothing-at-all", "eve s-a"):
        plain = Assignment.objects.filter(unit__project=world.a)
        for word in term.split():
            plain = plain.filter(Q(worker__display_name__icontains=word) | Q(worker__external_id__icontains=word)
                                 | Q(worker__user__username__icontains=word)
                                 | Q(unit__source__external_id__icontains=word) | Q(feedback__icontains=word))
        body = alice.get(f"/api/assignments/?project={world.a.pk}&search={term}&page_size=100").json()
        assert sorted(r["id"] for r in body["results"]) == sorted(plain.values_list("id", flat=True)), term
        assert body["count"] == plain.count()
    pseudonym = named.pseudonym_in(world.a.pk)  # the pseudonym path is SearchFilter's, as before
    body = alice.get(f"/api/assignments/?project={world.a.pk}&search={pseudonym}").json()
    assert [r["worker"]["id"] for r in body["results"]] == [named.pk]


def test_the_batch_filter_lists_whole_responses_and_only_a_slices_own_qas(world, users):
    from annotation_tasks.models import Batch, Unit, UnitResponse

    whole, sliced = _qas(world.a, 2, "whole"), _qas(world.a, 2, "sliced")
    extra = QA.objects.create(response=sliced[0].response, predicate=sliced[0].predicate, question="Who else?",
                              answer="A man", answer_start=0, answer_end=2)
    batch = Batch.objects.create(project=world.a, name="sliced")
    for qa, items in ((whole[0], None), (whole[1], None), (sliced[0], {"part": 1, "parts": 2, "qas": [sliced[0].pk]}),
                      (sliced[1], {"part": 2, "parts": 2, "qas": []})):
        unit = Unit.objects.create(project=world.a, batch=batch, source=qa.response.source)
        UnitResponse.objects.create(unit=unit, response=qa.response, items=items)
    body = client_for(users["alice"]).get(f"/api/qas/?project={world.a.pk}&batch={batch.pk}&ordering=id").json()
    assert [r["id"] for r in body["results"]] == sorted([whole[0].pk, whole[1].pk, sliced[0].pk])
    assert body["count"] == 3 and extra.pk not in {r["id"] for r in body["results"]}


def test_saving_a_qa_read_without_its_project_reads_nothing_more(world):
    qa = QA.objects.only("id", "validity").get(pk=world.qa_a.pk)
    qa.validity = "valid"
    with CaptureQueriesContext(connection) as queries:
        qa.save(update_fields=["validity"])
    assert len(queries.captured_queries) == 1 and QA.objects.get(pk=qa.pk).project_id == world.a.pk
    response = Response.objects.only("id").get(pk=world.qa_a.response_id)  # its project deferred: looked up once
    rows = QA.objects.bulk_create([QA(response=response, predicate=world.qa_a.predicate, question="Who?", answer="A",
                                      answer_start=0, answer_end=1) for _ in range(3)])
    assert {q.project_id for q in rows} == {world.a.pk}
