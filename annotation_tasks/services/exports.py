"""Export services: stream a project's data in one of the published formats to a file or a text stream, with a
CSV beside it, or lay it out as a Hugging Face dataset folder.

Lines come from the exporters' generators and are written one by one, so memory does not grow with the
project. A file is written to a temporary name beside the target and renamed at the end: a failed export
never leaves a half-written file where a good one is expected. `aggregation` picks the model whose label an
export writes (majority by default; dawid_skene, glad, mace from analysis.crowd_models, fitted on the whole
project's labels before the first line).
"""
from __future__ import annotations

import itertools
import json
import os
import tempfile
from array import array
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd
from django.db.models import QuerySet

from annotation_tasks.analysis.agreement import agreement_table
from annotation_tasks.analysis.campaigns import campaign_agreement_table
from annotation_tasks.analysis.crowd_models import MODELS, aggregated_labels
from annotation_tasks.analysis.splits import split_of
from annotation_tasks.analysis.uncertainty import MODELS as UNCERTAINTY_MODELS
from annotation_tasks.analysis.uncertainty import estimate as estimate_uncertainty
from annotation_tasks.exporters import csv_writer, factscore, hf_dataset, labels_jsonl, qa_jsonl, qasem_release
from annotation_tasks.exporters.base import with_aggregation
from annotation_tasks.exporters.certainty import ModelledLabels
from annotation_tasks.models import QA, AnswerSpan, Assignment, AtomicFact, Project, Response
from annotation_tasks.protocols import label_level
from annotation_tasks.services import campaigns, frames, reports


def _campaign_lines(project: Project, *, aggregation: str = "majority") -> Iterator[str]:
    if campaigns.campaign_of(project) is None:
        raise ExportError(f"project {project.name!r} is not a campaign project (campaign-items is for import_labels)")
    return (json.dumps(r, ensure_ascii=False) for r in campaigns.item_records(project, aggregation))


FORMATS: dict[str, Callable[..., Iterator[str]]] = {
    "qasem-release": qasem_release.export_lines,
    "factscore": factscore.export_lines,
    "qa-jsonl": qa_jsonl.export_lines,
    "campaign-items": _campaign_lines,
    "labels-jsonl": labels_jsonl.export_lines,
}
DATASET_FORMATS = ("hf-dataset",)  # a folder, not a stream of lines
AGGREGATIONS = MODELS


class ExportError(ValueError):
    """An export that cannot run (unknown project, format or aggregation; a target that is not free)."""


def _project(project_name: str) -> Project:
    try:
        return Project.objects.get(name=project_name)
    except Project.DoesNotExist as exc:
        raise ExportError(f"no project named {project_name!r}") from exc


def _aggregated(project: Project, aggregation: str) -> dict[tuple[str, int], Any] | None:
    """{(level, item id): label} of the chosen model over the project's counted labels; None for the majority."""
    if aggregation not in AGGREGATIONS:
        raise ExportError(f"unknown aggregation {aggregation!r} (expected one of {', '.join(AGGREGATIONS)})")
    if aggregation == "majority":
        return None
    labels = frames.labels_frame(project)[["level", "item_id", "worker_id", "label"]]
    if aggregation in UNCERTAINTY_MODELS:  # the model's labels with its posteriors (exporters.certainty)
        return ModelledLabels(estimate_uncertainty(labels, aggregation))
    return {(str(level), int(item)): label for (level, item), label in aggregated_labels(labels, aggregation).items()}


