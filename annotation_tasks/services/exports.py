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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pandas as pd
from django.db import connections
from django.db.models import Count, Max, Min, Q, QuerySet

from annotation_tasks.analysis.aggregation import categories_for, majority_from_counts
from annotation_tasks.analysis.agreement import fleiss_kappa, krippendorff_alpha, percent_unanimous
from annotation_tasks.analysis.campaigns import campaign_agreement_table
from annotation_tasks.analysis.crowd_models import MODELS, aggregated_labels
from annotation_tasks.analysis.splits import split_of
from annotation_tasks.exporters import csv_writer, factscore, hf_dataset, labels_jsonl, qa_jsonl, qasem_release
from annotation_tasks.exporters.base import with_aggregation
from annotation_tasks.exporters.certainty import ModelledLabels
from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Project, Response
from annotation_tasks.protocols import label_level
from annotation_tasks.services import campaigns, frames
from annotation_tasks.services.derived import release_memory


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
    from annotation_tasks.analysis.uncertainty import MODELS as UNCERTAINTY_MODELS
    from annotation_tasks.analysis.uncertainty import estimate as estimate_uncertainty

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


ROWS_PER_READ = 20_000  # rows fetched per round trip while counting the card's agreement
PAIRS_PER_READ = 500  # (response, worker) pairs per query when reading the votes of duplicated ones


def _fetched(queryset: QuerySet) -> Iterator[tuple]:
    """The rows of a values_list as the database gives them, ROWS_PER_READ at a time. Not Django's .iterator():
    its PostgreSQL server-side cursor rules out a parallel plan (these GROUP BYs over every vote of a project ran at
    a third of the speed); nor a plain fetch, which holds the whole result in libpq (~80 MB for 480k rows): on
    PostgreSQL psycopg's stream() (libpq's chunked rows mode), elsewhere fetchmany."""
    sql, params = queryset.query.sql_with_params()
    connection = connections[queryset.db]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            yield from cursor.cursor.stream(sql, params, size=ROWS_PER_READ)
            return
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(ROWS_PER_READ):
            yield from rows


def _int_chunks(queryset: QuerySet, width: int) -> Iterator[np.ndarray]:
    """(n, width) int64 arrays of an all-integer values_list, ROWS_PER_READ rows each (no Python tuple kept)."""
    rows = _fetched(queryset)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(rows, ROWS_PER_READ)), dtype=np.int64)
        if not len(flat):
            return
        yield flat.reshape(-1, width)


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


@dataclass
class _LevelCounts:
    """One level's counted votes as counts: counts[i, c] votes of label labels[c] on item item_ids[i] (ids sorted,
    as aggregation.item_counts orders them), the split code of each item (-1: none), and the distinct voters of
    each split as (split code + 1) << 40 | worker id."""

    labels: list[Any]
    item_ids: np.ndarray
    counts: np.ndarray
    item_splits: np.ndarray
    voters: np.ndarray


WORKER_BITS = 40  # voters' keys: the split code above a worker id


