"""Exports as people load them: a CSV beside the JSONL, a Hugging Face datasets folder that
datasets.load_dataset("json", data_files=...) reads, and exports that use Dawid-Skene instead of the majority."""
from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.analysis.crowd_models import fit
from annotation_tasks.exporters.csv_writer import csv_text
from annotation_tasks.models import QA
from annotation_tasks.services import frames
from tests.campaigns.helpers import write_csv
from tests.conftest import dev_release_committed

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def _imported_dev(django_db_setup, django_db_blocker) -> Iterator[str]:
    with dev_release_committed(django_db_blocker, "dev") as project:
        yield project


@pytest.fixture
def qasem(_imported_dev, db) -> str:
    return _imported_dev


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _export(*args: str) -> str:
    err = StringIO()
    call_command("export", *args, stdout=StringIO(), stderr=err)
    return err.getvalue()


def _load(files: dict[str, str]):
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from datasets import load_dataset

    return load_dataset("json", data_files=files)


def test_csv_cells_keep_nested_values_as_json() -> None:
    text = csv_text([{"a": 1, "votes": ["x", "y"], "ok": True}, {"a": None, "extra": {"k": "v, w"}}])
    rows = list(csv.DictReader(StringIO(text)))
    assert list(rows[0]) == ["a", "votes", "ok", "extra"]
    assert json.loads(rows[0]["votes"]) == ["x", "y"] and rows[0]["ok"] == "true" and rows[0]["extra"] == ""
    assert rows[1]["a"] == "" and json.loads(rows[1]["extra"]) == {"k": "v, w"}


@pytest.mark.shared_data
def test_csv_beside_every_jsonl_has_the_same_rows(qasem, tmp_path) -> None:
    for fmt in ("qa-jsonl", "qasem-release"):
        out = tmp_path / f"{fmt}.jsonl"
        assert f"(and {tmp_path / f'{fmt}.csv'})" in _export("--project", qasem, "--format", fmt, "-o", str(out), "--csv")
        records = _jsonl(out)
        table = pd.read_csv(tmp_path / f"{fmt}.csv", keep_default_na=False, dtype=str)
        assert len(table) == len(records) and list(table.columns) == list(records[0])
        for record, (_, row) in zip(records[:50], table.head(50).iterrows(), strict=True):
            for key, value in record.items():
                cell = row[key]
                assert (json.loads(cell) if isinstance(value, list | dict) else cell) == (
                    value if isinstance(value, list | dict) else "" if value is None else str(value)), key
    with pytest.raises(CommandError, match="give -o a file"):
        _export("--project", qasem, "--format", "qa-jsonl", "-o", "-", "--csv")


@pytest.mark.shared_data
def test_hf_dataset_loads_with_datasets_and_its_card_has_labels_splits_and_agreement(qasem, tmp_path) -> None:
    flat = tmp_path / "qa.jsonl"
    _export("--project", qasem, "--format", "qa-jsonl", "-o", str(flat))
    expected = _jsonl(flat)
    out = tmp_path / "dataset"
    _export("--project", qasem, "--format", "hf-dataset", "-o", str(out), "--csv")
    splits = sorted({r["split"] for r in expected})
    assert splits == ["dev", "test"]
    loaded = _load({s: str(out / "qa" / f"{s}.jsonl") for s in splits})
    for split in splits:
        rows = [r for r in expected if r["split"] == split]
        assert loaded[split].num_rows == len(rows)
        assert loaded[split]["label"] == [r["label"] for r in rows]
        assert loaded[split]["votes"] == [r["votes"] for r in rows]
        assert len(pd.read_csv(out / "qa" / f"{split}.csv")) == len(rows)

    readme = (out / "README.md").read_text(encoding="utf-8")
    front = yaml.safe_load(readme.split("---")[1])
    assert front["configs"][0]["config_name"] == "qa"
    assert {f["split"]: f["path"] for f in front["configs"][0]["data_files"]} == {s: f"qa/{s}.jsonl" for s in splits}
    assert "| `not_supported` |" in readme and "| `supported` |" in readme
    for split in splits:
        assert f"| {split} | {loaded[split].num_rows} |" in readme
    report = StringIO()
    call_command("report", "--project", qasem, "--by", "split", "--json", stdout=report)
    for row in json.loads(report.getvalue())["agreement"]:
        group = "all" if row["group"] is None else f"split={row['group']}"
        assert f"| {row['level']} | {group} | {row['n_items']} | {row['n_labels']} | {row['fleiss_kappa']:.3f} |" in readme

    again = _export("--project", qasem, "--format", "hf-dataset", "-o", str(out))  # our own folder: replaced
    assert "qa: dev" in again and not (out / "qa" / "dev.csv").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(CommandError, match="not empty"):
        _export("--project", qasem, "--format", "hf-dataset", "-o", str(foreign))
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]