def export_lines(project_name: str, fmt: str, *, aggregation: str = "majority", **options) -> Iterator[str]:
    """The lines (without newlines) of a project in a format; raises ExportError before yielding anything."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    project = _project(project_name)
    if fmt == "campaign-items":
        if aggregation not in AGGREGATIONS:
            raise ExportError(f"unknown aggregation {aggregation!r} (expected one of {', '.join(AGGREGATIONS)})")
        return _campaign_lines(project, aggregation=aggregation)
    table = _aggregated(project, aggregation)
    lines = FORMATS[fmt](project, **options)
    return lines if table is None else with_aggregation(lines, table)


RECORD_FORMATS: dict[str, Callable[..., Iterator[dict[str, Any]]]] = {"qa-jsonl": qa_jsonl.export_records}


def export_records(project_name: str, fmt: str, *, aggregation: str = "majority", **options) -> Iterator[dict[str, Any]]:
    """The records of export_lines (what json.loads reads back from each line), without the JSON text in between
    where the exporter has records (RECORD_FORMATS): the CSV and the dataset write them straight."""
    if fmt not in RECORD_FORMATS:
        return csv_writer.records_of(export_lines(project_name, fmt, aggregation=aggregation, **options))
    project = _project(project_name)
    table = _aggregated(project, aggregation)
    records = RECORD_FORMATS[fmt](project, **options)
    return records if table is None else with_aggregation(records, table)


def write_lines(lines: Iterator[str], out: TextIO) -> int:
    """Write each line and a newline; returns the number of lines."""
    n = 0
    for line in lines:
        out.write(line)
        out.write("\n")
        n += 1
    return n


def _atomic_write(path: Path, write: Callable[[TextIO], int], newline: str | None = "\n") -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as handle:
            n = write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return n


def csv_path_for(path: str | Path) -> Path:
    """Where the CSV of a JSONL export goes: the same name with .csv (x.jsonl -> x.csv, x -> x.csv)."""
    path = Path(path)
    return path.with_suffix(".csv") if path.suffix.lower() in (".jsonl", ".json", ".ndjson") else Path(f"{path}.csv")


def export_to_path(project_name: str, fmt: str, path: str | Path, *, csv: bool = False, **options) -> int:
    """Export into a file atomically (temp file + rename), and its CSV beside it with `csv`; returns the lines."""
    lines = export_lines(project_name, fmt, **options)
    path = Path(path)
    n = _atomic_write(path, lambda handle: write_lines(lines, handle))
    if csv:
        _atomic_write(csv_path_for(path), lambda handle: csv_writer.csv_from_jsonl(path, handle), newline="")
    return n


def _records(project_name: str, fmt: str, **options) -> Iterator[dict[str, Any]]:
    return export_records(project_name, fmt, **options)


def export_dataset(project_name: str, out_dir: str | Path, *, aggregation: str = "majority", csv: bool = False,
                   with_platform_ids: bool = False, on_rows: Callable[[int], None] | None = None
                   ) -> dict[str, dict[str, int]]:
    """A Hugging Face datasets folder of the project: per QA (qa-jsonl records, split by source), per response
    (FActScore schema, split by topic) or, for a campaign, per item and level (split by a `split` grouping when
    it has one); a README card with label definitions, splits and agreement. Returns {config: {split: rows}}.
    `on_rows(n)` hears every ROWS_PER_PROGRESS rows written (an export Job's progress)."""
    project = _project(project_name)
    if aggregation not in AGGREGATIONS:
        raise ExportError(f"unknown aggregation {aggregation!r} (expected one of {', '.join(AGGREGATIONS)})")
    campaign = campaigns.campaign_of(project)
    configs: list[hf_dataset.Config] = []
    if campaign is not None:
        by = "split" if "split" in campaign.group_columns else None
        frame = campaigns.labels_frame(project, campaign)
        for level in sorted(frame["level"].unique()):
            observed = sorted(frame.loc[frame["level"] == level, "label"].unique())
            known = hf_dataset.LABEL_DEFINITIONS.get(level, {})
            configs.append(hf_dataset.Config(
                name=hf_dataset.split_name(level), records=campaigns.item_records(project, aggregation, level),
                split_of=lambda r: r.get("split") if "split" in r else r.get("group.split"),
                row="item of the campaign (its votes, workers and groupings)", label_field="label",
                labels={v: known.get(v, "as labelled in the campaign") for v in observed}))
    else:
        by = "split"
        options: dict[str, Any] = {"aggregation": aggregation}
        configs += _item_configs(project, with_platform_ids, options)
    if not configs:
        raise ExportError(f"project {project_name!r} has nothing to export as a dataset (no QAs, facts or labels)")
    agreement = card_agreement(project, by=by, campaign_frame=frame if campaign is not None else None)
    if on_rows is not None:
        written = itertools.count(1)
        for config in configs:
            config.records = _reporting(config.records, written, on_rows)
    try:
        return hf_dataset.write(Path(out_dir), project.name, configs, agreement=agreement, aggregation=aggregation,
                                description=project.description, with_csv=csv)
    except hf_dataset.DatasetExportError as exc:
        raise ExportError(str(exc)) from exc


ROWS_PER_PROGRESS = 2_000


def _reporting(records: Iterable[dict[str, Any]], written: Iterator[int], on_rows: Callable[[int], None]
               ) -> Iterator[dict[str, Any]]:
    for record in records:
        n = next(written)
        if n % ROWS_PER_PROGRESS == 0:
            on_rows(n)
        yield record


ROWS_PER_READ = 20_000  # label rows fetched per round trip while counting the card's agreement


def _int_pairs(queryset: QuerySet) -> np.ndarray:
    """(n, 2) int64 of a two-integer-column values_list, streamed (no Python tuple kept per row)."""
    flat = np.fromiter(itertools.chain.from_iterable(queryset.iterator(chunk_size=ROWS_PER_READ)), dtype=np.int64)
    return flat.reshape(-1, 2)


class _Lookup:
    """values by unique integer keys, for whole arrays of keys at once (np.searchsorted on the sorted keys)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        order = np.argsort(keys, kind="stable")
        self.keys, self.values = keys[order], values[order]

    def get(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(values of the `wanted` keys that are found, which of `wanted` were found)."""
        if not len(self.keys):
            return self.values[:0], np.zeros(len(wanted), dtype=bool)
        pos = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        found = self.keys[pos] == wanted
        return self.values[pos[found]], found


def _level_votes_frame(project: Project, level: str, workers: _Lookup, splits: _Lookup, split_names: list[str]
                       ) -> pd.DataFrame | None:
    """One level's counted votes as a small frame (level, item_id, worker, label, split): what frames.labels_frame
    holds for the agreement, without the per-label text columns (source, system, dataset) a million labels would
    carry. Label rows are read ROWS_PER_READ at a time and joined to their item's split and their worker as numpy
    arrays a chunk at once, so the frame's columns (12 bytes a vote) are all that grows; `item_id` is the item's
    rank and `worker_id` a code per worker (the agreement counts items and workers, never names them)."""
    spec = label_level(level)
    item_pairs = _int_pairs(spec.items(project).order_by().values_list("id", "response_id"))
    ranks = np.argsort(np.argsort(item_pairs[:, 0], kind="stable"), kind="stable").astype(np.int32)
    items = _Lookup(item_pairs[:, 0], np.stack([item_pairs[:, 1], ranks], axis=1))  # (response, item rank)
    del item_pairs, ranks
    out_items, out_workers, out_labels, out_splits = array("i"), array("i"), array("h"), array("b")
    codes: dict[Any, int] = {}
    rows = spec.counted_labels(project).order_by().values_list(spec.item_field, "assignment_id", spec.value_field)
    chunk: list[tuple[int, int, int]] = []

    def flush() -> None:
        got = np.array(chunk, dtype=np.int64).reshape(-1, 3)
        found_items, found = items.get(got[:, 0])  # inner join: items the level leaves out go
        got, response = got[found], found_items[:, 0]
        got[:, 0] = found_items[:, 1]  # the item's rank among the level's ids: same order, 4 bytes a vote
        worker, has_worker = workers.get(got[:, 1])
        got, response = got[has_worker], response[has_worker]
        split = np.full(len(got), -1, dtype=np.int8)  # a response without a split: the report's NaN group
        code, has_split = splits.get(response)
        split[has_split] = code
        out_items.frombytes(got[:, 0].astype(np.int32).tobytes())
        out_workers.frombytes(worker.astype(np.int32).tobytes())
        out_labels.frombytes(got[:, 2].astype(np.int16).tobytes())
        out_splits.frombytes(split.tobytes())
        chunk.clear()

    for item, assignment, value in rows.iterator(chunk_size=ROWS_PER_READ):
        label = spec.label_of(value)
        if label is not None:
            chunk.append((item, assignment, codes.setdefault(label, len(codes))))
            if len(chunk) >= ROWS_PER_READ:
                flush()
    if chunk:
        flush()
    if not out_items:
        return None
    n = len(out_items)
    return pd.DataFrame({
        "level": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=[level]),
        "item_id": np.frombuffer(out_items, dtype=np.int32),
        "worker_id": np.frombuffer(out_workers, dtype=np.int32),
        "label": pd.Categorical.from_codes(np.frombuffer(out_labels, dtype=np.int16), categories=list(codes)),
        "split": pd.Categorical.from_codes(np.frombuffer(out_splits, dtype=np.int8), categories=split_names),
    })


