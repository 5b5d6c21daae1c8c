"""Issue 23 item 13: an import names every bad line (the first MAX_ERRORS, and how many in all), refuses a CSV
header that names a column twice, a whitespace-only WikiEval answer, and says "starting at column" once."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.importers import items, wikieval
from annotation_tasks.importers.base import MAX_ERRORS, ImportErrors, ImportFormatError, read_csv
from annotation_tasks.importers.results_csv import read as read_results
from annotation_tasks.models import Job, Project, ProjectMembership, Source
from tests.api.conftest import client_for

GOOD = {"source_id": "s1", "source": "Rain fell.", "system": "m1", "response": "It rained."}


def _jsonl(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_duplicate_csv_header_is_refused_with_its_column_and_positions(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("source_id,source,system,response,system\ns1,Rain.,m1,It rained.,m2\n", encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        list(read_csv(path))
    exc = caught.value
    assert (exc.line, exc.field) == (1, "system") and "columns 3 and 5" in exc.message
    with pytest.raises(ImportFormatError, match="appears twice"):
        items.read(path)
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("item_id, worker_id,label,worker_id \ni1,w1,yes,w2\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="'worker_id' appears twice"):
        list(read_csv(spaced))


def test_duplicate_header_in_a_results_csv_is_refused() -> None:
    text = "HITId,WorkerId,Answer.labels,WorkerId\nH1,W1,{},W2\n"
    with pytest.raises(ImportFormatError, match="'WorkerId' appears twice"):
        read_results(io.StringIO(text))


def test_json_errors_say_at_column_once(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", ['{"source_id": "s1, "x": 1}'])
    with pytest.raises(ImportFormatError) as caught:
        items.read(path)
    assert "at at" not in str(caught.value) and "column" in str(caught.value)
    unterminated = tmp_path / "open.jsonl"
    unterminated.write_text('{"source_id": "s1', encoding="utf-8")  # no newline: the string just ends
    with pytest.raises(ImportFormatError) as caught:
        items.read(unterminated)
    assert "Unterminated string starting at column" in str(caught.value) and "at at" not in str(caught.value)
    cell = tmp_path / "cells.csv"
    cell.write_text('source_id,passages,system,response\ns1,"[""open",m1,r\n', encoding="utf-8")
    with pytest.raises(ImportFormatError) as caught:
        items.read(cell)
    assert "at at" not in str(caught.value)


@pytest.mark.parametrize("blank", [" ", "\t", "   \n  "])
def test_whitespace_only_wikieval_answer_is_refused_where_it_is(tmp_path: Path, blank: str) -> None:
    row = {"question": "Who?", "context_v1": "Ada wrote it.", "answer": "Ada", "ungrounded_answer": blank,
           "poor_answer": "Someone"}
    with pytest.raises(ImportFormatError) as caught:
        wikieval.read(_jsonl(tmp_path / "w.jsonl", [row]))
    assert (caught.value.line, caught.value.field) == (1, "ungrounded_answer")
    assert "only whitespace" in caught.value.message
    # empty and missing stay "no answer"
    rows = [{**row, "id": "a", "ungrounded_answer": ""}, {**row, "id": "b", "ungrounded_answer": None}]
    assert [len(r.answers) for r in wikieval.read(_jsonl(tmp_path / "ok.jsonl", rows))] == [2, 2]


def test_every_bad_line_is_listed_up_to_the_cap_and_counted(tmp_path: Path) -> None:
    rows: list = [GOOD]
    bad_lines = []
    for i in range(MAX_ERRORS + 10):
        if i % 3 == 0:
            rows.append("{not json")
        elif i % 3 == 1:
            rows.append({**GOOD, "source_id": f"s{i}", "response": 5})
        else:
            rows.append({**GOOD, "source_id": f"s{i}", "colour": "red"})
        bad_lines.append(len(rows))
        rows.append({**GOOD, "source_id": f"ok{i}", "system": f"m{i}"})
    with pytest.raises(ImportErrors) as caught:
        items.read(_jsonl(tmp_path / "many.jsonl", rows))
    exc = caught.value
    assert exc.total == MAX_ERRORS + 10 and len(exc.errors) == MAX_ERRORS
    assert [e.line for e in exc.errors] == bad_lines[:MAX_ERRORS]
    assert {e.field for e in exc.errors} == {"(json)", "response", "colour"}
    assert exc.lines()[-1] == "... and 10 more" and f"and {MAX_ERRORS + 9} more errors" in str(exc)


def test_every_bad_csv_row_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "items.csv"
    path.write_text("source_id,source,system,response\ns1,Rain.,m1,ok\ns2,,m1,x\ns3,Sun.,m1,ok,extra\n"
                    "s4,Snow.,,x\n", encoding="utf-8")
    with pytest.raises(ImportErrors) as caught:
        items.read(path)
    assert [(e.line, e.field) for e in caught.value.errors] == [(3, "source"), (4, None), (5, "system")]


@pytest.mark.django_db
def test_cli_prints_every_bad_line(tmp_path: Path, django_user_model) -> None:
    django_user_model.objects.create_user("ada", is_staff=True)
    path = _jsonl(tmp_path / "two.jsonl", [GOOD, "{oops", {**GOOD, "source_id": "s2", "response": ""}])
    with pytest.raises(CommandError) as caught:
        call_command("import_items", str(path), "--project", "p", stdout=io.StringIO())
    text = str(caught.value)
    assert "2 errors" in text and "two.jsonl, line 2" in text and "two.jsonl, line 3, field response" in text
    assert not Source.objects.exists()


@pytest.mark.django_db
def test_upload_job_lists_every_bad_line_and_offers_no_resume(tmp_path: Path, settings, django_user_model,
                                                              django_capture_on_commit_callbacks) -> None:
    settings.VAR_DIR = tmp_path
    researcher = django_user_model.objects.create_user("alice", password="pw")
    project = Project.objects.create(name="P")
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    client = client_for(researcher)
    rows = [GOOD] + [{**GOOD, "source_id": f"s{i}", "response": 5} for i in range(MAX_ERRORS + 3)]
    content = "\n".join(json.dumps(r) for r in rows) + "\n"
    with django_capture_on_commit_callbacks(execute=True):
        started = client.post(f"/api/projects/{project.pk}/upload/",
                              {"file": SimpleUploadedFile("bad.jsonl", content.encode()), "format": ""},
                              format="multipart")
    job = client.get(f"/api/jobs/{started.json()['id']}/").json()
    assert job["status"] == "failed" and not job["can_resume"], job
    assert job["result"]["errors_total"] == MAX_ERRORS + 3 and len(job["result"]["errors"]) == MAX_ERRORS
    assert [e["line"] for e in job["result"]["errors"][:3]] == [2, 3, 4]
    refused = client.post(f"/api/jobs/{job['id']}/resume/")
    assert refused.status_code == 409 and "upload it again" in refused.json()["detail"]
    after = Job.objects.get(pk=job["id"])
    assert after.status == "failed" and after.result["errors"] == job["result"]["errors"]
    assert "gone" not in after.error
