"""import_facts FILE --project NAME [--owner USER]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import import_facts


class Command(BaseCommand):
    help = (
        "Import atomic facts made elsewhere (JSONL: response_id or source_id + system, sentence_index, facts, "
        "optional kind) onto the project's responses; the whole file or nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="an existing project")
        add_owner_argument(parser)

    def handle(self, *args, file: str, project: str, **options) -> None:
        run_import(self, lambda: import_facts(file, project), project=project, owner=options["owner"])