def _response_splits(project: Project) -> tuple[np.ndarray, list[str]]:
    """((response id, split code) rows, split names): frames.responses_frame's `split` (the source's raw release id
    when the importer kept one, else its external id, through split_of), read as a stream of three columns."""
    names: dict[str, int] = {}
    pairs = array("q")
    rows = Response.objects.filter(project=project).order_by().values_list(
        "id", "source__external_id", "source__metadata__source_id")
    for response_id, source_id, raw_source_id in rows.iterator(chunk_size=ROWS_PER_READ):
        split = split_of(raw_source_id if raw_source_id is not None else source_id)
        if isinstance(split, str):
            pairs.extend((response_id, names.setdefault(split, len(names))))
    splits = sorted(names)
    recode = np.array([splits.index(n) for n in names] or [0], dtype=np.int64)  # codes in sorted-name order
    found = np.frombuffer(pairs, dtype=np.int64).reshape(-1, 2).copy()
    found[:, 1] = recode[found[:, 1]]
    return found, splits


def card_agreement(project: Project, *, by: str | None, campaign_frame: pd.DataFrame | None = None
                   ) -> list[dict[str, Any]]:
    """The dataset card's agreement rows: the figures reports.build_report(project, by=by)["agreement"] holds,
    computed from each level's votes alone (one level at a time, streamed into integer arrays) instead of the
    whole report (worker tables, confusion, consistency, uncertainty), which held ~1 GB for 10^6 labels."""
    if campaign_frame is not None:  # a label campaign: the frame export_dataset already read
        return reports.to_jsonable(campaign_agreement_table(campaign_frame, by=by))
    if by not in (None, "split"):
        raise ExportError(f"the card's agreement groups by split or nothing, not {by!r}")
    split_codes, split_names = _response_splits(project)
    splits = _Lookup(split_codes[:, 0], split_codes[:, 1].astype(np.int8))
    assignments = _int_pairs(Assignment.objects.filter(unit__project=project).order_by().values_list("id", "worker_id"))
    worker_codes = np.unique(assignments[:, 1], return_inverse=True)[1].astype(np.int32)
    workers = _Lookup(assignments[:, 0], worker_codes)
    del assignments, worker_codes
    rows: list[dict[str, Any]] = []
    for level in sorted(frames.LEVELS):
        frame = _level_votes_frame(project, level, workers, splits, split_names)
        if frame is not None:
            rows += agreement_table(frame if by else frame.drop(columns="split"), by=by)
    return reports.to_jsonable(rows)


