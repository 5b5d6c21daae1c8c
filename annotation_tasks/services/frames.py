"""Querysets → pandas frames for the analysis. The ONLY place that reads labels from the ORM for analysis.

Every frame is built from .values_list(...) (no model instances) and JSON keys are read in SQL
(metadata__dataset), so a project with a million labels loads without materialising a million objects. The big
all-integer frames (label rows, items, QAs, QA-span links, assignments) go further (`_number_records`): the
database packs each column of the SQL Django builds into one value, which numpy decodes (no Python object per row
or value, no Django converter, no pandas type inference, no object column); joins to items, workers and responses
are done in numpy on sorted ids.
Columns are the frame contract the analysis and the exporters rely on:

- responses: response_id, external_id, source_id, system, dataset, abstained, split
- labels, one row per label: level ('span'|'qa'|'fact'), item_id, response_id, source_id, system, dataset,
  split, worker_id, assignment_id, label, derived_from_span. Only assignments that count (Assignment.counted_q) do;
  QAs marked invalid by the expert validation step are left out (they are not part of the judged set).
  level and label are pandas Categoricals (fast counting in analysis.aggregation).
- qas: item_id, response_id, predicate_id, source_id, system, dataset, split (valid/unknown QAs)
- qa_spans: qa_id, span_id (AnswerSpan.qas membership)
- preferences, one row per pairwise judgment: unit_id, aspect, worker_id, assignment_id, response_a_id,
  response_b_id, system_a, system_b, score (1–5), context_a, context_b, pair (what is compared, sides aside: one
  judgment per worker per pair and aspect across batches)
- facts, one row per (fact, label): response_id, fact_id, kind, sentence_index, sentence_relevant,
  worker_id, assignment_id, label (None for a fact nobody labelled)
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from django.db import connections
from django.db.models import BooleanField, Q

from annotation_tasks.analysis.aggregation import use_label_orders
from annotation_tasks.analysis.splits import split_of
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    FactLabel,
    GoldLabel,
    PairwisePreference,
    Project,
    Response,
)
from annotation_tasks.protocols import LabelLevel, label_level, label_levels, label_order

CHUNK = 20_000
LEVELS = tuple(level.name for level in label_levels())  # each protocol's levels: span, qa (qasem), fact (factscore)
RESPONSE_COLUMNS = ["response_id", "external_id", "source_id", "system", "dataset", "abstained", "split"]
LABEL_COLUMNS = [
    "level", "item_id", "response_id", "source_id", "system", "dataset", "split",
    "worker_id", "assignment_id", "label", "derived_from_span",
]
LABEL_ORDER = label_order()  # each level's labels, error first, as its protocol declares them
use_label_orders(LABEL_ORDER)  # the analysis's vocabularies and tie order (analysis.aggregation keeps none)
ALL_LABELS = list(dict.fromkeys(label for level in LEVELS for label in LABEL_ORDER[level]))  # two levels may share one
LEVEL_DTYPE = pd.CategoricalDtype(list(LEVELS))
GROUP_COLUMNS = ["source_id", "system", "dataset", "split"]  # a response's columns the label and QA frames carry
LABEL_DTYPE = pd.CategoricalDtype(ALL_LABELS)


def _records(queryset, columns: list[str]) -> pd.DataFrame:
    """A frame straight from values_list, streamed in chunks (no queryset cache)."""
    rows = queryset.values_list(*columns).iterator(chunk_size=CHUNK)
    return pd.DataFrame.from_records(rows, columns=columns)


def _number_records(queryset, columns: list[str], *, sort: bool = False) -> pd.DataFrame:
    """A frame of integer and boolean columns (ids, flags; never NULL) from the queryset's own SQL, in one int64 block.

    PostgreSQL streams the rows by COPY ... (FORMAT BINARY), each row the same fixed-width record that numpy reads
    as one structured array (`_copied`); SQLite packs each column into ONE value, the decimal texts joined with
    commas (group_concat, read with np.fromstring: `_packed`). No Python object per value, no Django converter,
    no pandas type inference: 1M label rows of 3 columns cost about 0.85 s on PostgreSQL, where values_list()
    .iterator() and DataFrame.from_records took 5-6 s. Other databases take the cursor rows. Booleans come back
    as 0/1 (callers use astype(bool)). SQLite's aggregate holds a column in one text: it stops at 1 GB (about
    100 million rows).

    The row order is not relied on (an aggregate's is not defined), so the queryset's ORDER BY is dropped; `sort` orders the frame
    by its first column (an id) in numpy instead, which is cheaper than SQLite's temporary B-tree for ORDER BY.
    """
    query = queryset.order_by().values_list(*columns).query
    connection = connections[queryset.db]
    compiler = query.get_compiler(connection=connection)
    sql, params = compiler.as_sql()
    booleans = [isinstance(getattr(expr, "output_field", None), BooleanField) for expr, _, _ in compiler.select]
    if connection.vendor == "postgresql" and len(booleans) == len(columns):
        data = _copied(connection, sql, params, booleans)
    elif connection.vendor == "sqlite" and len(booleans) == len(columns):
        data = _packed(connection, sql, params, booleans)
    else:
        data = _from_rows(connection, sql, params, len(columns))
    if sort and len(data) > 1:
        first = data[:, 0]
        if not (first[1:] >= first[:-1]).all():
            data = data.T[:, np.argsort(first, kind="stable")].T  # keeps the column-major layout
    return pd.DataFrame(data, columns=columns, copy=False)  # one int64 block, not copied again


def _packed(connection, sql: str, params, booleans: list[bool]) -> np.ndarray:
    """SQLite's side of _number_records: `sql` wrapped in one group_concat per column, decoded into an
    (n_rows, n_columns) int64 array. The boolean columns travel as ONE column of bit flags (bit k: the k-th
    boolean), so a label's supported/derived pair costs one value. Every column comes from the same pass over the
    same rows, so row i of every column is the same row; a NULL (which the aggregates skip) shows up as columns
    of different lengths."""
    names = [f"c{i}" for i in range(len(booleans))]
    numbers = [n for n, b in zip(names, booleans, strict=True) if not b]
    flags = [n for n, b in zip(names, booleans, strict=True) if b]
    packed = numbers + ([" + ".join(f"{n} * {1 << k}" for k, n in enumerate(flags))] if flags else [])
    wrapped = f"WITH q ({', '.join(names)}) AS ({sql}) SELECT {', '.join(f'group_concat({c})' for c in packed)} FROM q"
    with connection.cursor() as cursor:
        cursor.execute(wrapped, params)
        values = list(cursor.fetchone())
    arrays = [np.fromstring(v, dtype=np.int64, sep=",") if v else np.empty(0, np.int64) for v in values]
    del values
    if len({len(a) for a in arrays}) > 1:
        raise ValueError(f"a number column read NULL values: {[len(a) for a in arrays]} values per column")
    n_rows = len(arrays[0]) if arrays else 0
    columns = np.empty((len(names), n_rows), dtype=np.int64)  # one contiguous row per column
    number_index = iter(range(len(numbers)))
    for i, is_flag in enumerate(booleans):
        if is_flag:
            np.bitwise_and(arrays[-1] >> flags.index(names[i]), 1, out=columns[i])
        else:
            columns[i] = arrays[next(number_index)]
    return columns.T  # (n_rows, n_columns), column-major: pandas keeps it as its block without a copy


def _copied(connection, sql: str, params, booleans: list[bool]) -> np.ndarray:
    """PostgreSQL's side of _number_records: `sql` streamed by COPY ... TO STDOUT (FORMAT BINARY), every column
    cast to int8, so each row is the same 2 + 12 * n_columns bytes (a field count, then a length and 8 big-endian
    bytes per field), which numpy reads as a structured array, COPY_CHUNK bytes at a time. No result set is held
    whole: libpq's input buffer kept the size of the largest one (a string_agg of every column, 23 MB at 10^6
    labels) for the connection's life, and the raw rows beside the decoded columns were another 30 MB of a
    report build's peak. Booleans come back as 0 / 1."""
    n_columns = len(booleans)
    names = [f"c{i}" for i in range(n_columns)]
    casts = ", ".join(f"{n}{'::int' if b else ''}::int8" for n, b in zip(names, booleans, strict=True))
    wrapped = f"COPY (SELECT {casts} FROM ({sql}) AS q ({', '.join(names)})) TO STDOUT (FORMAT BINARY)"
    reader = _CopyRows(n_columns)
    with connection.cursor() as cursor, connection.wrap_database_errors:  # Django's errors, as for any query
        with getattr(cursor, "cursor", cursor).copy(wrapped, params) as copy:
            for block in copy:
                reader.feed(block)
    return reader.columns()


COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
COPY_CHUNK = 1 << 22


class _CopyRows:
    """Decodes a binary COPY stream of n int8 columns (no NULL) into int64 arrays, chunk by chunk."""

    def __init__(self, n_columns: int):
        self.n_columns = n_columns
        self.row = np.dtype([("n", ">i2")] + [f for i in range(n_columns) for f in ((f"l{i}", ">i4"), (f"c{i}", ">i8"))])
        self.buffer = bytearray()
        self.started = False
        self.parts: list[list[np.ndarray]] = [[] for _ in range(n_columns)]

    def feed(self, block: bytes | memoryview) -> None:
        self.buffer += block
        if len(self.buffer) >= COPY_CHUNK:
            self._decode()

    def _decode(self) -> None:
        if not self.started:
            if len(self.buffer) < 19:
                return
            if not self.buffer.startswith(COPY_SIGNATURE):
                raise ValueError("COPY BINARY: the stream does not start with PostgreSQL's signature")
            header = 19 + int.from_bytes(self.buffer[15:19], "big")  # signature, flags, extension length
            if len(self.buffer) < header:
                return
            del self.buffer[:header]
            self.started = True
        n = len(self.buffer) // self.row.itemsize
        if n == 0:
            return
        rows = np.frombuffer(self.buffer, dtype=self.row, count=n)
        if (rows["n"] != self.n_columns).any() or any((rows[f"l{i}"] != 8).any() for i in range(self.n_columns)):
            raise ValueError("a number column read NULL values (a COPY field of another length)")
        for i, part in enumerate(self.parts):
            part.append(rows[f"c{i}"].astype(np.int64))
        del rows  # releases the buffer for the resize
        del self.buffer[: n * self.row.itemsize]

    def columns(self) -> np.ndarray:
        """The (n_rows, n_columns) int64 array, column-major: pandas keeps it as its block without a copy."""
        self._decode()
        if bytes(self.buffer) != b"\xff\xff":  # what is left must be the trailer (a field count of -1)
            raise ValueError("a number column read NULL values (a COPY row of another size)")
        n_rows = sum(len(p) for p in self.parts[0]) if self.parts else 0
        columns = np.empty((self.n_columns, n_rows), dtype=np.int64)  # pages become resident as they are filled
        for i, part in enumerate(self.parts):
            if part:
                np.concatenate(part, out=columns[i])
            part.clear()  # each column's chunks freed once copied: peak ~ the frame + one column
        return columns.T