def _level_counts(project: Project, level: str, splits: _Lookup) -> _LevelCounts | None:
    """The level's counted labels counted by PostgreSQL (or SQLite), not read a vote at a time: one GROUP BY item
    (a yes count beside the total for a two-label level; else by item and stored value) for the count matrix, and
    one GROUP BY (response, worker) for the voters per split, so Python sees a row per item and per voter of a
    response instead of a row per vote (971k labels: 324k + 341k rows of integers, read 20,000 at a time).

    As frames.labels_frame, only the level's own items count (spec.items) and a worker counts once per item, by
    their earliest assignment's vote (a test-retest repeat never outranks it): only a (response, worker) pair with
    two assignments can hold such a repeat (one label per assignment and item), and only those pairs' votes are
    read to take the repeats off."""
    spec = label_level(level)
    item_fk = spec.item_field.removesuffix("_id")
    labels = spec.counted_labels(project).filter(
        **{f"{spec.item_field}__in": spec.items(project).order_by().values("pk")}).order_by()
    if spec.names is None:  # label_of gives the stored value: a null one is no label
        labels = labels.exclude(**{f"{spec.value_field}__isnull": True})
    response_field = f"{item_fk}__response_id"
    if spec.names is not None:  # two labels: per item its votes and those of the first (true) label
        parts = list(_int_chunks(labels.values_list(spec.item_field, response_field).annotate(
            n=Count("pk"), yes=Count("pk", filter=Q(**{spec.value_field: True}))), 4))
        if not parts:
            return None
        got = np.concatenate(parts)
        del parts
        order = np.argsort(got[:, 0], kind="stable")
        got = got[order]
        # columns in the level's category order (the analysis's), so the whole matrix goes to it without a copy
        first = categories_for(level, list(spec.names))[0] == spec.names[0]
        codes: dict[Any, int] = {spec.names[0]: 0 if first else 1, spec.names[1]: 1 if first else 0}
        item_ids, responses = got[:, 0].copy(), got[:, 1].copy()
        yes, no = got[:, 3], got[:, 2] - got[:, 3]
        counts = np.stack([yes, no] if first else [no, yes], axis=1)
        del got, order, yes, no
    else:
        found = _value_counts(labels, spec, response_field)
        if found is None:
            return None
        codes, item_ids, responses, counts = found
    item_splits = _split_codes(splits, responses)
    del responses
    voters = array("q")
    repeated: list[np.ndarray] = []
    pairs = labels.values_list(response_field, "assignment__worker_id").annotate(
        first=Min("assignment_id"), last=Max("assignment_id"))
    for chunk in _int_chunks(pairs, 4):
        voters.frombytes((((_split_codes(splits, chunk[:, 0]) + 1) << WORKER_BITS) | chunk[:, 1]).tobytes())
        repeated.append(chunk[chunk[:, 2] != chunk[:, 3]][:, :2])
    if repeated and sum(len(r) for r in repeated):
        _drop_repeats(spec, labels, np.concatenate(repeated), codes, item_ids, counts)
    return _LevelCounts(labels=sorted(codes, key=codes.__getitem__), item_ids=item_ids, counts=counts, item_splits=item_splits,
                        voters=np.unique(np.frombuffer(voters, dtype=np.int64)))


def _value_counts(labels: QuerySet, spec: Any, response_field: str
                  ) -> tuple[dict[Any, int], np.ndarray, np.ndarray, np.ndarray] | None:
    """(label columns, sorted item ids, their responses, counts) of a level whose labels are stored values: one
    GROUP BY (item, value)."""
    codes: dict[Any, int] = {}
    item_col, response_col, code_col, n_col = array("q"), array("q"), array("q"), array("q")
    grouped = labels.values_list(spec.item_field, response_field, spec.value_field).annotate(n=Count("pk"))
    for item, response, value, n in _fetched(grouped):
        item_col.append(item)
        response_col.append(response)
        code_col.append(codes.setdefault(spec.label_of(value), len(codes)))
        n_col.append(n)
    if not item_col:
        return None
    items = np.frombuffer(item_col, dtype=np.int64)
    item_ids, first, row_of = np.unique(items, return_index=True, return_inverse=True)
    flat = np.bincount(row_of * len(codes) + np.frombuffer(code_col, dtype=np.int64),
                       weights=np.frombuffer(n_col, dtype=np.int64), minlength=len(item_ids) * len(codes))
    counts = flat.astype(np.int64).reshape(len(item_ids), len(codes))
    return codes, item_ids, np.frombuffer(response_col, dtype=np.int64)[first].copy(), counts


def _split_codes(splits: _Lookup, responses: np.ndarray) -> np.ndarray:
    """The split code of each response (-1 for a response without one: the report's NaN group)."""
    out = np.full(len(responses), -1, dtype=np.int64)
    code, found = splits.get(responses)
    out[found] = code
    return out


def _drop_repeats(spec: Any, labels: QuerySet, pairs: np.ndarray, codes: dict[Any, int], item_ids: np.ndarray,
                  counts: np.ndarray) -> None:
    """Take off `counts` every vote but the first of a worker on an item (frames._first_votes' rule: the earliest
    assignment, a test-retest repeat after any other vote), reading only the votes of these (response, worker)
    pairs."""
    response_field = f"{spec.item_field.removesuffix('_id')}__response_id"
    for start in range(0, len(pairs), PAIRS_PER_READ):
        wanted = Q()
        for response, worker in pairs[start:start + PAIRS_PER_READ].tolist():
            wanted |= Q(**{response_field: response, "assignment__worker_id": worker})
        votes = sorted(
            (item, worker, (retest is True, assignment), value) for item, worker, assignment, retest, value in
            labels.filter(wanted).values_list(spec.item_field, "assignment__worker_id", "assignment_id",
                                              "assignment__unit__batch__settings__retest", spec.value_field))
        for _key, group in itertools.groupby(votes, key=lambda v: (v[0], v[1])):
            for item, _worker, _rank, value in list(group)[1:]:
                counts[int(np.searchsorted(item_ids, item)), codes[spec.label_of(value)]] -= 1


