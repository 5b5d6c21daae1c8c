"""SIGKILL one of two Redis workers in the middle of a parse: Redis delivers the unacknowledged message again
(acks_late, prefetch 1), the other worker claims the stalled Job and finishes it; every response is parsed once,
with exactly the predicates, QAs and spans of an uninterrupted parse. No beat runs here: redelivery alone."""
from __future__ import annotations

import re

import pytest
from django.db.models import Count

from annotation_tasks.models import QA, AnswerSpan, Job, Predicate, Project, Response
from annotation_tasks.services import parsing
from annotation_tasks.services.imports import import_items
from tests.integration.test_real_worker import duplicate_qas, qa_counts, write_items
from tests.topology.conftest import wait_for

pytestmark = [pytest.mark.slow]


def duplicates(model, project: Project, *fields: str) -> list[dict]:
    return list(model.objects.filter(response__project=project).values("response_id", *fields)
                .annotate(n=Count("id")).filter(n__gt=1))


def counts(project: Project) -> dict[str, tuple[int, int, int]]:
    """Per response: predicates, QAs, spans."""
    rows = Response.objects.filter(project=project).annotate(
        p=Count("predicates", distinct=True), q=Count("qas", distinct=True), s=Count("answer_spans", distinct=True))
    return {r.external_id: (r.p, r.q, r.s) for r in rows}


def test_a_worker_killed_mid_parse_gives_its_job_back(topology, tmp_path):
    n = 40
    import_items(write_items(tmp_path / "items.jsonl", n), "Killed on Redis")
    project = Project.objects.get(name="Killed on Redis")
    # Redis gives the message back 15 s after delivery: after the kill (the parse is a few seconds in), and long
    # after the dead worker's Job stalled (2 s without a heartbeat), so the second delivery claims it. An earlier
    # second delivery, while the first worker lives, is refused by the claim (and beat would resume it later).
    topology.env["CELERY_VISIBILITY_TIMEOUT_SECONDS"] = "15"
    workers = topology.start_workers("w1", "w2")

    job = parsing.start_parse_job(project)
    wait_for(lambda: Job.objects.get(pk=job.pk).done >= 3, 60, "first responses parsed", topology, interval=0.02)
    celery_id = Job.objects.get(pk=job.pk).celery_id
    running = [w for w in workers if f"[{celery_id}] received" in w.log()]
    assert len(running) == 1, topology.logs()
    (victim,) = running
    (survivor,) = [w for w in workers if w is not victim]
    assert f"[{celery_id}] received" not in survivor.log(), "delivered twice before the kill: a slow machine?"
    victim.kill()  # the whole worker, main process and child: no shutdown handler, no ack, no reject
    at_kill = Job.objects.get(pk=job.pk)
    assert at_kill.status == Job.Status.RUNNING and at_kill.done < n, "finished before the kill"

    done = wait_for(lambda: (j := Job.objects.get(pk=job.pk)).status in Job.Status.finished() and j, 90,
                    "the redelivered parse", topology)
    assert (done.status, done.done, done.total) == (Job.Status.DONE, n, n), (done.error, topology.logs())
    # the same message, delivered again to the survivor, not a resume (nothing resumed it; the id is the same)
    assert done.celery_id == celery_id
    assert re.search(rf"\[{celery_id}\] received", survivor.log()), survivor.log()[-3000:]
    assert not Response.objects.filter(project=project, parsed_at__isnull=True).exists()

    # nothing duplicated, nothing missing: what an uninterrupted parse of the same items writes
    assert duplicate_qas(project) == []
    assert duplicates(Predicate, project, "token_index", "sentence_index") == []
    assert duplicates(AnswerSpan, project, "start", "end") == []
    import_items(tmp_path / "items.jsonl", "Reference")
    reference = Project.objects.get(name="Reference")
    parsing.run_parse_job(parsing.start_parse_job(reference, queue=False).pk)
    assert counts(project) == counts(reference)
    assert qa_counts(project) == qa_counts(reference) and sum(qa_counts(project).values()) > n
    assert QA.objects.filter(response__project=project).count() == QA.objects.filter(response__project=reference).count()