def _from_rows(connection, sql: str, params, n_columns: int) -> np.ndarray:
    """The cursor rows of `sql` into one int64 block, one np.fromiter per chunk (databases other than ours)."""
    chunks = []
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while rows := cursor.fetchmany(CHUNK):
            flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=len(rows) * n_columns)
            chunks.append(flat.reshape(len(rows), n_columns))
    return np.concatenate(chunks) if chunks else np.empty((0, n_columns), dtype=np.int64)


def responses_frame(project: Project) -> pd.DataFrame:
    """One row per response. split hashes the source's raw release id when the importer kept one
    (Source.metadata["source_id"]: variants of one release source share a split), else its external id."""
    frame = _records(
        Response.objects.filter(project=project).order_by("id"),
        ["id", "external_id", "source__external_id", "source__metadata__source_id", "system",
         "metadata__dataset", "metadata__abstained"],
    )
    frame.columns = ["response_id", "external_id", "source_id", "raw_source_id", "system", "dataset", "abstained"]
    frame["dataset"] = frame["dataset"].fillna("").astype(str)
    # SQLite's JSON_EXTRACT may hand booleans back as 1 / 0.
    frame["abstained"] = frame["abstained"].map(lambda v: isinstance(v, bool | int) and bool(v))
    split_key = frame["raw_source_id"].where(frame["raw_source_id"].notna(), frame["source_id"])
    frame["split"] = [split_of(k) for k in split_key]
    return frame[RESPONSE_COLUMNS]


