"""Shared by the commands that start or resume a Job: follow it to its end, print its state."""
from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import Job
from annotation_tasks.services import jobs


def wait_for(command: BaseCommand, job: Job, timeout: float = 0) -> Job:
    """Poll the Job until it is done or failed, printing each change of state (stalled included) to stderr."""
    began, last = time.monotonic(), None
    while True:
        job.refresh_from_db()
        state = (jobs.state(job), job.done)
        if state != last:
            command.stderr.write(f"  {state[0]}: {job.done}/{job.total}")
            last = state
        if job.status in Job.Status.finished():
            return job
        if timeout and time.monotonic() - began > timeout:
            raise CommandError(f"{job.kind} job {job.pk} still {jobs.state(job)} after {timeout:.0f}s "
                               f"({job.done}/{job.total})")
        time.sleep(0.5)


def report(command: BaseCommand, job: Job, as_json: bool, extra: dict | None = None) -> None:
    """Print the Job's final state (one JSON object with --json); a failed Job exits non-zero."""
    job.refresh_from_db()
    if as_json:
        command.stdout.write(json.dumps({**jobs.describe(job), **(extra or {})}, ensure_ascii=False))
    else:
        command.stdout.write(f"job {job.pk}: {jobs.state(job)} {job.done}/{job.total}")
    if job.status == Job.Status.FAILED:
        raise CommandError(f"{job.kind} job {job.pk} failed: {job.error}")
