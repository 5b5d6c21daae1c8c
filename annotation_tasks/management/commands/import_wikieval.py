"""import_wikieval FILE --project NAME [--owner USER]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import import_wikieval


class Command(BaseCommand):
    help = ("Import Ragas' WikiEval layout (JSONL or CSV: question, context_v1[, context_v2], answer, "
            "ungrounded_answer, poor_answer) for the ragas protocol (answers and contexts compared).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name (created with the ragas protocol when missing)")
        add_owner_argument(parser)

    def handle(self, *args, file: str, project: str, **options) -> None:
        run_import(self, lambda: import_wikieval(file, project), project=project, owner=options["owner"])
