"""The first minutes after `make run`: load_demo leaves launched local batches, and the demo researcher can
pilot their own study through the local queue (the annotate page and POST /api/work/next)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from annotation_tasks.models import (
    QA,
    Assignment,
    Batch,
    ItemScore,
    Project,
    ProjectMembership,
    QALabel,
    SpanLabel,
    Unit,
)
from annotation_tasks.services.reports import build_report
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_a_researcher_of_the_project_takes_units_from_the_local_queue():
    unit = make_unit("Pilot", n_qas=1, n_responses=1)
    user = get_user_model().objects.create_user("res")
    ProjectMembership.objects.create(project=unit.project, user=user, role=ProjectMembership.Role.RESEARCHER)
    client = _login(user)
    page = client.get(f"/annotate/{unit.project.pk}/")
    assert page.status_code == 200 and b'href="/" data-testid="back-to-dashboard"' in page.content
    r = client.post("/api/work/next", {"project": unit.project.pk}, content_type="application/json")
    assert r.status_code == 200
    assert Assignment.objects.get(pk=r.json()["assignment_id"]).worker.user == user
    page = client.get(r.json()["url"])
    assert page.status_code == 200 and page.context["element"]["next_url"] == f"/annotate/{unit.project.pk}/"


def test_non_members_still_get_no_units():
    unit = make_unit("Closed study", n_qas=1, n_responses=1)
    client = _login(get_user_model().objects.create_user("stranger"))
    assert client.get(f"/annotate/{unit.project.pk}/").status_code == 403
    r = client.post("/api/work/next", {"project": unit.project.pk}, content_type="application/json")
    assert r.status_code == 403 and not Assignment.objects.exists()


def test_load_demo_launches_the_demo_batches_locally_and_is_idempotent():
    call_command("load_demo", stdout=io.StringIO())
    batches = Batch.objects.exclude(provider="imported").order_by("id")
    assert [(b.project.name, b.provider, b.status) for b in batches] == [
        ("Demo", "local", "published"), ("Demo FActScore", "local", "published"),
    ]
    units = {u.pk: u.provider_ref for u in Unit.objects.exclude(batch__provider="imported")}
    # demo-news-3: its two summaries hold 13 spans, over the 12-span unit cap: two units (6, not 5)
    assert len(units) == 6 and all(ref.startswith("local-") for ref in units.values())
    assert all(b.published_at is not None and b.settings["assignments_per_unit"] == 3 for b in batches)
    first_published = {b.pk: b.published_at for b in batches}

    call_command("load_demo", stdout=io.StringIO())
    assert {u.pk: u.provider_ref for u in Unit.objects.exclude(batch__provider="imported")} == units
    assert {b.pk: b.published_at for b in batches} == first_published


def test_the_demo_user_gets_a_demo_unit_at_once():
    call_command("load_demo", stdout=io.StringIO())
    client = Client()
    assert client.login(username="demo", password="demo")
    demo = Project.objects.get(name="Demo")
    r = client.post("/api/work/next", {"project": demo.pk}, content_type="application/json")
    assert r.status_code == 200
    unit = Assignment.objects.get(pk=r.json()["assignment_id"]).unit
    assert unit.project == demo and unit.batch.status == "published" and unit.mode == "qasem"
    assert client.get(r.json()["url"]).status_code == 200


def test_load_demo_leaves_a_closed_demo_batch_closed():
    call_command("load_demo", stdout=io.StringIO())
    Batch.objects.filter(project__name="Demo").update(status=Batch.Status.CLOSED)
    Unit.objects.filter(project__name="Demo").update(provider_ref="")
    call_command("load_demo", stdout=io.StringIO())
    assert set(Unit.objects.filter(project__name="Demo").values_list("provider_ref", flat=True)) == {""}


def test_the_local_queue_never_serves_units_of_a_platform_batch():
    for provider in ("mturk", "prolific"):
        unit = make_unit(f"On {provider}", n_qas=1, n_responses=1, provider=provider)
        user = get_user_model().objects.create_user(f"res-{provider}")
        ProjectMembership.objects.create(project=unit.project, user=user, role=ProjectMembership.Role.RESEARCHER)
        r = _login(user).post("/api/work/next", {"project": unit.project.pk}, content_type="application/json")
        assert r.status_code == 204
    assert not Assignment.objects.exists()


def test_a_researcher_piloting_does_not_take_a_workers_slot():
    from annotation_tasks.services import queue
    from annotation_tasks.services.local_workers import local_worker

    unit = make_unit("Slots", n_qas=1, n_responses=1, wanted=1)
    User = get_user_model()
    res, ann = User.objects.create_user("res"), User.objects.create_user("ann")
    ProjectMembership.objects.create(project=unit.project, user=res, role=ProjectMembership.Role.RESEARCHER)
    ProjectMembership.objects.create(project=unit.project, user=ann, role=ProjectMembership.Role.ANNOTATOR)
    pilot = queue.next_assignment(local_worker(res), unit.project)
    assert pilot is not None and pilot.unit == unit
    Assignment.objects.filter(pk=pilot.pk).update(status=Assignment.Status.SUBMITTED)
    assert queue.active_count(unit.pk) == 0  # the researcher's own answer holds no slot
    work = queue.next_assignment(local_worker(ann), unit.project)
    assert work is not None and work.unit == unit  # the one wanted worker still gets the unit
    assert queue.next_assignment(local_worker(User.objects.create_user("late")), unit.project) is None
    ProjectMembership.objects.filter(user=res).update(role=ProjectMembership.Role.ANNOTATOR)
    assert queue.active_count(unit.pk) == 2  # an annotator's assignment does hold one


STUDY_FILE = Path(__file__).resolve().parents[2] / "annotation_tasks" / "demo" / "qasem_study.jsonl"


def test_the_labelled_demo_study_reports_and_queues_what_its_votes_say():
    """The third demo project is a finished study: its report's consistency per system and its adjudication queue
    are recomputed here from the votes in the demo file (QA 0 = supported; span 1 = covered)."""
    call_command("load_demo", stdout=io.StringIO())
    records = [json.loads(line) for line in STUDY_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
    per_system: dict[str, list[float]] = {}
    split = 0
    for rec in records:
        qa_votes = [qa["annotations"] for qa in rec["qas"]]
        per_system.setdefault(rec["model"], []).append(
            sum(v.count(0) > len(v) / 2 for v in qa_votes) / len(qa_votes))
        split += sum(0 < sum(v) < len(v) for v in qa_votes + [s["annotations"] for s in rec["spans"]])
    expected = {system: 100 * sum(shares) / len(shares) for system, shares in per_system.items()}
    assert expected["bart-demo"] > expected["pegasus-demo"] and split > 0  # the demo shows a difference to explore

    study = Project.objects.get(name="Demo study (labelled)")
    report = build_report(study, by="system")
    assert {row["system"]: row["consistency"] for row in report["consistency"]} == pytest.approx(expected)

    client = Client()
    assert client.login(username="demo", password="demo")
    queue = client.get(f"/api/projects/{study.pk}/adjudication/queue/").json()
    assert queue["count"] == split and all(0 < min(row["counts"].values()) for row in queue["results"])

    labels = (QALabel.objects.filter(assignment__unit__project=study).count(),
              SpanLabel.objects.filter(assignment__unit__project=study).count())
    call_command("load_demo", stdout=io.StringIO())
    assert (QALabel.objects.filter(assignment__unit__project=study).count(),
            SpanLabel.objects.filter(assignment__unit__project=study).count()) == labels


def test_the_labelled_demo_study_is_scored_once_for_its_crowd_scorer_queue():
    call_command("load_demo", stdout=io.StringIO())
    study = Project.objects.get(name="Demo study (labelled)")
    scores = ItemScore.objects.filter(qa__project=study)
    assert scores.count() == QA.objects.filter(project=study).count() > 0 and {s.scorer for s in scores} == {"embedded"}
    first = set(scores.values_list("pk", flat=True))
    call_command("load_demo", stdout=io.StringIO())
    assert set(ItemScore.objects.filter(qa__project=study).values_list("pk", flat=True)) == first

    client = Client()
    assert client.login(username="demo", password="demo")
    r = client.get(f"/api/projects/{study.pk}/adjudication/queue/", {"scorer": "embedded"})
    assert r.status_code == 200 and all(row["scorer"]["name"] == "embedded" for row in r.json()["results"])
