"""parse --project NAME [--backend embedded|t5] [--reparse] [--wait] [--inline] [--resume JOB_ID] [--json]"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.management.commands._jobs import report, wait_for
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
        parser.add_argument("--resume", type=int, default=None, metavar="JOB_ID",
                            help="resume a stalled or failed parse Job (any kind: the `resume` command)")
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
                job = parsing.resume_parse_job(Job.objects.get(pk=resume, project=proj), queue=not inline)
            else:
                job = parsing.start_parse_job(proj, backend=backend, queue=not inline, only_unparsed=not reparse)
        except Job.DoesNotExist as exc:
            raise CommandError(f"project {project!r} has no job {resume}") from exc
        except ValueError as exc:  # an unknown backend, a Job that is not resumable now
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"parse job {job.pk} ({job.params.get('backend')}): {job.total} responses")
        if inline:
            job = parsing.run_parse_job(job.pk)
        elif wait:
            job = wait_for(self, job, timeout)
        report(self, job, json, {"backend": job.params.get("backend", "")})
