"""One counted pairwise vote per worker per pair across batches (Ragas; issue 23 item 5, follow-up).

Before: a worker who judged the same pair (two answers, or two retrieved contexts of a source) through two batches
counted twice in preferences_frame, so in wins, means and agreement. Now the earliest assignment's judgment counts,
whichever sides the pair was shown on; the agreement's item is the pair, not the unit.
"""
from __future__ import annotations

import pytest

from annotation_tasks.analysis.pairwise import pairwise_summary
from annotation_tasks.models import Assignment, Batch, PairwisePreference, Project, Response, Source, Unit, Worker
from annotation_tasks.services import frames

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged() -> dict:
    project = Project.objects.create(name="pairs twice", protocol=["ragas_pairwise"])
    source = Source.objects.create(project=project, external_id="q1", text="Q?", passages=["p0", "p1"])
    r1 = Response.objects.create(project=project, source=source, external_id="a", system="answer", text="A")
    r2 = Response.objects.create(project=project, source=source, external_id="b", system="ungrounded", text="B")
    workers = [Worker.objects.create(external_id=f"w{k}") for k in range(3)]

    def judge(batch: Batch, worker: Worker, score: int, swapped: bool) -> Assignment:
        unit = Unit.objects.create(project=project, source=source, batch=batch)
        a = Assignment.objects.create(unit=unit, worker=worker, status="submitted")
        first, second = (r2, r1) if swapped else (r1, r2)
        PairwisePreference.objects.create(assignment=a, unit=unit, aspect="faithfulness", response_a=first,
                                          response_b=second, score=6 - score if swapped else score)
        PairwisePreference.objects.create(assignment=a, unit=unit, aspect="context_relevance",
                                          context_a=1 if swapped else 0, context_b=0 if swapped else 1,
                                          score=6 - score if swapped else score)
        return a

    b1 = Batch.objects.create(project=project, name="b1")
    first = [judge(b1, w, score=1 if k < 2 else 4, swapped=False) for k, w in enumerate(workers)]
    # worker w0 again through a second batch, the other way round and the other way about
    later = judge(Batch.objects.create(project=project, name="b2"), workers[0], score=5, swapped=True)
    return {"project": project, "first": first, "later": later}


def test_preferences_frame_keeps_a_workers_first_judgment_of_a_pair(judged) -> None:
    prefs = frames.preferences_frame(judged["project"])
    assert not prefs.duplicated(["worker_id", "aspect", "pair"]).any()
    assert set(prefs["assignment_id"]) == {a.pk for a in judged["first"]}


def test_pairwise_summary_equals_the_data_without_the_second_vote(judged) -> None:
    summary = pairwise_summary(frames.preferences_frame(judged["project"]))
    PairwisePreference.objects.filter(assignment=judged["later"]).delete()
    expected = pairwise_summary(frames.preferences_frame(judged["project"]))
    assert summary == expected and {r["aspect"] for r in expected} == {"faithfulness", "context_relevance"}
