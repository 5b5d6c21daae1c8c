"""Jobs run by a real Celery worker process over the filesystem broker, on the database the test uses.

Nothing here is eager: services queue jobs in transaction.on_commit, kombu writes the message to a folder,
a `celery -A backend worker` subprocess picks it up and writes to the same (SQLite file or PostgreSQL)
test database, and the test watches the Job rows like the dashboard does. Includes a worker killed with
SIGKILL in the middle of a parse, and the resumed Job finishing with exactly the QAs an uninterrupted
parse writes. Publish and sync jobs (local provider) go the same way.
"""
from __future__ import annotations

import json
import time
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.db.models import Count
from django_celery_results.models import TaskResult

from annotation_tasks.models import QA, Batch, Job, Project, Response, Unit
from annotation_tasks.services import batch_jobs, jobs, parsing, uploads
from annotation_tasks.services.imports import import_items
from annotation_tasks.services.units import compose_units
from tests.integration import procs

pytestmark = [pytest.mark.slow]


def write_items(path: Path, n: int, prefix: str = "") -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            source = (
                f"Report {prefix}{i}: the council of town {i} approved a budget of {i + 3} million euros on Monday "
                f"after a long debate about schools and roads. The mayor said work would start in spring."
            )
            response = f"Town {i} approved a budget of {i + 3} million euros. The debate was about schools."
            handle.write(json.dumps({"source_id": f"{prefix}s{i}", "source": source, "system": "sys-a",
                                     "response": response}) + "\n")
    return path


def job_state(job_id: int) -> Job:
    return Job.objects.get(pk=job_id)


def wait_job(job_id: int, real, timeout: float = 45) -> Job:
    procs.wait_until(
        lambda: job_state(job_id).status in (Job.Status.DONE, Job.Status.FAILED), timeout, f"job {job_id}",
        [w for w in real.started if w.alive()], interval=0.2,
    )
    return job_state(job_id)


def qa_counts(project: Project) -> dict[str, int]:
    return {
        r.external_id: r.n for r in Response.objects.filter(project=project).annotate(n=Count("qas"))
    }


def duplicate_qas(project: Project) -> list[dict]:
    return list(
        QA.objects.filter(response__project=project)
        .values("response_id", "predicate_id", "answer_start", "answer_end", "question")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
    )


def test_parse_and_import_jobs_run_in_a_real_worker(real_celery, tmp_path):
    import_items(write_items(tmp_path / "items.jsonl", 5), "Real worker")
    project = Project.objects.get(name="Real worker")
    real_celery.start_worker()

    with transaction.atomic():
        job = parsing.start_parse_job(project)
        # queued on commit, not before: nothing may reach the broker while the Job row is invisible to the worker
        assert real_celery.queued_messages() == []
    job = wait_job(job.pk, real_celery)
    assert (job.status, job.error, job.done, job.total) == (Job.Status.DONE, "", 5, 5), real_celery.logs()
    assert job.result["qas"] > 0 and job.result["responses"] == 5
    responses = Response.objects.filter(project=project)
    assert all(r.parsed_at and r.parser_backend == "embedded" for r in responses)
    counts = qa_counts(project)
    assert all(n > 0 for n in counts.values()) and sum(counts.values()) == job.result["qas"]
    assert duplicate_qas(project) == []
    # the worker stored its result through the django-db result backend, in the same database
    # (stored just after the task returns, so a moment after the Job row says done)
    assert job.celery_id
    procs.wait_until(lambda: TaskResult.objects.filter(task_id=job.celery_id).exists(), 10, "task result",
                     real_celery.started)
    assert TaskResult.objects.get(task_id=job.celery_id).status == "SUCCESS"

    # an upload from the dashboard: services.uploads stores the file, the worker imports it
    upload = SimpleUploadedFile("more.jsonl", write_items(tmp_path / "more.jsonl", 3, prefix="up").read_bytes())
    job = wait_job(uploads.start_import_job(project, upload, "items").pk, real_celery)
    assert (job.status, job.done, job.result["lines"]) == (Job.Status.DONE, 1, 3), (job.error, real_celery.logs())
    assert Response.objects.filter(project=project).count() == 8

    # a broken upload fails as a Job with a located error, and imports nothing
    bad = SimpleUploadedFile("bad.jsonl", b'{"source_id": "x", "source": "s", "system": "a", "response": "r"}\n{oops\n')
    job = wait_job(uploads.start_import_job(project, bad, "items").pk, real_celery)
    assert job.status == Job.Status.FAILED and job.result["errors"][0]["line"] == 2, (job.error, job.result)
    assert Response.objects.filter(project=project).count() == 8


def test_parse_command_waits_for_the_real_worker(real_celery, tmp_path):
    """The CLI in another process: `parse --wait` queues through the service and follows the Job to the end."""
    items = write_items(tmp_path / "items.jsonl", 4)
    procs.manage(real_celery.env, "import_items", str(items), "--project", "CLI")
    real_celery.start_worker()
    done = procs.manage(real_celery.env, "parse", "--project", "CLI", "--wait", "--timeout", "45", "--json", timeout=60)
    state = json.loads(done.stdout.strip().splitlines()[-1])
    assert (state["status"], state["done"], state["total"]) == ("done", 4, 4), done.stderr
    project = Project.objects.get(name="CLI")
    assert sum(qa_counts(project).values()) == state["result"]["qas"] > 0
    assert duplicate_qas(project) == []


def _quick_stall(real, settings, seconds: float = 3) -> None:
    """Workers beat twice a second and a Job is stalled after `seconds` without a heartbeat (here and there)."""
    real.env.update(JOB_HEARTBEAT_SECONDS="0.5", JOB_STALL_SECONDS=str(seconds))
    settings.JOB_STALL_SECONDS = seconds


