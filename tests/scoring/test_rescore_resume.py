"""Issue 23 item 8: a killed `score --rescore` resumed as "done 0/0" with most scores not rewritten, and a resumed
Job's result counted only its last part. Here the scorer dies after the first chunk (as a killed worker would);
the resumed Job rewrites every remaining score, its progress and result count both parts."""
from __future__ import annotations

import pytest

from annotation_tasks.models import QA, ItemScore, Job
from annotation_tasks.services import jobs, scoring
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def test_a_killed_rescore_resumes_and_rewrites_every_score(monkeypatch):
    unit = make_unit("Rescore", n_qas=4, n_responses=3, n_sources=2)[0]
    project = unit.project
    n = QA.objects.filter(response__project=project).exclude(validity=QA.Validity.INVALID).count()
    monkeypatch.setattr(scoring, "CHUNK", 3)
    first = jobs.run_here(scoring.start_score_job(project, "overlap", queue=False))
    assert first.status == Job.Status.DONE and first.result["qa"] == n
    old = dict(ItemScore.objects.filter(scorer="overlap").values_list("qa_id", "created_at"))

    scorer_class = type(scoring.get_scorer("overlap"))
    real = scorer_class.score_batch
    calls = {"n": 0}

    def dies_after_one_chunk(self, pairs):
        calls["n"] += 1
        if calls["n"] > 1:
            raise SystemError("worker killed")
        return real(self, pairs)

    monkeypatch.setattr(scorer_class, "score_batch", dies_after_one_chunk)
    job = scoring.start_score_job(project, "overlap", rescore=True, queue=False)
    killed = jobs.run_here(job)
    assert killed.status == Job.Status.FAILED and killed.done == 3
    rewritten = ItemScore.objects.filter(scorer="overlap", created_at__gte=killed.started_at).count()
    assert rewritten == 3 < n

    monkeypatch.setattr(scorer_class, "score_batch", real)
    jobs.resume(killed, queue=False)
    resumed = jobs.run_here(Job.objects.get(pk=job.pk))
    assert resumed.status == Job.Status.DONE
    assert (resumed.done, resumed.total) == (n, n)  # both parts, not "0/0"
    assert resumed.result["qa"] == n  # the result counts every score this Job wrote
    now = dict(ItemScore.objects.filter(scorer="overlap").values_list("qa_id", "created_at"))
    assert set(now) == set(old) and all(now[q] > old[q] for q in old)  # every score rewritten, once
