"""The QASem release export marks test-retest votes and does not count them twice (issue 23 item 5, follow-up).

Before: a vote cast through a retest batch (Batch.settings.retest) was an unmarked extra vote in `annotations` and
counted in `majority`, so the repeating worker counted twice. Now each record with a retest vote carries `retest`
(vote i is a repeat) and its majority is the one of the same data without the repeats.
"""
from __future__ import annotations

import json

import pytest

from annotation_tasks.exporters.qasem_release import export_lines
from annotation_tasks.models import QA, AnswerSpan, Assignment, Batch, QALabel, SpanLabel, Unit, Worker
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _vote(unit: Unit, worker: Worker, yes: bool) -> Assignment:
    a = Assignment.objects.create(unit=unit, worker=worker, status="submitted")
    for qa in QA.objects.filter(response__project=unit.project):
        QALabel.objects.create(assignment=a, qa=qa, supported=yes)
    for span in AnswerSpan.objects.filter(response__project=unit.project):
        SpanLabel.objects.create(assignment=a, span=span, covered=yes)
    return a


def _records(project) -> list[dict]:
    return [item for line in export_lines(project) for key in ("qas", "spans") for item in json.loads(line)[key]]


def test_retest_votes_are_marked_and_not_counted_twice() -> None:
    unit = make_unit("Retest release", protocol=["span_coverage", "qa_support"], n_qas=2, n_responses=1, gold=False)
    workers = [Worker.objects.create(external_id=f"w{k}") for k in range(3)]
    for k, w in enumerate(workers):
        _vote(unit, w, yes=k != 2)  # two yes, one no
    retest_batch = Batch.objects.create(project=unit.project, name="retest", settings={"retest": True})
    retest_unit = Unit.objects.create(project=unit.project, source=unit.source, batch=retest_batch)
    repeat = _vote(retest_unit, workers[0], yes=False)  # counted twice, it would tie the majority the other way
    marked = _records(unit.project)
    for model in (QALabel, SpanLabel):
        model.objects.filter(assignment=repeat).delete()
    plain = _records(unit.project)
    assert marked and len(marked) == len(plain)
    for with_repeat, without in zip(marked, plain, strict=True):
        assert with_repeat["retest"] == [False] * len(without["annotations"]) + [True]
        assert with_repeat["annotations"][:-1] == without["annotations"]
        assert with_repeat["majority"] == without["majority"]
        assert "retest" not in without
