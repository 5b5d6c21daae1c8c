"""The report's fast paths give the same answers as the plain ones.

- services.frames._number_records: PostgreSQL streams fixed-width binary COPY rows (decoded chunk by chunk),
  SQLite packs each column into one group_concat and booleans into one column of bit flags; checked against
  values_list on whichever database the suite runs on (scripts/test.sh runs it on SQLite and PostgreSQL), and the
  COPY decoder on streams cut at every byte.
- analysis: item counts computed once per level (aggregation.counts_by_level) and shared by the agreement table,
  the worker table, the confusion matrices and consistency give exactly what each computes on its own.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis.aggregation import (
    counts_by_level,
    item_counts,
    level_counts,
    majority_from_counts,
)
from annotation_tasks.analysis.agreement import agreement_table, worker_agreement, worker_table
from annotation_tasks.analysis.consistency import system_consistency
from annotation_tasks.analysis.worker_views import worker_confusion
from annotation_tasks.models import QA, Assignment, Predicate, Project, QALabel, Response, Source, Unit, Worker
from annotation_tasks.services import frames


def _random_labels(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A labels frame of the three levels (uneven labels per item, ties included), its QAs and QA-span links,
    with the dtypes services.frames produces."""
    rng = np.random.default_rng(seed)
    rows = []
    for level, n_items in (("span", 40), ("qa", 60), ("fact", 30)):
        vocabulary = frames.LABEL_ORDER[level]  # the protocols' declared orders
        for item in range(1, n_items + 1):
            for worker in rng.choice(np.arange(1, 9), size=rng.integers(1, 5), replace=False):
                rows.append((level, item, int(worker), vocabulary[rng.integers(0, len(vocabulary))]))
    labels = pd.DataFrame(rows, columns=["level", "item_id", "worker_id", "label"])
    labels["response_id"] = labels["item_id"] % 7
    labels["system"] = np.where(labels["response_id"] % 2 == 0, "sysA", "sysB")
    labels["dataset"] = np.where(labels["item_id"] % 3 == 0, "cliff", "frank")
    labels["level"] = labels["level"].astype(frames.LEVEL_DTYPE)
    labels["label"] = labels["label"].astype(frames.LABEL_DTYPE)
    labels = labels.sort_values(["level", "item_id", "worker_id"], kind="stable").reset_index(drop=True)
    qas = pd.DataFrame({"item_id": np.arange(1, 61), "predicate_id": np.arange(1, 61) % 11})
    qas["response_id"] = qas["item_id"] % 7
    qas["system"] = np.where(qas["response_id"] % 2 == 0, "sysA", "sysB")
    qas["dataset"] = np.where(qas["item_id"] % 3 == 0, "cliff", "frank")
    qa_spans = pd.DataFrame({"qa_id": np.arange(1, 61), "span_id": (np.arange(1, 61) % 40) + 1})
    return labels, qas, qa_spans


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shared_counts_give_the_same_sections(seed: int) -> None:
    labels, qas, qa_spans = _random_labels(seed)
    counts = counts_by_level(labels)
    assert set(counts) == {"span", "qa", "fact"}
    for by in (None, "dataset"):
        assert agreement_table(labels, by=by, counts=counts) == agreement_table(labels, by=by)
        assert (system_consistency(labels, qas, qa_spans, by=by, n_boot=50, counts=counts)
                == system_consistency(labels, qas, qa_spans, by=by, n_boot=50))
    assert worker_table(labels, counts) == worker_table(labels)
    assert worker_confusion(labels, counts) == worker_confusion(labels)
    # a worker's agreement and confusion matrix tell the same story: compared labels and agreements match
    table = worker_agreement(labels[labels["level"] == "qa"]).set_index("worker_id")
    for row in worker_confusion(labels, counts):
        if row["level"] == "qa":
            matrix = np.array(row["matrix"])
            assert row["n_compared"] == table.loc[row["worker_id"], "n_compared"]
            agreed = np.trace(matrix) / matrix.sum() if matrix.sum() else None
            assert agreed == pytest.approx(table.loc[row["worker_id"], "agreement"])


