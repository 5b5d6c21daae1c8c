"""The report's summary and the adjudication queue's summary from grouped SQL counts (issue 25 item 2): the same
figures as the full build (the labels frame), without reading the labels frame; the full build where a worker holds
two counted votes on one item (the labels frame's first-vote rule decides them)."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import Assignment, QALabel, Unit
from annotation_tasks.services import adjudication, frames, reports
from tests.analysis.test_frames_one_vote import voted as _voted
from tests.crowd.test_worker_page_metrics import random_project
from tests.review.conftest import client_for, member

pytestmark = pytest.mark.django_db
voted = _voted  # the fixture: a worker's vote again through a second batch and a retest batch

SUMMARY_KEYS = ("counts", "agreement", "unlabelled_groups", "time_on_task", "adjudication", "notes", "project", "by")


@pytest.fixture
def no_frames(monkeypatch):
    """Reading a labels frame fails the test while switched on."""
    state = {"on": True}
    real = frames.labels_frame

    def guarded(*args, **kwargs):
        assert not state["on"], "read the labels frame"
        return real(*args, **kwargs)

    monkeypatch.setattr(frames, "labels_frame", guarded)
    return state


def decide_some(project, n: int = 3) -> None:
    """Decide the first n queue items against their majority (the adjudication sections then have rows)."""
    user = get_user_model().objects.create_user(f"expert{project.pk}", password="x")
    rows = adjudication.queue(project, {"include_agreed": "true", "limit": n})["results"]
    for row in rows:
        other = next(lab for lab in row["labels"] if lab != row["majority"])
        adjudication.decide(project, {"level": row["level"], "item_id": row["item_id"], "aspect": row["aspect"],
                                      "label": other}, user)


def full_and_summary(project, no_frames) -> tuple[dict, dict]:
    from django.core.cache import cache

    cache.clear()
    no_frames["on"] = False
    whole = reports.build_report(project)
    cache.clear()
    no_frames["on"] = True
    cheap = reports.summary(project)
    no_frames["on"] = False
    assert cheap is not None
    return whole, cheap


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_the_summary_equals_the_full_build(seed, no_frames) -> None:
    project, _workers = random_project(seed)  # spans and QAs, ties, one-label items, an invalid QA, gold, statuses
    decide_some(project)
    whole, cheap = full_and_summary(project, no_frames)
    assert whole["adjudication"] and whole["agreement"] and whole["counts"]["labels"]
    for key in SUMMARY_KEYS:
        assert cheap[key] == whole[key], key
    assert cheap["partial"] is True and set(cheap["details"]) <= set(whole)


def test_the_summary_of_a_study_with_pairwise_and_notes(qasem_study, no_frames) -> None:
    decide_some(qasem_study.project, 5)
    whole, cheap = full_and_summary(qasem_study.project, no_frames)
    for key in SUMMARY_KEYS:
        assert cheap[key] == whole[key], key


def test_the_summary_of_a_factscore_study_counts_text_labels(factscore_study, no_frames) -> None:
    whole, cheap = full_and_summary(factscore_study.project, no_frames)
    assert [r["level"] for r in whole["agreement"]] == ["fact"]
    for key in SUMMARY_KEYS:
        assert cheap[key] == whole[key], key


def test_a_system_without_labels_is_listed(no_frames) -> None:
    project, _ = random_project(5)
    QALabel.objects.filter(qa__response__project=project).delete()
    from annotation_tasks.models import SpanLabel

    first = Unit.objects.filter(project=project).order_by("pk").first()
    SpanLabel.objects.filter(assignment__unit=first).delete()
    whole, cheap = full_and_summary(project, no_frames)
    assert cheap["unlabelled_groups"] == whole["unlabelled_groups"]
    assert cheap["counts"] == whole["counts"] and whole["counts"]["responses_unlabelled"] >= 1


def test_repeat_votes_leave_the_summary_to_the_full_build(voted) -> None:
    """A worker's second vote on an item (another batch over the same source) would count twice in a grouped
    count: the summary is not taken from SQL then, and the API answers with the full build's summary."""
    project = voted["project"]
    assert adjudication.repeat_votes_possible(project)
    assert adjudication.level_counts(project) is None and reports.summary(project) is None
    user = get_user_model().objects.create_user("twice-researcher", password="x")
    member(project, user)
    body = client_for(user).get(f"/api/projects/{project.pk}/report/", {"section": "summary"}).json()
    assert "partial" not in body and body["counts"] == reports.build_report(project)["counts"]
    # the same data without the second batch: no repeat votes, the SQL counts apply
    Assignment.objects.filter(pk__in=[a.pk for a in voted["later"]]).delete()
    Unit.objects.filter(project=project, assignments__isnull=True).delete()
    assert not adjudication.repeat_votes_possible(project)
    assert reports.summary(project)["counts"] == reports.build_report(project)["counts"]