def _stalled(job_id: int) -> Job:
    job = job_state(job_id)
    return job if jobs.is_stalled(job) else None


def test_worker_killed_mid_parse_then_resumed_writes_each_qa_once(real_celery, tmp_path, settings):
    n = 60
    import_items(write_items(tmp_path / "items.jsonl", n), "Killed")
    project = Project.objects.get(name="Killed")
    _quick_stall(real_celery, settings)
    worker = real_celery.start_worker()
    job = parsing.start_parse_job(project)

    # SIGKILL the worker once some responses are written, long before the end
    procs.wait_until(lambda: job_state(job.pk).done >= 3, 45, "first responses parsed", [worker], interval=0.02)
    worker.kill()
    time.sleep(0.5)  # a COMMIT already sent by the dead worker lands now, not after we looked
    at_kill = job_state(job.pk)
    assert at_kill.status == Job.Status.RUNNING and 3 <= at_kill.done < n, "worker finished before it was killed"
    parsed_before = dict(
        Response.objects.filter(project=project, parsed_at__isnull=False).values_list("id", "parsed_at")
    )
    # each response is all or nothing: `done` counts after its transaction commits, so at most one more is parsed
    assert at_kill.done <= len(parsed_before) <= at_kill.done + 1
    assert not QA.objects.filter(response__project=project, response__parsed_at__isnull=True).exists()
    assert duplicate_qas(project) == []
    # the filesystem broker removed the message when the worker took it: a restarted worker alone has nothing
    # to run (no redelivery after a crash, acks_late or not), so the Job is resumed explicitly
    assert real_celery.queued_messages() == []

    assert job_state(job.pk).done == at_kill.done  # nobody is working on it any more
    # no heartbeat any more: within JOB_STALL_SECONDS the Job shows as stalled, which is when it may be resumed
    procs.wait_until(lambda: _stalled(job.pk), 10, "the Job to show as stalled")
    assert jobs.describe(job_state(job.pk))["stalled"] and job_state(job.pk).status == Job.Status.RUNNING
    real_celery.start_worker(name="restarted")
    # what an operator types: `parse --resume JOB --wait` (another process, through the broker to the new worker)
    procs.manage(real_celery.env, "parse", "--project", "Killed", "--resume", str(job.pk), "--wait", "--timeout", "60",
                 timeout=90)
    job = job_state(job.pk)
    assert (job.status, job.done, job.total) == (Job.Status.DONE, n, n), (job.error, real_celery.logs())
    # responses written before the kill were skipped, not parsed again
    again = dict(Response.objects.filter(id__in=parsed_before).values_list("id", "parsed_at"))
    assert again == parsed_before
    assert job.result["responses"] == n - len(parsed_before)

    # exactly what an uninterrupted parse of the same items writes: nothing duplicated, nothing missing
    import_items(tmp_path / "items.jsonl", "Reference")
    reference = Project.objects.get(name="Reference")
    parsing.run_parse_job(parsing.start_parse_job(reference, queue=False).pk)
    assert duplicate_qas(project) == []
    assert qa_counts(project) == qa_counts(reference)
    assert sum(qa_counts(project).values()) > n


def test_publish_and_sync_jobs_run_in_a_real_worker(real_celery, tmp_path):
    """The dashboard's publish and sync buttons, on the local provider, executed by the worker."""
    import_items(write_items(tmp_path / "items.jsonl", 4), "Publish")
    project = Project.objects.get(name="Publish")
    batch = Batch.objects.create(project=project, name="b1", provider="local")
    compose_units(batch)
    real_celery.start_worker()

    job = wait_job(batch_jobs.start_publish_job(batch, reward=Decimal("0.50"), assignments_per_unit=2).pk, real_celery)
    assert (job.status, job.error) == (Job.Status.DONE, ""), real_celery.logs()
    units = Unit.objects.filter(batch=batch)
    assert units.count() == 4 and not units.filter(provider_ref="").exists()
    assert (job.done, job.total, job.result["published"], job.result["total_cost"]) == (4, 4, 4, "4.00")

    job = wait_job(batch_jobs.start_sync_job(batch).pk, real_celery)
    assert (job.status, job.error) == (Job.Status.DONE, ""), real_celery.logs()
    assert (job.done, job.result["seen"]) == (0, 0)  # nobody has labeled yet


def test_beat_resumes_a_parse_whose_worker_was_killed(real_celery, tmp_path, settings):
    """The filesystem broker drops the message of a killed worker: beat finds the stalled Job and queues it again."""
    n = 40
    import_items(write_items(tmp_path / "items.jsonl", n), "Beat resumes")
    project = Project.objects.get(name="Beat resumes")
    _quick_stall(real_celery, settings)
    real_celery.env.update(JOB_RESUME_SECONDS="1")
    worker = real_celery.start_worker()
    job = parsing.start_parse_job(project)
    procs.wait_until(lambda: job_state(job.pk).done >= 3, 45, "first responses parsed", [worker], interval=0.02)
    worker.kill()
    first_task = job_state(job.pk).celery_id
    assert job_state(job.pk).status == Job.Status.RUNNING

    real_celery.start_worker(name="restarted")
    beat = real_celery.start_beat()
    job = wait_job(job.pk, real_celery, timeout=90)
    assert (job.status, job.done, job.total) == (Job.Status.DONE, n, n), (job.error, real_celery.logs())
    assert job.celery_id != first_task and f"resumed stalled parse job {job.pk}" in real_celery.logs()
    assert "Sending due task resume-stalled-jobs" in beat.log()
    assert duplicate_qas(project) == []
    assert not Response.objects.filter(project=project, parsed_at__isnull=True).exists()