def test_counts_of_other_labels_are_not_reused() -> None:
    labels, _, _ = _random_labels(3)
    qa = labels[labels["level"] == "qa"]
    counts = counts_by_level(labels)
    fewer = qa.iloc[: len(qa) // 2]
    recounted = level_counts(fewer, "qa", counts)
    assert recounted is not counts["qa"] and len(recounted.label_codes) == len(fewer)
    assert level_counts(qa, "qa", counts) is counts["qa"]


def test_majority_by_columns_matches_argmax_and_ties() -> None:
    rng = np.random.default_rng(7)
    for n_cat in (1, 2, 3, 5):
        counts = rng.integers(0, 4, size=(500, n_cat))
        winner, tie = majority_from_counts(counts)
        assert winner.tolist() == counts.argmax(axis=1).tolist()  # the first maximum: the tie rule
        assert tie.tolist() == ((counts == counts.max(axis=1, keepdims=True)).sum(axis=1) > 1).tolist()
    ic = item_counts(pd.DataFrame({"level": "qa", "item_id": [1, 1, 2, 2, 2], "worker_id": [1, 2, 1, 2, 3],
                                   "label": ["supported", "not_supported", "supported", "supported", "not_supported"]}))
    winner, compared = ic.others_majority
    # item 1: each worker's other is a single opposite vote; item 2: the others of worker 3 agree (supported),
    # the others of workers 1 and 2 tie (the first category by the tie rule, not compared)
    assert winner.tolist() == [0, 1, 0, 0, 1] and compared.tolist() == [True, True, False, False, True]


@pytest.fixture
def labelled() -> Project:
    """One unit, four workers; every (supported, derived_from_span) pair, some labels of a rejected assignment."""
    project = Project.objects.create(name="fast paths")
    source = Source.objects.create(project=project, external_id="s")
    response = Response.objects.create(project=project, source=source, external_id="r", system="m", text="x y")
    predicate = Predicate.objects.create(response=response, token_index=0, text="x")
    qas = QA.objects.bulk_create([QA(response=response, predicate=predicate, question=f"q{i}", answer="a",
                                     answer_start=0, answer_end=1) for i in range(5)])
    unit = Unit.objects.create(project=project, source=source)
    for k, status in enumerate(["approved", "submitted", "approved", "rejected"]):
        a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"fp{k}"), status=status)
        for i, (supported, derived) in zip(range(5), itertools.cycle(itertools.product([True, False], repeat=2))):
            QALabel.objects.create(assignment=a, qa=qas[(i + k) % 5], supported=supported, derived_from_span=derived)
    return project


@pytest.mark.django_db
def test_number_frames_read_the_same_rows_as_values_list(labelled: Project) -> None:
    columns = ["qa_id", "assignment__worker_id", "assignment_id", "supported", "derived_from_span"]
    queryset = QALabel.objects.filter(Assignment.counted_q("assignment__"), assignment__unit__project=labelled)
    frame = frames._number_records(queryset, columns)
    assert list(frame.columns) == columns and frame.dtypes.eq(np.int64).all()
    expected = sorted(tuple(int(v) for v in row) for row in queryset.values_list(*columns))
    assert sorted(map(tuple, frame.to_numpy().tolist())) == expected
    assert len(expected) == 15 and {(r[3], r[4]) for r in expected} == {(0, 0), (0, 1), (1, 0), (1, 1)}
    by_id = frames._number_records(QA.objects.filter(response__project=labelled).order_by("-id"), ["id"], sort=True)
    assert by_id["id"].tolist() == sorted(QA.objects.filter(response__project=labelled).values_list("id", flat=True))
    empty = frames._number_records(queryset.filter(qa_id=-1), columns)
    assert list(empty.columns) == columns and len(empty) == 0


@pytest.mark.django_db
def test_number_frames_decoded_in_small_chunks_read_the_same_rows(labelled: Project, monkeypatch) -> None:
    """COPY rows decoded a few bytes at a time (chunks end inside the header, a row, the trailer) are the rows."""
    monkeypatch.setattr(frames, "COPY_CHUNK", 7)
    columns = ["qa_id", "assignment_id", "supported", "derived_from_span"]
    queryset = QALabel.objects.filter(Assignment.counted_q("assignment__"), assignment__unit__project=labelled)
    frame = frames._number_records(queryset, columns)
    assert sorted(map(tuple, frame.to_numpy().tolist())) == sorted(
        tuple(int(v) for v in row) for row in queryset.values_list(*columns))


