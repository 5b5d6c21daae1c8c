"""Filtered and searched dashboard lists at 10^5 rows (issue 25 item 1): a searched QA list gives its count and its
page from one query (COUNT(*) OVER ()), ?kind= is answered from the project's kinds where it can, assignments keep
their unit's project (Assignment.project, migration 0022) so their lists, ?status= and the monitor's counts need
no join, and ?search= matches workers / units / feedback by index. Every page must be exactly the plain queryset's
rows (pages before and past the middle, and "last"), with a bounded number of queries; the monitor's figures
must equal those computed the old way (joined, times sorted in Python)."""
from __future__ import annotations

import statistics

import pytest
from django.db import connection
from django.db.models import Count, Q
from django.test.utils import CaptureQueriesContext

from annotation_tasks.models import QA, Assignment, Predicate, Response, Source, Unit, Worker
from annotation_tasks.services.monitoring import project_overview
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def _qas(project, n: int, tag: str, kind: str = "verbal") -> None:
    source = project.sources.first()
    rows = []
    for i in range(n):
        r = Response.objects.create(project=project, source=source, external_id=f"{tag}-{i}", text="A man died .")
        p = Predicate.objects.create(response=r, token_index=2, text="died", verb_form="die", kind=kind)
        rows.append(QA(response=r, predicate=p, question=f"Who died {tag} {i}?", answer="A man", answer_start=0,
                       answer_end=2, origin=["parser", "human"][i % 2]))
    QA.objects.bulk_create(rows)


@pytest.fixture
def mixed(world):
    for k in range(3):  # the two projects' QAs interleave by id
        _qas(world.a, 5, f"a{k}", kind="nominal" if k == 1 else "verbal")
        _qas(world.b, 3, f"b{k}")
    return world