def _agreement_row(level: str, counts: np.ndarray, labels: list[Any], n_workers: int) -> dict[str, Any]:
    """analysis.agreement.agreement_summary of the votes these counts count (items x labels, rows in item id
    order, no empty row): the same category order (aggregation.categories_for of the labels observed), the same
    coefficient functions on the same matrix."""
    observed = [labels[c] for c in np.flatnonzero(counts.sum(axis=0))]
    categories = categories_for(level, observed)
    column = {label: c for c, label in enumerate(labels)}
    if list(categories) == list(labels):  # already in the category order: no copy of the (items x labels) matrix
        matrix = counts
    else:
        matrix = np.zeros((len(counts), len(categories)), dtype=np.int64)
        for k, category in enumerate(categories):
            if category in column:
                matrix[:, k] = counts[:, column[category]]
    winner, _tie = majority_from_counts(matrix)
    shares = np.bincount(winner, minlength=len(categories)) / len(winner) * 100.0
    n_labels = int(matrix.sum())
    return {
        "n_items": len(matrix),
        "n_labels": n_labels,
        "n_workers": n_workers,
        "labels_per_item": float(n_labels / len(matrix)),
        "fleiss_kappa": fleiss_kappa(matrix),
        "krippendorff_alpha": krippendorff_alpha(matrix),
        "percent_unanimous": percent_unanimous(matrix),
        "majority_share": {c: float(s) for c, s in zip(categories, shares, strict=True)},
    }


def _level_rows(level: str, got: _LevelCounts, by: str | None, split_names: list[str]) -> list[dict[str, Any]]:
    """analysis.agreement.agreement_table's rows of one level: over all items, then per split in sorted order (the
    items without a split last, group None)."""
    n_workers = len(np.unique(got.voters & ((1 << WORKER_BITS) - 1)))
    got.item_ids = got.item_ids[:0]  # not read from here on: its pages go before the coefficients' arrays
    rows = [{"level": level, "by": by, "group": None, **_agreement_row(level, got.counts, got.labels, n_workers)}]
    if by is None:
        return rows
    for code in [*range(len(split_names)), -1]:
        kept = got.item_splits == code
        if kept.any():
            n_workers = int(np.count_nonzero((got.voters >> WORKER_BITS) == code + 1))
            rows.append({"level": level, "by": by, "group": split_names[code] if code >= 0 else None,
                         **_agreement_row(level, got.counts[kept], got.labels, n_workers)})
    return rows


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
    computed from each level's vote counts per item (_level_counts: counted in the database, a row per item) with
    the analysis's own coefficient functions, instead of the whole report (worker tables, confusion, consistency,
    uncertainty: ~1 GB for 10^6 labels) or a frame of every vote. services.reports (and analysis.uncertainty, with
    scipy.stats) is not imported on the way: only a campaign's rows go through reports.to_jsonable."""
    if campaign_frame is not None:  # a label campaign: the frame export_dataset already read
        from annotation_tasks.services import reports

        return reports.to_jsonable(campaign_agreement_table(campaign_frame, by=by))
    if by not in (None, "split"):
        raise ExportError(f"the card's agreement groups by split or nothing, not {by!r}")
    split_codes, split_names = _response_splits(project)
    splits = _Lookup(split_codes[:, 0], split_codes[:, 1])
    del split_codes
    rows: list[dict[str, Any]] = []
    for level in sorted(frames.LEVELS):
        got = _level_counts(project, level, splits)
        if got is not None:
            release_memory()  # the rows read are gone: krippendorff's (items x labels x labels) arrays come next
            rows += _level_rows(level, got, by, split_names)
    return rows  # plain Python values already (what reports.to_jsonable gives the report's rows)


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
