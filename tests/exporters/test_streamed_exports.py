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


def _two_pass_csv(jsonl) -> bytes:
    """The CSV as it was written before the one-read spool: keys from a first pass, rows from a second."""
    import io

    from annotation_tasks.exporters import csv_writer

    out = io.StringIO(newline="")
    csv_writer.write_rows(csv_writer._records(jsonl), csv_writer.columns_of(csv_writer._records(jsonl)), out)
    return out.getvalue().encode("utf-8")


@pytest.mark.parametrize("fmt", ["qa-jsonl", "labels-jsonl", "qasem-release"])
def test_csv_export_job_writes_the_same_bytes_as_the_two_pass_csv(qasem, fmt, tmp_path, settings) -> None:
    from annotation_tasks.models import Job
    from annotation_tasks.services import export_jobs

    settings.VAR_DIR = tmp_path / "var"
    jsonl = tmp_path / "export.jsonl"
    exports.export_to_path(qasem.name, fmt, jsonl)
    job = export_jobs.run_export_job(export_jobs.start_export_job(qasem, fmt, as_csv=True).pk)
    assert job.status == Job.Status.DONE, job.error
    assert export_jobs.job_file(job).read_bytes() == _two_pass_csv(jsonl)
    assert job.result["lines"] == len(jsonl.read_text(encoding="utf-8").splitlines())


def test_csv_of_uneven_records_matches_the_two_pass_csv(tmp_path) -> None:
    """Rows with different keys (adjudication on some, retest on others) land in the first-seen columns."""
    import io
    import json

    from annotation_tasks.exporters import csv_writer

    records = [{"a": 1, "votes": ["x"]}, {"b": "=cmd", "a": None}, {"a": "two\r\nlines", "extra": {"k": [1]}}, {}]
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = io.StringIO(newline="")
    assert csv_writer.csv_from_records(iter(records), out) == len(records)
    assert out.getvalue().encode("utf-8") == _two_pass_csv(jsonl)


def test_id_list_filters_like_a_list(qasem) -> None:
    """base.id_list (one array parameter on PostgreSQL) selects what the plain list selects."""
    from annotation_tasks.exporters.base import id_list
    from annotation_tasks.models import QA

    ids = list(QA.objects.filter(response__project=qasem).values_list("pk", flat=True)) + [10**9 + i for i in range(80)]
    assert len(ids) > 64  # past the size where PostgreSQL gets the array
    got = sorted(QA.objects.filter(pk__in=id_list(ids)).values_list("pk", flat=True))
    assert got == sorted(QA.objects.filter(pk__in=ids).values_list("pk", flat=True)) and got


def test_results_csv_reads_a_batch_in_chunks_with_the_same_rows() -> None:
    """The MTurk results CSV held a whole batch's assignments (with their sources) at once; it reads chunks of
    plain values now, three queries a chunk, and a chunk boundary inside a unit loses or repeats no row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation_tasks.exporters import results_csv
    from tests.importers.test_results_csv import worked_batch

    batch = worked_batch().batch
    whole = list(results_csv.export_rows(batch, chunk_size=1000))
    assert len(whole) == 2
    with CaptureQueriesContext(connection) as chunked:
        assert list(results_csv.export_rows(batch, chunk_size=1)) == whole
    assert len(chunked.captured_queries) == 3 * len(whole) + 1  # 3 per chunk of one row, then the empty page
