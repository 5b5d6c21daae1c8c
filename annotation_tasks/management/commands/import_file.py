"""import_file FILE --format FORMAT --project NAME [--owner USER] [--system NAME]: any format of the import
registry (importers/registry.py), the same one the dashboard's upload runs."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import run_import as import_one


class Command(BaseCommand):
    help = "Import a file in any registered format (" + ", ".join(IMPORTERS) + "). All or nothing; idempotent."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--format", required=True, choices=list(IMPORTERS), dest="fmt",
                            help="; ".join(f"{f.value}: {f.help}" for f in IMPORTERS.values()))
        parser.add_argument("--project", required=True,
                            help="project name (created with the format's steps when missing, where it creates one)")
        add_owner_argument(parser)
        parser.add_argument("--system", default="", help="factscore: the system name (default: the file name's stem)")

    def handle(self, *args, file: str, fmt: str, project: str, owner: str | None, system: str, **options) -> None:
        run_import(self, lambda: import_one(fmt, file, project, system=system), project=project, owner=owner)
