"""adjudicate queue --project NAME [-o FILE] [--level L] [--include-agreed] [--undecided]
adjudicate apply FILE --project NAME --user USERNAME
adjudicate list --project NAME

The dashboard's adjudication queue for an expert working offline: `queue` writes the disputed items (most
disputed first) as JSON lines with empty label/reason fields; `apply` reads the filled-in file back, all or
nothing, each decision stored with the user as its author; `list` prints the current decisions."""
from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import ProjectMembership
from annotation_tasks.services import adjudication, adjudication_files, projects


class Command(BaseCommand):
    help = "Adjudicate disputed items offline: write the queue as JSONL, apply a file of decisions, list them."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        queue = sub.add_parser("queue", help="the queue as JSON lines to fill in (label, reason)")
        queue.add_argument("--project", required=True)
        queue.add_argument("-o", "--output", default="-", help="file to write (default - : standard output)")
        queue.add_argument("--level", default=None, help="one level only (qa, span, fact, pairwise)")
        queue.add_argument("--include-agreed", action="store_true", help="items everyone agrees on too")
        queue.add_argument("--undecided", action="store_true", help="leave out items already adjudicated")
        apply = sub.add_parser("apply", help="store the decisions of a filled-in file, all or nothing")
        apply.add_argument("file")
        apply.add_argument("--project", required=True)
        apply.add_argument("--user", required=True, help="the expert deciding (a researcher of the project)")
        listing = sub.add_parser("list", help="the current decisions with their provenance, as JSON lines")
        listing.add_argument("--project", required=True)

    def handle(self, *args, action: str, project: str, **options) -> None:
        try:
            target = projects.project_named(project)
        except projects.ProjectAdminError as exc:
            raise CommandError(str(exc)) from exc
        if action == "queue":
            self._queue(target, **options)
        elif action == "apply":
            self._apply(target, options["file"], options["user"])
        else:
            for row in adjudication.decisions(target):
                self.stdout.write(json.dumps(row, ensure_ascii=False))

    def _queue(self, target, *, output: str, level: str | None, include_agreed: bool, undecided: bool,
               **_options) -> None:
        params = {"level": level or "", "include_agreed": include_agreed}
        if undecided:
            params["decided"] = False
        try:
            lines = list(adjudication_files.queue_lines(target, params))
        except adjudication.AdjudicationError as exc:
            raise CommandError(str(exc)) from exc
        out = sys.stdout if output == "-" else open(output, "w", encoding="utf-8")  # noqa: SIM115
        try:
            for line in lines:
                out.write(line + "\n")
        finally:
            if out is not sys.stdout:
                out.close()
        self.stderr.write(f"{len(lines)} items to adjudicate" + ("" if output == "-" else f" written to {output}"))

    def _apply(self, target, file: str, username: str) -> None:
        try:
            user = projects.user_named(username, flag="--user")
        except projects.ProjectAdminError as exc:
            raise CommandError(str(exc)) from exc
        is_researcher = target.memberships.filter(user=user, role=ProjectMembership.Role.RESEARCHER).exists()
        if not (user.is_superuser or is_researcher):
            raise CommandError(f"--user: {username!r} is not a researcher of project {target.name!r}")
        try:
            result = adjudication_files.apply_decision_file(target, file, user)
        except adjudication_files.DecisionFileError as exc:
            raise CommandError(f"nothing stored: {exc}") from exc
        self.stdout.write(result.summary())
