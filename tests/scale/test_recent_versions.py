"""versions.recent_*: a large project's data version (about a second of aggregates at 10^6 labels) is read at most
once per VERSION_CHECK_SECONDS by the queue and the report; a small project's every time (issue 25 item 2)."""
from __future__ import annotations

import pytest

from annotation_tasks.services import versions
from tests.crowd.test_worker_page_metrics import random_project

pytestmark = pytest.mark.django_db


def reads_of(monkeypatch, project, calls: int) -> int:
    read: list[int] = []
    real = versions.labels_version
    monkeypatch.setattr(versions, "labels_version", lambda p: read.append(p.pk) or real(p))
    for _ in range(calls):
        versions.recent_labels_version(project)
    return len(read)


def test_a_small_project_reads_its_version_every_time(monkeypatch):
    project, _ = random_project(11, n_workers=3, n_units=2)
    assert not versions.is_large(project)
    assert reads_of(monkeypatch, project, 3) == 3


def test_a_large_project_reads_it_once_per_window(monkeypatch):
    project, _ = random_project(12, n_workers=3, n_units=2)
    monkeypatch.setattr(versions, "LARGE_ASSIGNMENTS", 2)
    assert versions.is_large(project)
    assert reads_of(monkeypatch, project, 3) == 1
    assert versions.recent_labels_version(project) == versions.labels_version(project)
