"""import_items FILE --project NAME [--owner USER] [--update]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import import_items


class Command(BaseCommand):
    help = "Import plain items (JSONL or CSV: source_id, source or passages, question, system, response)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name (created when missing)")
        parser.add_argument("--update", action="store_true",
                            help="apply lines whose response is already imported with another text (only responses "
                                 "not yet parsed or in a unit); without it such lines are reported and skipped")
        add_owner_argument(parser)

    def handle(self, *args, file: str, project: str, **options) -> None:
        run_import(self, lambda: import_items(file, project, update=options["update"]), project=project,
                   owner=options["owner"])
