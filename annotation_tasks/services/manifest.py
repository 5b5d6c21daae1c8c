"""The manifest the element and the dashboard read (GET /api/protocols/, `manage.py protocols --json`).

The protocols' part is theirs (protocols.manifest, from each protocol's declarations); this adds what the
dashboard offers around them: the import formats (importers/registry.py) uploads accept and the exports services.exports
writes (each protocol's own formats, then the ones every project has). One function, so the API and the CLI
print the same JSON.
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.protocols.manifest import protocols_manifest
from annotation_tasks.services import exports, uploads

GENERAL_EXPORTS: dict[str, dict[str, str]] = {
    "labels-jsonl": {"label": "Labels of every level (JSONL)",
                     "help": "One line per labelled item of every protocol's levels: votes, majority, adjudication."},
    "campaign-items": {"label": "Campaign items",
                       "help": "Imported label campaigns only: one line per item and level with its votes."},
    "hf-dataset": {"label": "Hugging Face dataset",
                   "help": "A datasets folder (zip): one config per level, dev/test splits, a README card with label "
                           "definitions and agreement."},
}

EXPORT_OPTIONS: dict[str, list[str]] = {
    "qasem-release": ["no_majority"], "qa-jsonl": ["with_platform_ids"], "hf-dataset": ["with_platform_ids"],
}
"""The per-format options api.serializers.ExportQuerySerializer accepts beside file and aggregation."""


def manifest() -> dict[str, Any]:
    """The whole manifest: protocols, steps, modes (protocols.manifest), importers, exports."""
    out = protocols_manifest()
    out["importers"] = [{"value": f.value, "label": f.label, "help": f.help, "fields": list(f.fields),
                         "steps": list(f.steps), "suffixes": list(f.suffixes)}
                        for f in (IMPORTERS[fmt] for fmt in uploads.FORMATS)]
    listed: list[dict[str, Any]] = []
    for entry in out["protocols"]:
        for e in entry["exports"]:
            if e["value"] in exports.FORMATS and all(x["value"] != e["value"] for x in listed):
                listed.append({**e, "protocol": entry["name"], "dataset": False,
                               "options": EXPORT_OPTIONS.get(e["value"], [])})
    for fmt in [*exports.FORMATS, *exports.DATASET_FORMATS]:
        if all(x["value"] != fmt for x in listed):
            info = GENERAL_EXPORTS.get(fmt, {"label": fmt, "help": ""})
            listed.append({"value": fmt, **info, "protocol": None, "dataset": fmt in exports.DATASET_FORMATS,
                           "options": EXPORT_OPTIONS.get(fmt, [])})
    out["exports"] = listed
    return out