def _walk(client, url: str, expected: list[int], size: int = 3, max_queries: int = 12) -> None:
    pages = max(1, -(-len(expected) // size))
    for number in [*range(1, pages + 1), "last"]:
        start = (pages - 1 if number == "last" else number - 1) * size
        with CaptureQueriesContext(connection) as queries:
            answer = client.get(f"{url}&page_size={size}&page={number}")
        assert answer.status_code == 200, (number, answer.content)
        body = answer.json()
        assert body["count"] == len(expected), number
        assert [r["id"] for r in body["results"]] == expected[start:start + size], (url, number)
        assert (body["next"] is None) == (start + size >= len(expected))
        assert len(queries) <= max_queries, [q["sql"] for q in queries.captured_queries]
    assert client.get(f"{url}&page_size={size}&page={pages + 1}").status_code == 404
    assert client.get(f"{url}&page_size={size}&page=0").status_code == 404


@pytest.mark.parametrize("query,where", [
    ("search=died a1", {"question__icontains": "died a1"}),
    ("search=a0", {"question__icontains": "a0"}),
    ("search=nothing-like-this", {"question__icontains": "nothing-like-this"}),
    ("origin=human", {"origin": "human"}),
    ("kind=nominal", {"predicate__kind": "nominal"}),
    ("kind=verbal", {"predicate__kind": "verbal"}),
    ("kind=verbal,nominal", {}),
    ("kind=adjectival", {"pk__in": []}),
    ("kind=verbal&search=a2", {"predicate__kind": "verbal", "question__icontains": "a2"}),
])
@pytest.mark.parametrize("ordering", ["id", "-id"])
def test_filtered_qa_pages_are_the_plain_querysets_rows(mixed, users, query, where, ordering):
    client = client_for(users["alice"])
    expected = list(QA.objects.filter(response__project=mixed.a, **where).order_by(ordering)
                    .values_list("id", flat=True))
    _walk(client, f"/api/qas/?project={mixed.a.pk}&ordering={ordering}&{query}", expected)


def test_kind_of_a_one_kind_project_reads_no_predicate_join(mixed, users):
    client = client_for(users["bob"])  # researcher of B, whose predicates are all verbal
    with CaptureQueriesContext(connection) as queries:
        body = client.get(f"/api/qas/?project={mixed.b.pk}&kind=verbal&ordering=id&page_size=50").json()
    assert [r["id"] for r in body["results"]] == list(
        QA.objects.filter(response__project=mixed.b).order_by("id").values_list("id", flat=True))
    listing = [q["sql"] for q in queries.captured_queries if 'FROM "annotation_tasks_qa"' in q["sql"]]
    assert listing and not any("annotation_tasks_predicate" in sql for sql in listing[:2])  # count and ids
    assert client.get(f"/api/qas/?project={mixed.b.pk}&kind=nominal").json()["count"] == 0


@pytest.mark.parametrize("project", ["100000000000000000000000", "9223372036854775808", "other"])
def test_kind_of_an_out_of_range_or_foreign_project_is_an_empty_list(mixed, users, project):
    client = client_for(users["bob"])  # not a researcher of A
    project_id = str(mixed.a.pk) if project == "other" else project
    answer = client.get(f"/api/qas/?project={project_id}&kind=verbal")
    assert answer.status_code in (200, 400), answer.content  # never a 500 (an id past 64 bits overflowed SQLite)
    assert answer.status_code == 400 or answer.json()["count"] == 0

@pytest.fixture
def crowd(world):
    """Eight more units of project A (own sources), each done by some of six workers, statuses and feedback
    mixed; project B's assignment stays out of A's lists."""
    workers = [Worker.objects.create(external_id=f"crowd-{i}", display_name=f"Crowd {i}") for i in range(6)]
    statuses = ["submitted", "approved", "rejected", "assigned", "returned", "submitted", "approved"]
    n = 0
    for u in range(8):
        source = Source.objects.create(project=world.a, external_id=f"src-{u}", text="x")
        unit = Unit.objects.create(project=world.a, batch=world.unit_a.batch, source=source)
        for w in workers[u % 3: u % 3 + 3]:
            status = statuses[n % len(statuses)]
            Assignment.objects.create(unit=unit, worker=w, status=status, time_on_task_ms=1000 * (n % 11) + 500,
                                      feedback="great src-1 work" if n % 5 == 0 else "",
                                      verification="unverified" if n % 4 == 0 else "not_needed")
            n += 1
    return world


def test_an_assignment_keeps_its_units_project_however_it_is_created(crowd):
    w = Worker.objects.create(external_id="late")
    unit = Unit.objects.filter(project=crowd.a).last()
    with CaptureQueriesContext(connection) as queries:  # the unit at hand: no query for its project
        a = Assignment.objects.create(unit=unit, worker=w)
    assert len(queries) == 1 and a.project_id == crowd.a.pk
    by_id = [Assignment(unit_id=u, worker=w, status="returned") for u in (crowd.unit_b.pk, unit.pk)]
    with CaptureQueriesContext(connection) as queries:  # ids only: one query for all their projects
        Assignment.objects.bulk_create(by_id)
    assert sum('FROM "annotation_tasks_unit"' in q["sql"] for q in queries.captured_queries) == 1
    assert [a.project_id for a in by_id] == [crowd.b.pk, crowd.a.pk]
    saved = Assignment(unit_id=unit.pk, worker=w, status="expired")
    saved.save()
    assert Assignment.objects.get(pk=saved.pk).project_id == crowd.a.pk
    assert not Assignment.objects.exclude(project_id=crowd.a.pk).filter(unit__project=crowd.a).exists()


@pytest.mark.parametrize("query,where", [
    ("status=submitted", {"status": "submitted"}),
    ("status=approved,rejected", {"status__in": ["approved", "rejected"]}),
    ("status=expired", {"status": "expired"}),
    ("search=src-1", None),
    ("search=crowd 2", None),
    ("status=submitted&search=src", None),
])
@pytest.mark.parametrize("ordering", ["id", "-id"])
def test_filtered_assignment_pages_are_the_plain_querysets_rows(crowd, users, query, where, ordering):
    client = client_for(users["alice"])
    plain = Assignment.objects.filter(unit__project=crowd.a)  # the join, as the list was
    if where is not None:
        plain = plain.filter(**where)
    else:
        for term in query.split("search=")[1].split():  # SearchFilter: every term matches one of the fields
            plain = plain.filter(Q(worker__display_name__icontains=term) | Q(worker__external_id__icontains=term)
                                 | Q(worker__user__username__icontains=term)
                                 | Q(unit__source__external_id__icontains=term) | Q(feedback__icontains=term))
        if "status=" in query:
            plain = plain.filter(status="submitted")
    expected = list(plain.order_by(ordering).values_list("id", flat=True))
    assert "expired" in query or expected
    _walk(client, f"/api/assignments/?project={crowd.a.pk}&ordering={ordering}&{query}", expected)


def _old_overview_figures(project) -> dict:
    """The monitor's assignment figures as computed before 0022: joined to units, times sorted in Python."""
    assignments = Assignment.objects.filter(unit__project=project)

    def by(qs, field):
        return {r[field]: r["n"] for r in qs.values(field).annotate(n=Count("id")).order_by()}

    seconds = sorted(ms / 1000 for ms in assignments.filter(status__in=Assignment.Status.done())
                     .values_list("time_on_task_ms", flat=True) if ms is not None)
    stats = {"count": 0, "mean_s": None, "median_s": None, "p90_s": None} if not seconds else {
        "count": len(seconds), "mean_s": round(statistics.fmean(seconds), 1),
        "median_s": round(statistics.median(seconds), 1),
        "p90_s": round(seconds[min(len(seconds) - 1, int(round(0.9 * (len(seconds) - 1))))], 1)}
    return {"assignments_by_status": by(assignments, "status"),
            "submitted_by_verification": by(assignments.filter(status__in=Assignment.Status.counted()),
                                            "verification"),
            "time_on_task": stats}


@pytest.mark.parametrize("extra", [0, 1, 2, 7])  # odd and even counts of finished times
def test_monitor_figures_equal_the_joined_ones(crowd, extra):
    w = Worker.objects.create(external_id="extra")
    units = list(Unit.objects.filter(project=crowd.a).order_by("id"))
    for i in range(extra):
        Assignment.objects.create(unit=units[i % len(units)], worker=w if i < len(units) else Worker.objects.create(
            external_id=f"extra-{i}"), status="approved", time_on_task_ms=[1050, 2250, 333, 99999][i % 4])
    overview = project_overview(crowd.a)
    assert {k: overview[k] for k in ("assignments_by_status", "submitted_by_verification", "time_on_task")} == \
        _old_overview_figures(crowd.a)
    assert project_overview(crowd.b)["time_on_task"]["count"] == 0  # B's one assignment has no time


def test_monitor_with_no_assignments(world):
    Assignment.objects.filter(unit__project=world.a).delete()
    overview = project_overview(world.a)
    assert overview["assignments_by_status"] == {} and overview["submitted_by_verification"] == {}
    assert overview["time_on_task"] == {"count": 0, "mean_s": None, "median_s": None, "p90_s": None}