def _no_label(record: dict[str, Any]) -> bool:
    return record.get("label") is None


def _no_fact_label(record: dict[str, Any]) -> bool:
    """A FActScore row none of whose human facts carries a label (or that has none)."""
    return not any(f.get("label") is not None for s in record.get("annotations") or []
                   for f in s.get("human-atomic-facts") or [])


def _item_configs(project: Project, with_platform_ids: bool, options: dict[str, Any]) -> list[hf_dataset.Config]:
    """One config per label level the project holds items of: qa, span (QASem) and factscore (the fact level)."""
    configs = []
    if QA.objects.filter(response__project=project).exists():
        configs.append(hf_dataset.Config(
            name="qa", records=_records(project.name, "qa-jsonl", with_platform_ids=with_platform_ids, **options),
            split_of=lambda r: r["split"], row="question-answer pair of a response (QASem)", label_field="label",
            labels=hf_dataset.LABEL_DEFINITIONS["qa"], unlabelled_when=_no_label, unlabelled_means=qa_jsonl.UNLABELLED))
    if AnswerSpan.objects.filter(response__project=project).exists():
        spans = qa_jsonl.span_records(project, with_platform_ids=with_platform_ids)
        table = _aggregated(project, options.get("aggregation", "majority"))
        records = spans if table is None else with_aggregation(spans, table)
        configs.append(hf_dataset.Config(
            name="span", records=records, split_of=lambda r: r["split"],
            row="answer span of a response (QASem span coverage)", label_field="label",
            labels=hf_dataset.LABEL_DEFINITIONS["span"], unlabelled_when=_no_label,
            unlabelled_means=qa_jsonl.UNLABELLED))
    if AtomicFact.objects.filter(response__project=project).exists():
        configs.append(hf_dataset.Config(
            name="factscore", records=_records(project.name, "factscore", **options),
            split_of=lambda r: split_of(r.get("topic")), row="response in the FActScore labeled schema",
            label_field="annotations[].human-atomic-facts[].label", labels=hf_dataset.LABEL_DEFINITIONS["fact"],
            unlabelled_when=_no_fact_label,
            unlabelled_means="no human fact with a label (`label` null on every fact: nobody's counted vote, no "
            "imported expert label and no adjudication)"))
    return configs


