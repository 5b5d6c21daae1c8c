"""labels_frame(group_columns=...) leaves out the responses' grouping columns a caller does not read (the report:
system and its `by`), and is otherwise the whole frame; the report reads the same either way."""
from __future__ import annotations

import pytest

from annotation_tasks.services import frames, reports
from tests.crowd.test_worker_page_metrics import random_project

pytestmark = pytest.mark.django_db


def test_fewer_group_columns_same_frame_otherwise() -> None:
    project, _ = random_project(5)
    whole = frames.labels_frame(project)
    for kept in (["system"], ["system", "split"], []):
        fewer = frames.labels_frame(project, group_columns=kept)
        left_out = [c for c in frames.GROUP_COLUMNS if c not in kept]
        assert list(fewer.columns) == [c for c in frames.LABEL_COLUMNS if c not in left_out]
        assert fewer.equals(whole.drop(columns=left_out))


@pytest.mark.parametrize("by", [None, "dataset", "split", "system"])
def test_the_report_reads_the_same_with_the_whole_frame(by, monkeypatch) -> None:
    project, _ = random_project(6)
    lean = reports.build_report(project, by=by)
    real = frames.labels_frame
    monkeypatch.setattr(frames, "labels_frame", lambda *a, group_columns=None, **k: real(*a, **k))
    assert reports.build_report(project, by=by) == lean
