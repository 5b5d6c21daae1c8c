"""report --project NAME [--by dataset|system|split|COLUMN] [--aggregation dawid_skene,glad,mace] [--json]"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.analysis.crowd_models import MODELS
from annotation_tasks.services.reports import GROUPINGS, ReportError, build_report, render_text


class Command(BaseCommand):
    help = "Agreement (Fleiss, Krippendorff, unanimity, per worker), QASem consistency and human FActScore."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument(
            "--by", default=None,
            help=f"break figures down by this field ({', '.join(GROUPINGS)}; a campaign project: any of its columns)",
        )
        parser.add_argument(
            "--aggregation", default="",
            help=f"comma-separated models to set beside the majority ({', '.join(m for m in MODELS if m != 'majority')}"
            " or all): where they differ from it, and each worker's competence",
        )
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout, nothing else")

    def handle(self, *args, project: str, by: str | None, aggregation: str, json: bool, **options) -> None:
        models = [m.strip() for m in aggregation.split(",") if m.strip()]
        if models == ["all"]:
            models = [m for m in MODELS if m != "majority"]
        unknown = [m for m in models if m not in MODELS]
        if unknown:
            raise CommandError(f"--aggregation: unknown model {', '.join(unknown)} (expected {', '.join(MODELS)} or all)")
        try:
            report = build_report(project, by=by, aggregation=models)
        except ReportError as exc:
            raise CommandError(str(exc)) from exc
        if json:
            self.stdout.write(_dumps(report))
        else:
            self.stdout.write(render_text(report), ending="")


def _dumps(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False, allow_nan=False)
