"""score --project NAME [--scorer embedded|overlap|nli|llm] [--rescore] [--wait] [--inline] [--json]"""
from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import Job
from annotation_tasks.scoring import registry
from annotation_tasks.services import scoring


class Command(BaseCommand):
    help = "Score a project's QAs and atomic facts with an automatic scorer, as a background Job."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--scorer", default=registry.DEFAULT_SCORER,
                            help=f"one of {', '.join(registry.available_scorers())} (default {registry.DEFAULT_SCORER})")
        parser.add_argument("--rescore", action="store_true", help="score again items this version already scored")
        parser.add_argument("--wait", action="store_true", help="wait for the Job, printing its progress")
        parser.add_argument("--inline", action="store_true", help="run the Job in this process (no worker needed)")
        parser.add_argument("--timeout", type=float, default=0, help="with --wait: give up after this many seconds")
        parser.add_argument("--json", action="store_true", help="print the final Job state as JSON")

    def handle(self, *args, project: str, scorer: str, rescore: bool, wait: bool, inline: bool, timeout: float,
               json: bool, **options) -> None:
        try:
            job = scoring.start_score_job(project, scorer, rescore=rescore, queue=not inline)
        except scoring.ScoringError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"score job {job.pk} ({job.params['scorer']})")
        if inline:
            job = scoring.run_score_job(job.pk)
        elif wait:
            job = self._wait(job, timeout)
        job.refresh_from_db()
        state = {"id": job.pk, "status": job.status, "done": job.done, "total": job.total, "error": job.error,
                 "result": job.result}
        self.stdout.write(_dumps(state) if json else f"job {job.pk}: {job.status} {job.done}/{job.total} {job.result}")
        if job.status == Job.Status.FAILED:
            raise CommandError(f"score job {job.pk} failed: {job.error}")

    def _wait(self, job: Job, timeout: float) -> Job:
        began, last = time.monotonic(), None
        while True:
            job.refresh_from_db()
            if (job.status, job.done) != last:
                self.stderr.write(f"  {job.status}: {job.done}/{job.total}")
                last = (job.status, job.done)
            if job.status in Job.Status.finished():
                return job
            if timeout and time.monotonic() - began > timeout:
                raise CommandError(f"score job {job.pk} still {job.status} after {timeout:.0f}s ({job.done}/{job.total})")
            time.sleep(0.5)


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
