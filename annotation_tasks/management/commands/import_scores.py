"""import_scores FILE --project NAME [--owner USER] --scorer NAME [--version V]"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.management.commands._io import add_owner_argument, warn_if_unowned
from annotation_tasks.services import projects, scoring


class Command(BaseCommand):
    help = ("Import scores computed elsewhere (Ragas, MiniCheck, AlignScore): CSV with item_id, score[, kind] or "
            "JSONL of {item_id, score, kind?}; kind is qa (default) or fact. All or nothing.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("file")
        parser.add_argument("--project", required=True, help="project name")
        add_owner_argument(parser)
        parser.add_argument("--scorer", required=True, help="the tool's name, e.g. minicheck")
        parser.add_argument("--scorer-version", dest="scorer_version", default="1",
                            help="the tool's version or setting (default 1)")

    def handle(self, *args, file: str, project: str, scorer: str, scorer_version: str, **options) -> None:
        try:
            owner = projects.resolve_owner(options["owner"], project, allow_none=True)
            counts = scoring.import_scores(file, project, scorer, version=scorer_version)
            projects.own(project, owner)
        except projects.ProjectAdminError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
        except ImportFormatError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
        except scoring.ScoringError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{file}: imported {counts['qa']} QA scores and {counts['fact']} fact scores "
                          f"as {scorer.strip().lower()} {scorer_version}")
        warn_if_unowned(self, project)
