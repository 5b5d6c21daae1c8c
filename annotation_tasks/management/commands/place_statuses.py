"""place_statuses --batch ID FILE.csv: a panel's verdicts (participant_id,status[,feedback]) applied to the batch's
places (services.sessions.import_place_statuses). Panels pay outside FactCrowd; this keeps our statuses in step."""
from __future__ import annotations

import csv
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.models import Batch


class Command(BaseCommand):
    help = "Import a panel's approved / rejected statuses for a batch study's participants (CSV)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int, required=True)
        parser.add_argument("file")

    def handle(self, *args, **opts) -> None:
        from annotation_tasks.services import sessions

        batch = Batch.objects.filter(pk=opts["batch"]).first()
        if batch is None:
            raise CommandError(f"no batch {opts['batch']}")
        path = Path(opts["file"])
        try:
            with path.open(newline="", encoding="utf-8-sig") as fh:
                rows = list(csv.DictReader(fh))
        except (OSError, UnicodeDecodeError, csv.Error) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        if rows and not {"participant_id", "status"} <= set(rows[0]):
            raise CommandError(f"{path}: needs the columns participant_id and status")
        result = sessions.import_place_statuses(batch, rows)
        self.stdout.write(f"approved {result.approved}, rejected {result.rejected}, unknown participants "
                          f"{len(result.unknown)}, rows skipped {len(result.skipped)}")
