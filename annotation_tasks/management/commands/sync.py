"""sync [--batch ID | --project NAME]: pull submissions from the platforms (what the beat job does)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError
from annotation_tasks.management.commands._crowd import batches
from annotation_tasks.services import publishing


class Command(BaseCommand):
    help = "Sync published batches' submissions from their crowd platforms."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int)
        parser.add_argument("--project")

    def handle(self, *args, **opts) -> None:
        for batch in batches(opts["batch"], opts["project"]):
            try:
                result = publishing.sync_batch(batch)
            except ProviderError as exc:
                raise CommandError(f"batch {batch.pk}: {exc}") from exc
            self.stdout.write(
                f"batch {batch.name} (id {batch.pk}, {batch.provider}): seen {result.seen}, new {result.created}, "
                f"updated {result.updated}, unchanged {result.unchanged}"
                + (f", without our labels {len(result.missing_labels)}" if result.missing_labels else "")
                + (f", UNVERIFIED (not counted: unknown to the platform or a wrong completion code) "
                   f"{len(result.unverified)}" if result.unverified else "")
            )
