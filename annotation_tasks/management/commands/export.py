"""export --project NAME --format qasem-release|factscore|qa-jsonl -o FILE (or -o - for stdout)"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.exports import FORMATS, ExportError, export_lines, export_to_path, write_lines


class Command(BaseCommand):
    help = "Export a project in a published format, streaming line by line."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--format", required=True, choices=sorted(FORMATS), dest="fmt")
        parser.add_argument("-o", "--output", required=True, help="output file, or - for stdout")
        parser.add_argument(
            "--no-majority",
            action="store_true",
            help="qasem-release only: leave out the majority keys (exactly the release schema)",
        )
        parser.add_argument(
            "--with-platform-ids",
            action="store_true",
            help="qa-jsonl: add each voter's platform id (provider:external id) after its pseudonymous id",
        )

    def handle(self, *args, project: str, fmt: str, output: str, no_majority: bool, with_platform_ids: bool,
               **options) -> None:
        extra = {"include_majority": not no_majority} if fmt == "qasem-release" else {}
        if with_platform_ids:
            if fmt != "qa-jsonl":
                raise CommandError(f"--with-platform-ids: {fmt} has no per-vote worker field (use qa-jsonl)")
            extra["with_platform_ids"] = True
        try:
            if output == "-":
                n = write_lines(export_lines(project, fmt, **extra), self.stdout._out)
            else:
                n = export_to_path(project, fmt, output, **extra)
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        except BrokenPipeError:  # `export -o - | head`: the reader stopped early, which is not an error
            return
        if output != "-":
            self.stderr.write(f"{n} lines written to {output}")
