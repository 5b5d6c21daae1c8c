"""training --project ID --units 1,2 [--labels FILE.jsonl] [--pass-mark 0.8] [--unset]: mark training units.

Each line of the labels file is {"target": "span"|"qa"|"fact", "id": item id, "value": the expert's label,
"explanation": why}; the labels are the expert's answers new workers are compared with (services.training).
"""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import Project
from annotation_tasks.services import training


class Command(BaseCommand):
    help = "Mark units as training units with the expert's labels and explanations, and set the pass mark."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", type=int, required=True)
        parser.add_argument("--units", default="", help="comma-separated unit ids")
        parser.add_argument("--labels", help="JSON lines: target, id, value, explanation")
        parser.add_argument("--pass-mark", type=float, dest="pass_mark")
        parser.add_argument("--unset", action="store_true", help="make the units ordinary units again")

    def handle(self, *args, **opts) -> None:
        project = Project.objects.filter(pk=opts["project"]).first()
        if project is None:
            raise CommandError(f"no project {opts['project']}")
        try:
            units = [int(u) for u in opts["units"].split(",") if u.strip()]
        except ValueError as exc:
            raise CommandError("--units: comma-separated unit ids") from exc
        labels: list = []
        if opts["labels"]:
            path = Path(opts["labels"])
            if not path.is_file():
                raise CommandError(f"--labels: no file {path}")
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    try:
                        labels.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise CommandError(f"--labels line {n}: {exc.msg}") from exc
        try:
            counts = training.mark(project, units, training=not opts["unset"], labels=labels,
                                   pass_mark=opts["pass_mark"])
        except training.TrainingError as exc:
            raise CommandError(f"{exc.field}: {exc}") from exc
        self.stdout.write(f"{counts['units']} units {'unset' if opts['unset'] else 'marked as training'}, "
                          f"{counts['labels']} expert labels stored")
