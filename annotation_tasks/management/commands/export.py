"""export --project NAME --format qasem-release|factscore|qa-jsonl|campaign-items|hf-dataset -o FILE|DIR
[--csv] [--aggregation majority|dawid_skene|glad|mace] (-o - for stdout)"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.exports import (
    AGGREGATIONS,
    DATASET_FORMATS,
    FORMATS,
    ExportError,
    csv_path_for,
    export_dataset,
    export_lines,
    export_to_path,
    write_lines,
)
from backend import collector


class Command(BaseCommand):
    help = "Export a project in a published format, streaming line by line, or as a Hugging Face dataset folder."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--format", required=True, choices=sorted([*FORMATS, *DATASET_FORMATS]), dest="fmt")
        parser.add_argument("-o", "--output", required=True, help="output file (hf-dataset: a folder), or - for stdout")
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
        parser.add_argument("--csv", action="store_true",
                            help="also write a CSV beside the JSONL (FILE.csv; hf-dataset: one per split)")
        parser.add_argument("--aggregation", choices=AGGREGATIONS, default="majority",
                            help="the model whose label the export writes (default majority; crowd-kit models are "
                            "fitted on all of the project's labels)")

    def handle(self, *args, **options) -> None:
        with collector.frozen():  # the loaded app out of the export's collections (backend/collector.py)
            self._export(**options)

    def _export(self, *, project: str, fmt: str, output: str, no_majority: bool, with_platform_ids: bool,
                csv: bool, aggregation: str, **options) -> None:
        extra: dict = {"include_majority": not no_majority} if fmt == "qasem-release" else {}
        if with_platform_ids:
            if fmt not in ("qa-jsonl", "hf-dataset"):
                raise CommandError(f"--with-platform-ids: {fmt} has no per-vote worker field (use qa-jsonl)")
            extra["with_platform_ids"] = True
        if output == "-" and (csv or fmt in DATASET_FORMATS):
            raise CommandError("--csv and hf-dataset write files: give -o a file or folder, not -")
        try:
            if fmt in DATASET_FORMATS:
                sizes = export_dataset(project, output, aggregation=aggregation, csv=csv, **extra)
                parts = "; ".join(f"{c}: " + ", ".join(f"{s} {n}" for s, n in splits.items())
                                  for c, splits in sizes.items())
                self.stderr.write(f"dataset written to {output} ({parts})")
                return
            if output == "-":
                n = write_lines(export_lines(project, fmt, aggregation=aggregation, **extra), self.stdout._out)
            else:
                n = export_to_path(project, fmt, output, csv=csv, aggregation=aggregation, **extra)
        except ExportError as exc:
            raise CommandError(str(exc)) from exc
        except BrokenPipeError:  # `export -o - | head`: the reader stopped early, which is not an error
            return
        if output != "-":
            self.stderr.write(f"{n} lines written to {output}" + (f" (and {csv_path_for(output)})" if csv else ""))