def unavailable_formats(project: Project) -> dict[str, str]:
    """{format: why it cannot export this project}: the formats the export endpoint refuses here (a line format
    with no lines streams an empty file). The dashboard shows the reason instead of buttons that answer 400
    (campaign-items on a project that is not a label campaign)."""
    campaign = campaigns.campaign_of(project) is not None
    out: dict[str, str] = {}
    if not campaign:
        out["campaign-items"] = "only for a label campaign (a project made by import_labels)"
        if not (QA.objects.filter(response__project=project).exists()
                or AtomicFact.objects.filter(response__project=project).exists()):
            out["hf-dataset"] = "nothing to export as a dataset yet (no QAs, facts or campaign labels)"
    return out


def export_download(project_name: str, fmt: str, *, as_csv: bool = False, **options) -> tuple[TextIO | Any, str]:
    """An export as one downloadable file, opened for reading: (binary file, file name suffix).

    Line formats stream without this (export_lines); the CSV of a JSONL export needs two passes over the records
    and a dataset is a folder, so both are written into a private temporary folder first (a zip for the
    dataset). The folder is removed before returning: the open handle keeps the file readable until it is
    closed, so nothing is left on the server's disk whatever happens to the download.
    """
    import shutil
    import zipfile

    workdir = Path(tempfile.mkdtemp(prefix="factcrowd-export-"))
    try:
        if fmt in DATASET_FORMATS:
            folder = workdir / "dataset"
            export_dataset(project_name, folder, csv=as_csv, **options)
            target, suffix = workdir / "dataset.zip", f"{fmt}.zip"
            with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(folder.rglob("*")):
                    if path.is_file():
                        archive.write(path, path.relative_to(folder).as_posix())
        else:
            jsonl = workdir / "export.jsonl"
            export_to_path(project_name, fmt, jsonl, csv=as_csv, **options)
            target, suffix = (csv_path_for(jsonl), f"{fmt}.csv") if as_csv else (jsonl, f"{fmt}.jsonl")
        handle = target.open("rb")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return handle, suffix
