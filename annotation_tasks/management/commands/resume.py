"""resume JOB_ID [--wait] [--inline] [--json] | resume --stalled: queue a stalled or failed Job again."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.management.commands._jobs import report, wait_for
from annotation_tasks.models import Job
from annotation_tasks.services import jobs


class Command(BaseCommand):
    help = ("Resume a stalled (worker gone) or failed background Job of any kind; it skips what it already did. "
            "--stalled resumes every stalled Job of the kinds safe to run again, as beat does.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("job", nargs="?", type=int, help="the Job's id (see the dashboard or /api/jobs/)")
        parser.add_argument("--stalled", action="store_true", help="resume every stalled parse, import and sync Job")
        parser.add_argument("--wait", action="store_true", help="wait for the Job, printing its progress")
        parser.add_argument("--inline", action="store_true", help="run the Job in this process (no worker needed)")
        parser.add_argument("--timeout", type=float, default=0, help="with --wait: give up after this many seconds")
        parser.add_argument("--json", action="store_true", help="print the final Job state as JSON")

    def handle(self, *args, job: int | None, stalled: bool, wait: bool, inline: bool, timeout: float, json: bool,
               **options) -> None:
        if stalled == (job is not None):
            raise CommandError("name one Job, or pass --stalled")
        if stalled:
            resumed = jobs.resume_stalled()
            self.stdout.write(f"resumed {len(resumed)} stalled job(s): {' '.join(map(str, resumed)) or '-'}")
            return
        try:
            found = Job.objects.get(pk=job)
            found = jobs.resume(found, queue=not inline)
        except Job.DoesNotExist as exc:
            raise CommandError(f"no job {job}") from exc
        except jobs.NotResumable as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"{found.kind} job {found.pk}: {jobs.state(found)} {found.done}/{found.total}")
        if inline and found.status != Job.Status.DONE:
            found = jobs.run_here(found)
        elif wait:
            found = wait_for(self, found, timeout)
        report(self, found, json)
