"""Exports at scale (issue 25 item 3): the dataset card's agreement without the whole report, the CSV written
straight from the records, and voters named without a model instance per row. Small data; no timings."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Project
from annotation_tasks.services import exports, reports
from annotation_tasks.services.imports import import_factscore, import_qasem_release
from tests.importers.helpers import factscore_line, release_line, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def qasem(tmp_path) -> Project:
    rows = [release_line(sid, model) for sid in (1, 2, 3, 4, 5) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "small.jsonl", rows), "small")
    return Project.objects.get(name="small")


@pytest.fixture
def facts(tmp_path) -> Project:
    import_factscore([write_jsonl(tmp_path / "f.jsonl", [factscore_line(t) for t in ("Ada", "Bob", "Cy")])], "facts")
    return Project.objects.get(name="facts")


@pytest.mark.parametrize("by", [None, "split"])
@pytest.mark.parametrize("name", ["qasem", "facts"])
def test_card_agreement_is_the_reports(name, by, request) -> None:
    project = request.getfixturevalue(name)
    expected = reports.build_report(project, by=by)["agreement"]
    assert expected  # the fixture has labels: the comparison is not of two empty lists
    assert exports.card_agreement(project, by=by) == expected


def test_dataset_export_does_not_build_the_report(qasem, tmp_path, monkeypatch) -> None:
    """The whole report held ~1 GB for 10^6 labels; the card needs its agreement rows only."""
    expected = reports.build_report(qasem, by="split")["agreement"]

    def whole_report(*args, **kwargs):
        raise AssertionError("the dataset export built the whole report")

    monkeypatch.setattr(reports, "build_report", whole_report)
    exports.export_dataset(qasem.name, tmp_path / "dataset")
    readme = (tmp_path / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "## Agreement" in readme
    for row in expected:
        group = "all" if row["group"] is None else f"split={row['group']}"
        assert f"| {row['level']} | {group} | {row['n_items']} | {row['n_labels']} |" in readme
