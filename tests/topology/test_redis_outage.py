"""Redis stopped for 20 s while annotators work through gunicorn: every draft and submit succeeds (they do
not need the broker), a Job queued meanwhile does not fail the code that queued it, and it runs once Redis is
back (beat sends the Jobs whose message never reached the broker). Workers and beat reconnect on their own."""
from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
import requests

from annotation_tasks.models import Assignment, Job, Project, Unit, Worker
from annotation_tasks.services import parsing, work
from annotation_tasks.services.imports import import_items
from annotation_tasks.services.tokens import assignment_token
from tests.integration.test_real_worker import write_items
from tests.topology.conftest import wait_for
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = [pytest.mark.slow]

OUTAGE_S = 20


def annotate(base: str, token: str, labels: dict, answers: list, lock: threading.Lock) -> None:
    """One annotator through the HTTP API: the unit, two drafts, the submit."""
    with requests.Session() as http:
        steps = [("unit", lambda: http.get(f"{base}/api/work/{token}/unit", timeout=30))]
        steps += [(f"draft{k}", lambda k=k: http.put(f"{base}/api/work/{token}/draft", json={"draft": {"k": k}},
                                                     timeout=30)) for k in range(2)]
        steps += [("submit", lambda: http.post(f"{base}/api/work/{token}/submit",
                                               json={"labels": labels, "time_on_task_ms": 1000}, timeout=30))]
        for name, call in steps:
            try:
                got = call()
                code = got.status_code if got.status_code < 500 else f"{got.status_code}: {got.text[:200]}"
            except requests.RequestException as exc:
                code = repr(exc)
            with lock:
                answers.append((name, code))


def test_annotation_goes_on_while_redis_is_down(topology, tmp_path):
    units = make_unit("Outage", n_sources=8, wanted=3, n_qas=2)
    tokens, labels = [], {}
    for unit in units:
        for k in range(3):
            a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"o{unit.pk}-{k}"))
            token = assignment_token(a)
            tokens.append(token)
            labels[token] = qasem_labels(work.unit_payload(a))
    import_items(write_items(tmp_path / "items.jsonl", 3), "Parse during outage")
    topology.env["JOB_RESUME_SECONDS"] = "1"
    topology.start_workers("w1", "w2")
    topology.start_beat()
    base = topology.start_web()

    answers, lock = [], threading.Lock()
    before, during = tokens[:6], tokens[6:]
    for token in before:
        annotate(base, token, labels[token], answers, lock)

    topology.redis.stop()
    down_at = time.monotonic()
    job = parsing.start_parse_job(Project.objects.get(name="Parse during outage"))  # queued on commit: no raise
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED
    threads = [threading.Thread(target=annotate, args=(base, t, labels[t], answers, lock)) for t in during]
    for t in threads:  # spread over the outage
        t.start()
        time.sleep((OUTAGE_S - 4) / len(threads))
    for t in threads:
        t.join(60)
    assert time.monotonic() - down_at < OUTAGE_S + 10
    time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - down_at)))
    assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED  # nothing could run it meanwhile
    topology.redis.start()

    assert Counter(code for _, code in answers) == {200: 4 * len(tokens)}, answers
    assert Unit.objects.filter(pk__in=[u.pk for u in units], status=Unit.Status.COMPLETE).count() == len(units)
    assert Assignment.objects.filter(unit__in=units, status=Assignment.Status.SUBMITTED).count() == len(tokens)

    done = wait_for(lambda: (j := Job.objects.get(pk=job.pk)).status in Job.Status.finished() and j, 90,
                    "the Job queued during the outage", topology)
    assert (done.status, done.done) == (Job.Status.DONE, 3), (done.error, topology.logs())