def test_the_api_summary_is_the_cheap_one_and_details_the_full_build(qasem_study, people, no_frames) -> None:
    from django.core.cache import cache

    cache.clear()
    member(qasem_study.project, people["alice"])
    alice = client_for(people["alice"])
    url = f"/api/projects/{qasem_study.project.pk}/report/"
    cheap = alice.get(url, {"section": "summary"}).json()
    assert cheap["partial"] is True and "workers" not in cheap and "tables" not in cheap
    no_frames["on"] = False
    details = alice.get(url, {"section": "details", "page_size": 1}).json()
    whole = alice.get(url).json()
    assert details["workers"] == whole["workers"][:1] and details["tables"]["workers"] == len(whole["workers"])
    assert {k: cheap[k] for k in SUMMARY_KEYS} == {k: whole[k] for k in SUMMARY_KEYS}


@pytest.mark.parametrize("params", [
    {}, {"include_agreed": "true"}, {"level": "qa"}, {"decided": "true"}, {"decided": "false", "level": "span"},
])
def test_the_queue_summary_equals_the_built_queue(params, no_frames, monkeypatch) -> None:
    """A large project with a shared cache, its table not built yet: the summary comes from the counts."""
    from annotation_tasks.services import derived

    project, _ = random_project(7)
    decide_some(project, 4)
    from django.core.cache import cache

    cache.clear()
    derived.derived_cache().clear()
    queued: list = []
    monkeypatch.setattr(derived, "in_background", lambda project: True)
    monkeypatch.setattr(derived, "queue_build", lambda task, project, *args: queued.append(task))
    no_frames["on"] = True
    first = adjudication.queue(project, {**params, "summary": "true"})  # nothing counted yet: the task counts
    assert first["building"] is True and first["count"] is None and queued == [adjudication.BUILD_TASK]
    from annotation_tasks.services.versions import version_hash

    adjudication.counts_for(project, version_hash(project, "labels"))  # counted and kept, as the task's build does
    monkeypatch.setattr(adjudication, "_build_items_table", wraps := _spy(adjudication._build_items_table))
    cheap = adjudication.queue(project, {**params, "summary": "true"})
    assert wraps.calls == 1 and queued == [adjudication.BUILD_TASK] * 2  # from the counts; the table's build queued
    monkeypatch.undo()
    no_frames["on"] = False
    monkeypatch.setattr(derived, "in_background", lambda project: False)
    built = adjudication.queue(project, {**params, "limit": 500})
    assert cheap["results"] == [] and cheap["next_offset"] is None
    for key in ("count", "decided", "agreement", "levels", "building", "stale"):
        assert cheap[key] == built[key], key
    assert built["count"] == len(built["results"])


def _spy(function):
    def spy(*args, **kwargs):
        spy.calls += 1
        return function(*args, **kwargs)

    spy.calls = 0
    return spy


def test_the_queue_table_from_sql_counts_equals_the_frames(no_frames) -> None:
    """The table a page is cut from: the same rows whether its tallies come from SQL or from the labels frame."""
    project, _ = random_project(8)
    no_frames["on"] = False
    sql = [(t.level, t.item_ids.tolist(), t.categories, t.counts.tolist()) for t in adjudication.tallies(project)]
    frame = [(t.level, t.item_ids.tolist(), t.categories, t.counts.tolist())
             for t in adjudication._frame_tallies(project)]
    assert sql == frame and sql
