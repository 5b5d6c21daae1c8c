"""import_factscore FILE... --project NAME [--owner USER] [--system NAME]"""
from __future__ import annotations

from django.core.management.base import BaseCommand

from annotation_tasks.management.commands._io import add_owner_argument, run_import
from annotation_tasks.services.imports import import_factscore


class Command(BaseCommand):
    help = "Import FActScore labeled files; the system is each file's stem unless --system is given."

    def add_arguments(self, parser) -> None:
        parser.add_argument("files", nargs="+")
        parser.add_argument("--project", required=True, help="project name (created when missing)")
        add_owner_argument(parser)
        parser.add_argument("--system", default=None, help="system name for every file (default: the file stem)")

    def handle(self, *args, files: list[str], project: str, system: str | None, **options) -> None:
        run_import(self, lambda: import_factscore(files, project, system=system), project=project, owner=options["owner"])
