"""Test helpers: campaign files written from the shared QASem dev votes, and small hand-made campaigns."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from annotation_tasks.importers.qasem_release import system_of
from tests.analysis.release import qasem_rows

LONG_COLUMNS = ["level", "item_id", "worker_id", "label", "dataset", "system"]


def qasem_long_rows() -> list[dict]:
    """Every crowd vote of the QASem dev release as one long-form row (worker k of a source = "<source>:k",
    as the release importer names them; the system as the release importer reads it from `model`)."""
    out = []
    for n, row in enumerate(qasem_rows()):
        base = {"dataset": row["dataset"], "system": system_of(row["model"])}  # as the release import names it
        for qa in row["qas"]:
            for k, value in enumerate(qa["annotations"]):
                out.append({"level": "qa", "item_id": f"{n}:qa:{qa['qa_id']}", "worker_id": f"{row['source_id']}:{k}",
                            "label": "not_supported" if value == 1 else "supported", **base})
        for span in row["spans"]:
            for k, value in enumerate(span["annotations"]):
                out.append({"level": "span", "item_id": f"{n}:span:{span['id']}",
                            "worker_id": f"{row['source_id']}:{k}",
                            "label": "covered" if value == 1 else "not_covered", **base})
    return out


def write_csv(path: Path, rows: list[dict], columns: list[str] | None = None) -> Path:
    columns = columns or list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
