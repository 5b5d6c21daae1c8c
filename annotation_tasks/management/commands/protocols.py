"""manage.py protocols [--json] [-o FILE]: the registered protocols, or their manifest as JSON (the same JSON as
GET /api/protocols/; CI writes it to frontend/tests/contract/generated/manifest.json for the element's contract
suite)."""
from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.manifest import manifest


class Command(BaseCommand):
    help = "List the annotation protocols, or print their manifest as JSON (GET /api/protocols/)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print the manifest as JSON")
        parser.add_argument("-o", "--output", metavar="FILE", help="write the JSON to FILE instead (implies --json)")

    def handle(self, *args, **options) -> None:
        data = manifest()
        if options["json"] or options["output"]:
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            if options["output"]:
                path = Path(options["output"])
                try:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
                except OSError as exc:
                    raise CommandError(f"{path}: cannot write the manifest ({exc.strerror or exc})") from exc
                self.stdout.write(f"wrote {path} ({len(data['protocols'])} protocols)")
            else:
                self.stdout.write(text, ending="")
            return
        for entry in data["protocols"]:
            steps = ", ".join(s["value"] for s in entry["steps"])
            kinds = ", ".join(entry["plan_kinds"])
            levels = "; ".join(f"{lv['name']}: {' '.join(lv['labels'])}" for lv in entry["label_levels"])
            self.stdout.write(f"{entry['name']}: {entry['title']}\n  steps: {steps}\n  plan kinds: {kinds}\n"
                              f"  levels: {levels or '-'}")
