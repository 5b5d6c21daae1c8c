"""report --project NAME [--by dataset|system|split] [--json]"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.reports import GROUPINGS, ReportError, build_report, render_text


class Command(BaseCommand):
    help = "Agreement (Fleiss, Krippendorff, unanimity, per worker), QASem consistency and human FActScore."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--by", choices=GROUPINGS, default=None, help="break figures down by this field")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout, nothing else")

    def handle(self, *args, project: str, by: str | None, json: bool, **options) -> None:
        try:
            report = build_report(project, by=by)
        except ReportError as exc:
            raise CommandError(str(exc)) from exc
        if json:
            self.stdout.write(_dumps(report))
        else:
            self.stdout.write(render_text(report), ending="")


def _dumps(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False, allow_nan=False)
