"""Report: labelled and unlabelled responses counted apart, systems without labels listed, each worker's
confusion matrix against the others' majority, and the time-on-task histogram."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotation_tasks.analysis.agreement import worker_agreement
from annotation_tasks.analysis.worker_views import time_histogram, worker_confusion
from annotation_tasks.models import Assignment, Project, Worker
from annotation_tasks.services.imports import import_items, import_qasem_release
from annotation_tasks.services.reports import build_report, render_text
from tests.importers.helpers import release_line, write_jsonl


def random_labels(seed: int = 3, n_items: int = 60, n_workers: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        for worker in rng.choice(n_workers, size=int(rng.integers(1, 5)), replace=False):
            rows.append({"level": "fact", "item_id": item, "worker_id": int(worker),
                         "label": str(rng.choice(["S", "NS", "IR"], p=[0.6, 0.3, 0.1]))})
    return pd.DataFrame(rows)


def test_confusion_matrix_agrees_with_worker_agreement():
    labels = random_labels()
    confusion = {r["worker_id"]: r for r in worker_confusion(labels)}
    table = worker_agreement(labels).set_index("worker_id")
    assert set(confusion) == set(table.index)
    for worker, row in table.iterrows():
        m = np.asarray(confusion[worker]["matrix"])
        assert m.sum() == row["n_compared"] == confusion[worker]["n_compared"]
        if row["n_compared"]:
            assert np.trace(m) / m.sum() == pytest.approx(row["agreement"])
        # rows are the worker's own labels: their sum is how often the worker gave each label (where compared)
        mine = labels[labels["worker_id"] == worker]["label"].value_counts()
        for i, cat in enumerate(confusion[worker]["categories"]):
            assert m[i].sum() <= mine.get(cat, 0)


def test_time_histogram_counts_everything_once_and_puts_outliers_last():
    seconds = [5, 12, 14, 30, 31, 44, 59, 61, 75, 90, 100, 120, 3600]
    h = time_histogram(seconds)
    assert sum(h["counts"]) + h["overflow"] == h["n"] == len(seconds)
    assert h["edges"][0] == 0 and h["edges"][-1] > 120 and h["overflow"] == 1  # the forgotten tab
    widths = np.diff(h["edges"])
    assert np.allclose(widths, widths[0]) and h["median"] == 59
    assert time_histogram([])["n"] == 0 and time_histogram([0, 0])["counts"] == [2]


@pytest.mark.django_db
def test_report_counts_unlabelled_responses_and_lists_systems_without_labels(tmp_path):
    rows = [release_line(sid, model) for sid in (1, 2) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "r.jsonl", rows), "mixed")
    fresh = [{"source_id": f"n{i}", "source": "A man died.", "system": "fresh", "response": "He died."} for i in range(3)]
    import_items(write_jsonl(tmp_path / "i.jsonl", fresh), "mixed")
    project = Project.objects.get(name="mixed")
    Assignment.objects.filter(unit__project=project).update(time_on_task_ms=42_000)
    report = build_report(project)
    counts = report["counts"]
    assert (counts["responses"], counts["responses_labelled"], counts["responses_unlabelled"]) == (7, 4, 3)
    assert report["unlabelled_groups"] == [{"by": "system", "group": "fresh", "n_responses": 3}]
    assert "no labels yet: system fresh (3 responses)" in render_text(report)
    assert "7 responses (4 with labels, 3 without)" in render_text(report)
    assert "median 42 s" in render_text(report)
    pseudonyms = {w.pk: w.pseudonym_in(project.pk) for w in Worker.objects.all()}
    assert {r["level"] for r in report["confusion"]} == {"qa", "span"}
    assert all(r["worker"] == pseudonyms[r["worker_id"]] for r in report["confusion"])
    n = Assignment.objects.filter(unit__project=project, status__in=Assignment.Status.counted()).count()
    assert report["time_on_task"]["n"] == n and report["time_on_task"]["median"] == 42.0
    by_system = build_report(project, by="system")
    assert by_system["unlabelled_groups"] == [{"by": "system", "group": "fresh", "n_responses": 3}]
