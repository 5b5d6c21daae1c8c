"""One counted vote per worker per item in the frames, also for data stored before submit dropped second votes.

Before: a worker's two counted votes on one item (two batches over the same source, stored before issue 23 item 5's
fix) were both rows of labels_frame / facts_frame, so the worker counted twice in majorities and agreement. Now the
earliest assignment's vote counts (as submit and the exports choose); a test-retest repeat never counts twice.
"""
from __future__ import annotations

import pytest

from annotation_tasks.exporters.base import level_votes
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    FactLabel,
    Predicate,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    Worker,
)
from annotation_tasks.services import frames
from annotation_tasks.services.reports import build_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def voted() -> dict:
    """Three workers vote through batch b1; worker w0 votes again (the opposite) through b2 and a retest batch."""
    project = Project.objects.create(name="twice", protocol=["span_coverage", "qa_support"])
    source = Source.objects.create(project=project, external_id="s1", text="A man died in Paris.")
    response = Response.objects.create(project=project, source=source, external_id="r1", system="sysA",
                                       text="A man died in Paris.")
    predicate = Predicate.objects.create(response=response, token_index=2, text="died")
    qa = QA.objects.create(response=response, predicate=predicate, question="Who died?", answer="A man",
                           answer_start=0, answer_end=2)
    span = AnswerSpan.objects.create(response=response, start=0, end=2, text="A man")
    span.qas.add(qa)
    fact = AtomicFact.objects.create(response=response, sentence_index=0, text="A man died.", kind="model")
    workers = [Worker.objects.create(external_id=f"w{k}") for k in range(3)]

    def vote(batch: Batch, worker: Worker, yes: bool) -> Assignment:
        unit = Unit.objects.create(project=project, source=source, batch=batch)
        a = Assignment.objects.create(unit=unit, worker=worker, status="submitted")
        SpanLabel.objects.create(assignment=a, span=span, covered=yes)
        QALabel.objects.create(assignment=a, qa=qa, supported=yes)
        FactLabel.objects.create(assignment=a, fact=fact, label="S" if yes else "NS")
        return a

    b1 = Batch.objects.create(project=project, name="b1")
    first = [vote(b1, w, yes=k != 2) for k, w in enumerate(workers)]
    again = vote(Batch.objects.create(project=project, name="b2"), workers[0], yes=False)
    retest = vote(Batch.objects.create(project=project, name="rt", settings={"retest": True}), workers[0], yes=False)
    return {"project": project, "first": first, "later": [again, retest], "items": (span, qa, fact)}


def _without_later_votes(voted: dict) -> None:
    for model in (SpanLabel, QALabel, FactLabel):
        model.objects.filter(assignment__in=voted["later"]).delete()


def test_labels_frame_counts_a_workers_first_vote_once(voted) -> None:
    labels = frames.labels_frame(voted["project"])
    assert not labels.duplicated(["level", "item_id", "worker_id"]).any()
    w0 = voted["first"][0]
    mine = labels[labels["worker_id"] == w0.worker_id]
    assert set(mine["assignment_id"]) == {w0.pk}  # the earliest vote, not the later batch's or the retest's
    assert len(labels) == 3 * 3  # three workers, three levels


def test_facts_frame_counts_a_workers_first_vote_once(voted) -> None:
    facts = frames.facts_frame(voted["project"])
    assert not facts.duplicated(["fact_id", "worker_id"]).any()
    assert set(facts["assignment_id"]) == {a.pk for a in voted["first"]}


def test_report_and_exports_equal_the_data_without_second_votes(voted) -> None:
    """Majorities and agreement recomputed on the same data without the second votes: nothing changes."""
    span, qa, fact = voted["items"]
    report = build_report(voted["project"])
    votes = [level_votes(level, [item.pk]) for level, item in (("span", span), ("qa", qa), ("fact", fact))]
    _without_later_votes(voted)
    expected = build_report(voted["project"])
    for key in ("counts", "agreement", "workers", "factscore"):
        assert report[key] == expected[key], key
    # the exports keep the first vote and the retest vote beside it (marked), never the second batch's
    retest = voted["later"][1].pk
    after = [level_votes(level, [item.pk]) for level, item in (("span", span), ("qa", qa), ("fact", fact))]
    assert [[v for v in vs if v[2] != retest] for vs in votes] == after


@pytest.mark.parametrize("status, verification", [("submitted", "pending"), ("rejected", "not_needed")])
def test_a_fact_written_by_work_that_does_not_count_changes_no_score(voted, status, verification) -> None:
    """Before: a pending (unverified) or rejected worker's own fact was a row of facts_frame, and a human fact in a
    sentence takes the model facts of that sentence out of FActScore: uncounted work changed the score."""
    project, (_span, _qa, fact) = voted["project"], voted["items"]
    expected = build_report(project)["factscore"]
    unit = Unit.objects.filter(project=project).first()
    stranger = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id="made-up"),
                                         status=status, verification=verification)
    written = AtomicFact.objects.create(response=fact.response, sentence_index=fact.sentence_index, text="Made up.",
                                        kind="human", created_by_assignment=stranger)
    FactLabel.objects.create(assignment=stranger, fact=written, label="NS")
    assert build_report(project)["factscore"] == expected
    assert written.pk not in set(frames.facts_frame(project)["fact_id"])
