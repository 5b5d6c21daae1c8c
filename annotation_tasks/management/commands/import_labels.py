"""import_labels FILE --project NAME [--owner USER] [--format long|mturk-results] [--label-column Answer.x]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.importers.labels_long import FORMATS
from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.campaigns import import_labels


class Command(BaseCommand):
    help = ("Import the raw crowd labels of a past campaign (long-form CSV/JSONL: item_id, worker_id, label, "
            "groupings; or an MTurk results CSV) into an analysis-only project. All or nothing; idempotent.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name (created, analysis only, when missing)")
        add_owner_argument(parser)
        parser.add_argument("--format", choices=FORMATS, default="long", dest="fmt")
        parser.add_argument("--label-column", action="append", default=None, dest="label_columns",
                            help="the label column (long: default 'label'; mturk-results: Answer.x, repeat for "
                            "several questions, each becomes a level)")
        parser.add_argument("--item-column", default=None,
                            help="the item column (long: default item_id; mturk-results: default HITId)")

    def handle(self, *args, file: str, project: str, owner: str | None, fmt: str, label_columns: list[str] | None,
               item_column: str | None, **options) -> None:
        run_import(self, lambda: import_labels(file, project, fmt=fmt, label_columns=label_columns,
                                               item_column=item_column), project=project, owner=owner)
