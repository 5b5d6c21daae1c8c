"""A QASem release imported a chunk of lines at a time (issue 25 item 4: 4,144 lines took 737 MB held whole):
the same rows as a whole-file import, even when a source's lines fall in different chunks; a bad line is
named and nothing is written; a failure while writing a later chunk rolls back the earlier ones."""
from __future__ import annotations

import json

import pytest

from annotation_tasks.exporters.qasem_release import export_lines
from annotation_tasks.importers import qasem_release
from annotation_tasks.importers.base import ImportErrors
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    UnitResponse,
)
from annotation_tasks.services.imports import import_qasem_release
from tests.conftest import shared_file
from tests.importers.helpers import release_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


def _dump(project: Project) -> dict[str, list]:
    """The project's rows as comparable values (no ids): what an import wrote."""
    units = []
    for unit in Unit.objects.filter(project=project).order_by("id"):
        members = list(UnitResponse.objects.filter(unit=unit).order_by("position")
                       .values_list("position", "response__external_id"))
        slots = list(Assignment.objects.filter(unit=unit).order_by("id").values_list("worker__external_id", "status"))
        units.append((unit.source.external_id, unit.assignments_wanted, unit.status, unit.batch.name, members, slots))
    return {
        "sources": sorted(Source.objects.filter(project=project).values_list("external_id", "text")),
        "responses": list(Response.objects.filter(project=project).order_by("id")
                          .values_list("external_id", "source__external_id", "system", "text", "metadata")),
        "qas": sorted(QA.objects.filter(response__project=project)
                      .values_list("response__external_id", "external_id", "question", "answer_start", "order")),
        "spans": sorted(AnswerSpan.objects.filter(response__project=project)
                        .values_list("response__external_id", "external_id", "start", "end")),
        "units": units,
        "qa_labels": sorted(QALabel.objects.filter(qa__response__project=project).values_list(
            "assignment__worker__external_id", "qa__response__external_id", "qa__external_id", "supported")),
        "span_labels": sorted(SpanLabel.objects.filter(span__response__project=project).values_list(
            "assignment__worker__external_id", "span__response__external_id", "span__external_id", "covered")),
    }


@pytest.mark.shared_data
def test_a_chunked_import_writes_the_rows_of_a_whole_file_import(tmp_path, monkeypatch):
    dev = [json.loads(x) for x in shared_file("qasem_consistency", "dev.jsonl").read_text().splitlines()[:24]]
    # a source's two lines apart (in different chunks of 5), and a line with fewer votes than its source's other
    rows = dev[0::2] + dev[1::2]
    rows[3] = {**rows[3], "qas": [{**q, "annotations": q["annotations"][:2]} for q in rows[3]["qas"]]}
    path = write_jsonl(tmp_path / "release.jsonl", rows)
    monkeypatch.setattr(qasem_release, "CHUNK_LINES", 10**6)
    whole = import_qasem_release(path, "whole")
    monkeypatch.setattr(qasem_release, "CHUNK_LINES", 5)
    chunks = []
    real = qasem_release._write_chunk
    monkeypatch.setattr(qasem_release, "_write_chunk", lambda *a: chunks.append(len(a[1])) or real(*a))
    chunked = import_qasem_release(path, "chunked")
    assert chunks == [5, 5, 5, 5, 4]
    assert chunked.created == whole.created and chunked.lines == whole.lines == len(rows)
    a, b = _dump(Project.objects.get(name="whole")), _dump(Project.objects.get(name="chunked"))
    assert a["units"] and a["qa_labels"]
    for table in a:
        assert a[table] == b[table], table
    assert list(export_lines(Project.objects.get(name="chunked"))) == list(export_lines(Project.objects.get(name="whole")))
    again = import_qasem_release(path, "chunked")  # idempotent across chunks
    assert again.skipped == len(rows) and not again.created


def test_a_bad_line_past_the_first_chunk_is_named_and_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(qasem_release, "CHUNK_LINES", 3)
    rows = [release_line(source_id=i) for i in range(8)]
    rows[6]["qas"][1]["answer_idx"] = "4-99"  # past the summary's tokens
    before = row_counts()
    with pytest.raises(ImportErrors) as caught:
        import_qasem_release(write_jsonl(tmp_path / "bad.jsonl", rows), "bad")
    (error,) = caught.value.errors
    assert (error.file, error.line, error.field) == ("bad.jsonl", 7, "qas[1].answer_idx")
    assert row_counts() == before


def test_a_failure_while_writing_a_later_chunk_rolls_back_the_earlier_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(qasem_release, "CHUNK_LINES", 3)
    calls = []
    real = qasem_release._write_chunk

    def failing(*args):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the database went away")
        return real(*args)

    monkeypatch.setattr(qasem_release, "_write_chunk", failing)
    before = row_counts()
    with pytest.raises(RuntimeError):
        import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [release_line(source_id=i) for i in range(8)]), "x")
    assert len(calls) == 3 and row_counts() == before
