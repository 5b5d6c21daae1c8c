"""parse --project NAME [--backend embedded|t5] [--reparse] [--wait] [--inline] [--resume JOB_ID] [--json]"""
from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import Job, Project
from annotation_tasks.services import parsing


class Command(BaseCommand):
    help = "Parse a project's responses (QA-SRL frames, answer spans, atomic facts) as a background Job."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--backend", default=None, help="parser backend (default: settings.PARSER_BACKEND)")
        parser.add_argument(
            "--reparse",
            action="store_true",
            help="parse every response again (default: only responses not yet decomposed; imported ones count as done)",
        )
        parser.add_argument("--wait", action="store_true", help="wait for the Job, printing its progress")
        parser.add_argument("--inline", action="store_true", help="run the Job in this process (no worker needed)")
        parser.add_argument("--resume", type=int, default=None, metavar="JOB_ID", help="resume an interrupted Job")
        parser.add_argument("--timeout", type=float, default=0, help="with --wait: give up after this many seconds")
        parser.add_argument("--json", action="store_true", help="print the final Job state as JSON")

    def handle(self, *args, project: str, backend: str | None, reparse: bool, wait: bool, inline: bool,
               resume: int | None, timeout: float, json: bool, **options) -> None:
        try:
            proj = Project.objects.get(name=project)
        except Project.DoesNotExist as exc:
            raise CommandError(f"no project named {project!r}") from exc
        try:
            if resume is not None:
                job = Job.objects.get(pk=resume, project=proj)
                job = parsing.resume_parse_job(job) if not inline else job
            else:
                job = parsing.start_parse_job(proj, backend=backend, queue=not inline, only_unparsed=not reparse)
        except Job.DoesNotExist as exc:
            raise CommandError(f"project {project!r} has no job {resume}") from exc
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"parse job {job.pk} ({job.params.get('backend')}): {job.total} responses")
        if inline:
            job = parsing.run_parse_job(job.pk)
        elif wait:
            job = self._wait(job, timeout)
        job.refresh_from_db()
        if json:
            self.stdout.write(_json(parsing.parse_progress(job)))
        else:
            self.stdout.write(f"job {job.pk}: {job.status} {job.done}/{job.total}")
        if job.status == Job.Status.FAILED:
            raise CommandError(f"parse job {job.pk} failed: {job.error}")

    def _wait(self, job: Job, timeout: float) -> Job:
        began, last = time.monotonic(), None
        while True:
            job.refresh_from_db()
            state = (job.status, job.done)
            if state != last:
                self.stderr.write(f"  {job.status}: {job.done}/{job.total}")
                last = state
            if job.status in (Job.Status.DONE, Job.Status.FAILED):
                return job
            if timeout and time.monotonic() - began > timeout:
                raise CommandError(f"parse job {job.pk} still {job.status} after {timeout:.0f}s ({job.done}/{job.total})")
            time.sleep(0.5)


def _json(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