def _copy_stream(rows: list[tuple[int | None, ...]]) -> bytes:
    """A binary COPY stream of int8 columns as PostgreSQL writes it (None: a NULL field, length -1)."""
    out = bytearray(frames.COPY_SIGNATURE + (0).to_bytes(4, "big") + (0).to_bytes(4, "big"))
    for row in rows:
        out += len(row).to_bytes(2, "big")
        for value in row:
            out += (-1).to_bytes(4, "big", signed=True) if value is None else \
                (8).to_bytes(4, "big") + value.to_bytes(8, "big", signed=True)
    return bytes(out + (-1).to_bytes(2, "big", signed=True))


@pytest.mark.parametrize("cut", [1, 5, 19, 26, 64])
def test_copy_rows_decode_any_cut_of_the_stream(cut: int, monkeypatch) -> None:
    monkeypatch.setattr(frames, "COPY_CHUNK", 16)
    rows = [(i, -i * 10**12, i % 2) for i in range(50)]
    stream = _copy_stream(rows)
    reader = frames._CopyRows(3)
    for start in range(0, len(stream), cut):
        reader.feed(stream[start:start + cut])
    assert reader.columns().tolist() == [list(r) for r in rows]
    empty = frames._CopyRows(2)
    empty.feed(_copy_stream([]))
    assert empty.columns().shape == (0, 2)


def test_copy_rows_refuse_a_null_and_a_cut_stream() -> None:
    with_null = frames._CopyRows(2)
    with pytest.raises(ValueError, match="NULL"):
        with_null.feed(_copy_stream([(1, 2), (3, None), (5, 6)]))
        with_null.columns()
    cut = frames._CopyRows(2)
    cut.feed(_copy_stream([(1, 2), (3, 4)])[:-5])
    with pytest.raises(ValueError):
        cut.columns()
    with pytest.raises(ValueError, match="signature"):
        frames._CopyRows(1).feed(b"not a copy stream" * 1000000)


@pytest.mark.django_db
def test_number_frames_refuse_null_values(labelled: Project) -> None:
    first = Assignment.objects.filter(unit__project=labelled).order_by("id").first()
    Assignment.objects.filter(pk=first.pk).update(time_on_task_ms=1200)  # the others stay NULL
    with pytest.raises(ValueError, match="NULL"):
        frames._number_records(Assignment.objects.filter(unit__project=labelled), ["id", "time_on_task_ms"])


@pytest.mark.django_db
def test_labels_frame_keeps_both_flags_and_the_workers(labelled: Project) -> None:
    labels = frames.labels_frame(labelled, levels=["qa"])
    rows = QALabel.objects.filter(Assignment.counted_q("assignment__"), assignment__unit__project=labelled)
    expected = sorted((r.qa_id, r.assignment.worker_id, r.assignment_id, "supported" if r.supported else
                       "not_supported", r.derived_from_span) for r in rows.select_related("assignment"))
    got = sorted(zip(labels["item_id"], labels["worker_id"], labels["assignment_id"], labels["label"].astype(str),
                     labels["derived_from_span"], strict=True))
    assert got == expected
    assert labels[["item_id", "worker_id"]].apply(tuple, axis=1).is_monotonic_increasing  # the frame's order
    # the report's narrow frame: the same rows without the assignments and the responses' group columns
    narrow = frames.labels_frame(labelled, levels=["qa"], group_columns=[], with_assignments=False)
    assert list(narrow.columns) == ["level", "item_id", "response_id", "worker_id", "label", "derived_from_span"]
    assert narrow.equals(labels[list(narrow.columns)])
    qas = frames.qas_frame(labelled, group_columns=["system"])
    assert list(qas.columns) == ["item_id", "response_id", "predicate_id", "system"] and set(qas["system"]) == {"m"}