def _level_labels(project: Project, level: LabelLevel, items: pd.DataFrame | None = None,
                  workers: pd.DataFrame | None = None) -> pd.DataFrame:
    """Label rows of one level: item_id, response_id, worker_id, assignment_id, label, derived_from_span.

    The level (its label rows, items and label names) comes from its protocol (annotation_tasks.protocols).
    Labels are selected through their assignment's unit (labels collected in this project) and joined to
    their items and their assignments' workers in numpy (`workers`: _assignment_workers, read once for all
    levels): joining the item table in SQL for a million labels costs more than the rest of the report, and a
    worker id per label row is a million more values to read. The inner join with the project's items also drops
    items a protocol leaves out (QAs marked invalid).
    """
    read = _number_records if level.names is not None else _records  # boolean values: every column a number
    frame = read(
        level.counted_labels(project).order_by(),
        [level.item_field, "assignment_id", level.value_field, *level.extra_fields],
    )
    frame.columns = ["item_id", "assignment_id", "value", *level.extra_fields]
    if frame.empty:
        return frame.assign(worker_id=frame["assignment_id"])
    if items is None:
        items = _number_records(level.items(project), ["id", "response_id"], sort=True)
        items.columns = ["item_id", "response_id"]
    frame = _join_items(frame, items)
    frame = _join_workers(frame, workers if workers is not None else _assignment_workers(project))
    if level.names is not None:  # categorical from codes: no string object per label
        true_code, false_code = ALL_LABELS.index(level.names[0]), ALL_LABELS.index(level.names[1])
        codes = np.where(frame["value"].to_numpy().astype(bool), true_code, false_code).astype(np.int8)
        frame["label"] = pd.Categorical.from_codes(codes, dtype=LABEL_DTYPE)
    else:
        frame["label"] = pd.Categorical(frame["value"].astype(object), dtype=LABEL_DTYPE)
    frame["derived_from_span"] = frame["derived_from_span"].astype(bool) if "derived_from_span" in frame else False
    frame["level"] = pd.Categorical.from_codes(np.full(len(frame), LEVELS.index(level.name), dtype=np.int8),
                                               dtype=LEVEL_DTYPE)
    return frame.drop(columns="value")


def _assignment_workers(project: Project) -> pd.DataFrame:
    """assignment_id, worker_id of every assignment of the project's units, sorted by assignment_id. Not filtered
    by status: the label query already chose the counted ones, and a status changed between the two reads must
    not lose a worker."""
    frame = _number_records(Assignment.objects.filter(unit__project=project), ["id", "worker_id"], sort=True)
    frame.columns = ["assignment_id", "worker_id"]
    return frame


def _join_workers(frame: pd.DataFrame, workers: pd.DataFrame) -> pd.DataFrame:
    """frame with worker_id added from its assignment_id (an inner join: a label whose assignment was deleted
    after the labels were read is gone)."""
    return _join_unique(frame, "assignment_id", workers["assignment_id"].to_numpy(), workers["worker_id"].to_numpy(),
                        "worker_id")


