"""import_qasem_release FILE --project NAME [--owner USER]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import import_qasem_release


class Command(BaseCommand):
    help = "Import a QASemConsistency release file (all or nothing; re-importing changes nothing)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name (created when missing)")
        add_owner_argument(parser)

    def handle(self, *args, file: str, project: str, **options) -> None:
        run_import(self, lambda: import_qasem_release(file, project), project=project, owner=options["owner"])