@pytest.mark.shared_data
def test_export_with_dawid_skene_writes_the_model_labels(qasem, tmp_path) -> None:
    majority_file, ds_file = tmp_path / "m.jsonl", tmp_path / "ds.jsonl"
    _export("--project", qasem, "--format", "qa-jsonl", "-o", str(majority_file))
    _export("--project", qasem, "--format", "qa-jsonl", "-o", str(ds_file), "--aggregation", "dawid_skene")
    majority, ds = _jsonl(majority_file), _jsonl(ds_file)
    qa_ids = list(QA.objects.filter(response__project__name=qasem).exclude(validity=QA.Validity.INVALID)
                  .order_by("response_id", "order", "id").values_list("pk", flat=True))
    labels = frames.labels_frame(frames.Project.objects.get(name=qasem))
    model = fit(labels[labels["level"] == "qa"], "dawid_skene", "qa").labels
    assert [r["label"] for r in ds] == [model[pk] for pk in qa_ids]
    differ = [i for i, (a, b) in enumerate(zip(majority, ds, strict=True)) if a["label"] != b["label"]]
    base = fit(labels[labels["level"] == "qa"], "majority", "qa").labels
    assert len(differ) == int((model != base).sum())
    assert all(majority[i]["votes"] == ds[i]["votes"] for i in differ)  # same votes, another aggregation
    with pytest.raises(CommandError):
        _export("--project", qasem, "--format", "qa-jsonl", "-o", str(ds_file), "--aggregation", "median")


def test_campaign_dataset_splits_by_its_split_column(tmp_path, django_user_model) -> None:
    django_user_model.objects.create_user(username="ada", is_staff=True)
    rows = [{"item_id": f"i{i}", "worker_id": f"w{k}", "label": str((i + k) % 3 + 1), "split": "train" if i < 6
             else "validation", "system": "A" if i % 2 else "B"} for i in range(9) for k in range(i % 3 + 1)]
    call_command("import_labels", str(write_csv(tmp_path / "likert.csv", rows)), "--project", "likert",
                 stdout=StringIO())
    out = tmp_path / "ds"
    _export("--project", "likert", "--format", "hf-dataset", "-o", str(out), "--csv")
    loaded = _load({"train": str(out / "label" / "train.jsonl"), "validation": str(out / "label" / "validation.jsonl")})
    assert (loaded["train"].num_rows, loaded["validation"].num_rows) == (6, 3)
    first = loaded["train"][0]
    assert first["item_id"] == "i0" and first["votes"] == ["1"] and first["workers"] == ["w0"]
    assert first["system"] == "B" and first["n_labels"] == 1
    assert "| label | split=train |" in (out / "README.md").read_text(encoding="utf-8")
    lines = StringIO()
    call_command("export", "--project", "likert", "--format", "campaign-items", "-o", "-", stdout=lines)
    assert len(lines.getvalue().splitlines()) == 9