def _join_items(frame: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """frame's rows whose item_id is one of `items` (item_id unique), with the item's response_id added."""
    return _join_unique(frame, "item_id", items["item_id"].to_numpy(), items["response_id"].to_numpy(), "response_id")


def _join_unique(frame: pd.DataFrame, on: str, keys: np.ndarray, values: np.ndarray, name: str) -> pd.DataFrame:
    """An inner merge of frame[on] with unique `keys`, adding `values` as column `name`, in the frame's order:
    np.searchsorted on the sorted keys (no hash table of a million keys)."""
    if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
    if len(keys) == 0:
        return frame.iloc[:0].assign(**{name: np.empty(0, dtype=np.int64)})
    wanted = frame[on].to_numpy()
    pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found = keys[pos] == wanted
    if not found.all():  # the frames here carry a RangeIndex: keep one
        frame, pos = frame[found].reset_index(drop=True), pos[found]
    return frame.assign(**{name: values[pos]})


def _join_responses(frame: pd.DataFrame, responses: pd.DataFrame,
                    group_columns: Sequence[str] = GROUP_COLUMNS) -> pd.DataFrame:
    """frame with its responses' grouping columns (source_id, system, dataset, split) added by response_id: a left
    merge on a unique key, as positions into the responses frame and one take per column."""
    positions = pd.Index(responses["response_id"].to_numpy()).get_indexer(frame["response_id"].to_numpy())
    columns = {c: pd.api.extensions.take(responses[c].array, positions, allow_fill=True)
               for c in group_columns}
    return frame.assign(**columns)


def labels_frame(
    project: Project, levels: Iterable[str] = LEVELS, responses: pd.DataFrame | None = None,
    items: Mapping[str, pd.DataFrame] | None = None, group_columns: Sequence[str] = GROUP_COLUMNS,
    with_assignments: bool = True,
) -> pd.DataFrame:
    """The labels frame of a project (see module doc), sorted by level, item_id, worker_id. `items` may give a
    level's items (item_id, response_id: the level's own item set, e.g. qas_frame for "qa") already read;
    `group_columns` the responses' grouping columns it carries (all of GROUP_COLUMNS unless a caller reads fewer:
    each is ~10 MB of text at 10^6 labels); without `with_assignments` the assignment_id column is left out once
    it has chosen each worker's vote (8 MB at 10^6 labels, which the report does not read)."""
    responses = responses if responses is not None else responses_frame(project)
    items = items or {}
    workers = _assignment_workers(project)
    parts = [_level_labels(project, label_level(level), items.get(level), workers) for level in levels]
    parts = [p for p in parts if len(p)]
    if not parts:
        empty = pd.DataFrame({c: pd.Series(dtype=object) for c in LABEL_COLUMNS})
        return empty.astype({"level": pd.CategoricalDtype(list(LEVELS)), "label": pd.CategoricalDtype(ALL_LABELS)})
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    del parts  # the frame's only owner now: _take_columns lets each old column go once it is reordered
    frame["level"] = frame["level"].astype(LEVEL_DTYPE)  # already these categories (concat keeps them)
    frame["label"] = frame["label"].astype(LABEL_DTYPE)
    frame["derived_from_span"] = frame["derived_from_span"].astype(bool)
    # one vote per worker per item, sorted by level, item_id, worker_id while every column is a number or a
    # categorical (cheap to reorder); the join keeps the order
    chosen = _first_votes(frame, ["level", "item_id", "worker_id"], _retest_assignments(project))
    left_out = set(GROUP_COLUMNS) - set(group_columns) | (set() if with_assignments else {"assignment_id"})
    frame = frame.drop(columns=list(left_out & set(frame.columns)))  # the frame before it is let go here
    frame = _take_columns(frame, chosen)
    return _join_responses(frame, responses, group_columns)[[c for c in LABEL_COLUMNS if c not in left_out]]


def _take_columns(frame: pd.DataFrame, positions: np.ndarray) -> pd.DataFrame:
    """frame.take(positions) with a fresh RangeIndex, a column at a time, each old column deleted from `frame` (the
    caller's to give up) once taken: the peak is the frame and one column more, not two frames (~26 MB less at
    10^6 labels)."""
    taken: dict[str, Any] = {}
    for name in list(frame.columns):
        taken[name] = frame[name].array.take(positions)
        del frame[name]
    return pd.DataFrame(taken, copy=False)


def _retest_assignments(project: Project) -> np.ndarray:
    """Ids of the project's assignments in test-retest batches (Batch.settings.retest, asked for on purpose)."""
    return np.fromiter(Assignment.objects.filter(unit__project=project, unit__batch__settings__retest=True)
                       .values_list("id", flat=True), dtype=np.int64)


def _sort_codes(column: pd.Series) -> np.ndarray:
    """A column as numbers that sort like it (categorical codes; text factorized: equal values, equal codes)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy()
    if column.dtype == object:
        return pd.factorize(column, use_na_sentinel=False)[0]
    return column.to_numpy()


def _first_votes(frame: pd.DataFrame, keys: list[str], retests: np.ndarray) -> np.ndarray:
    """Positions of the rows to keep, sorted by `keys`: one counted vote per worker per item (issue 23 item 5).

    Submit keeps a worker's first counted vote on an item and drops a later one cast through another batch
    (services.work); data stored before that fix holds both, and here too the earliest assignment's vote counts
    (as in the exports, exporters.base.counted_only): the first is the one given before the worker could have
    seen the item again, and choosing it keeps old and new data alike. A test-retest repeat (retest batch) never
    outranks the vote it repeats: its worker counts once in frames and agreement (the exports mark it beside)."""
    if frame.empty:
        return np.arange(0)
    rank = frame["assignment_id"].to_numpy(dtype=np.int64)
    if len(retests):
        rank = np.where(np.isin(rank, retests), rank + (1 << 40), rank)
    columns = [_sort_codes(frame[k]) for k in keys]
    order = np.lexsort((rank, *reversed(columns)))
    first = np.ones(len(order), dtype=bool)
    if len(order) > 1:
        same = np.ones(len(order) - 1, dtype=bool)
        for column in columns:
            ordered = column[order]
            same &= ordered[1:] == ordered[:-1]
        first[1:] = ~same
    return order[first]


def qas_frame(project: Project, responses: pd.DataFrame | None = None,
              group_columns: Sequence[str] = GROUP_COLUMNS) -> pd.DataFrame:
    """One row per QA that is not marked invalid, with its response's grouping columns (`group_columns` of them:
    a caller that groups by system alone saves ~11 MB of text per 3 * 10^5 QAs)."""
    responses = responses if responses is not None else responses_frame(project)
    frame = _number_records(
        QA.objects.filter(response__project=project).exclude(validity=QA.Validity.INVALID),
        ["id", "response_id", "predicate_id"], sort=True,
    )
    frame.columns = ["item_id", "response_id", "predicate_id"]
    return _join_responses(frame, responses, group_columns)


def qa_spans_frame(project: Project) -> pd.DataFrame:
    """(qa_id, span_id) pairs of the AnswerSpan.qas membership."""
    through = AnswerSpan.qas.through
    frame = _number_records(through.objects.filter(answerspan__response__project=project).order_by(),
                            ["qa_id", "answerspan_id"])
    frame.columns = ["qa_id", "span_id"]
    return frame


def facts_frame(project: Project) -> pd.DataFrame:
    """One row per (atomic fact, counted label); facts without a label keep one row with label None.

    sentence_relevant comes from Response.sentences[i]["is_relevant"] (True when absent: our own projects
    do not mark sentences irrelevant).
    """
    # a fact a worker wrote counts only with their work: a pending, unverified or rejected assignment's fact would
    # otherwise take the model facts of its sentence out of the score (analysis.factscore.counted_facts)
    written_by_counted = Q(created_by_assignment__isnull=True) | Assignment.data_q("created_by_assignment__")
    facts = _records(
        AtomicFact.objects.filter(written_by_counted, response__project=project).order_by("id"),
        ["id", "response_id", "kind", "sentence_index"],
    )
    facts.columns = ["fact_id", "response_id", "kind", "sentence_index"]
    columns = ["response_id", "fact_id", "kind", "sentence_index", "sentence_relevant", "worker_id", "assignment_id", "label"]
    if facts.empty:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in columns})
    relevance: dict[tuple[int, int], bool] = {}
    with_facts = Response.objects.filter(project=project, atomic_facts__isnull=False).distinct().order_by()
    for response_id, sentences in with_facts.values_list("id", "sentences").iterator(chunk_size=2_000):
        for index, sentence in enumerate(sentences or []):
            if isinstance(sentence, dict) and sentence.get("is_relevant") is False:
                relevance[(response_id, index)] = False
    facts["sentence_relevant"] = [
        relevance.get((r, s), True) for r, s in zip(facts["response_id"], facts["sentence_index"], strict=True)
    ]
    labels = _records(
        FactLabel.objects.filter(
            Assignment.data_q("assignment__"), fact__response__project=project
        ).order_by(),
        ["fact_id", "assignment__worker_id", "assignment_id", "label"],
    )
    labels.columns = ["fact_id", "worker_id", "assignment_id", "label"]
    labels = labels.take(np.sort(_first_votes(labels, ["fact_id", "worker_id"], _retest_assignments(project))))
    frame = facts.merge(labels, on="fact_id", how="left")
    frame["label"] = frame["label"].astype(object).where(frame["label"].notna(), None)
    return frame[columns]


def preferences_frame(project: Project) -> pd.DataFrame:
    """Pairwise judgments of counted assignments, with the systems of both responses."""
    frame = _records(
        PairwisePreference.objects.filter(
            Assignment.data_q("assignment__"), unit__project=project
        ).order_by("id"),
        ["unit_id", "aspect", "assignment__worker_id", "assignment_id", "response_a_id", "response_b_id",
         "response_a__system", "response_b__system", "score", "context_a", "context_b", "unit__source_id"],
    )
    frame.columns = ["unit_id", "aspect", "worker_id", "assignment_id", "response_a_id", "response_b_id",
                     "system_a", "system_b", "score", "context_a", "context_b", "source_id"]
    # one counted judgment per worker per pair (and aspect) across batches: the earliest, as for labels
    frame["pair"] = _pair_keys(frame)
    keep = np.sort(_first_votes(frame, ["worker_id", "aspect", "pair"], _retest_assignments(project)))
    frame = frame.take(keep).drop(columns="source_id").reset_index(drop=True)
    # a pair of retrieved contexts (Ragas' context relevance) is named by its place in the source's passages
    # ("context_v1", as in WikiEval), so the pairwise summary counts it like a pair of systems
    for side in ("a", "b"):
        contexts = frame[f"context_{side}"]
        named = contexts.map(lambda i: None if pd.isna(i) else f"context_v{int(i) + 1}")
        frame[f"system_{side}"] = frame[f"system_{side}"].where(contexts.isna(), named)
    return frame


def _pair_keys(frame: pd.DataFrame) -> list[str]:
    """What a judgment compares, whichever side each was shown on: "responses:<id>-<id>", or
    "contexts:<source id>:<index>-<index>" for two retrieved contexts of a source (lower id or index first)."""
    keys = []
    for ra, rb, ca, cb, source in zip(frame["response_a_id"], frame["response_b_id"], frame["context_a"],
                                      frame["context_b"], frame["source_id"], strict=True):
        if pd.isna(ra) or pd.isna(rb):
            lo, hi = sorted((int(ca), int(cb)))
            keys.append(f"contexts:{int(source)}:{lo}-{hi}")
        else:
            lo, hi = sorted((int(ra), int(rb)))
            keys.append(f"responses:{lo}-{hi}")
    return keys


def worker_labels_frame(project: Project) -> pd.DataFrame:
    """level, item_id, worker_id, label of the labels frame, plus `gold`: the labelled item's gold value, or None.

    What quality control compares a worker's labels with (services.quality.metrics); plain object columns.
    """
    frame = labels_frame(project)[["level", "item_id", "worker_id", "label"]].copy()
    frame["level"] = frame["level"].astype(object)
    frame["label"] = frame["label"].astype(object)
    gold: dict[tuple[str, int], str] = {}
    for level in ("span", "qa", "fact"):  # GoldLabel's targets
        rows = GoldLabel.objects.filter(**{f"{level}__response__project": project}).values_list(f"{level}_id", "value")
        gold.update(((level, item_id), value) for item_id, value in rows)
    frame["gold"] = [gold.get((lv, int(i))) for lv, i in zip(frame["level"], frame["item_id"], strict=True)]
    return frame
