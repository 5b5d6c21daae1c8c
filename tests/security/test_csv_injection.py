"""CSV injection (OWASP): a worker-typed cell never reaches a spreadsheet as a formula, in every CSV writer.

Each export path gets a payload a worker could type (an MTurk WorkerId, feedback, a label, a QA's question) and
every cell of the file is checked: none begins with =, +, -, @, tab or CR unless it is a plain number.
"""
from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation_tasks.csvsafe import FORMULA_START, neutralise, restore
from annotation_tasks.exporters.csv_writer import csv_text
from annotation_tasks.exporters.results_csv import write_results_csv
from annotation_tasks.models import QA, Assignment, Batch, Project, ProjectMembership, Worker
from annotation_tasks.services.imports import import_results_csv
from tests.api.conftest import client_for
from tests.campaigns.helpers import write_csv

PAYLOADS = ["=cmd|' /C calc'!A0", "@SUM(1)", "+HYPERLINK(\"http://x\")", "-2+3", "\t=1+1", "\r=1+1"]


def _formula_cells(text: str) -> list[str]:
    """Cells a spreadsheet would run: formula-leading and not a plain number."""
    bad = []
    for row in csv.reader(io.StringIO(text)):
        for value in row:
            if value and value[0] in FORMULA_START and neutralise(value) != value:
                bad.append(value)
    return bad


@pytest.mark.parametrize("payload", PAYLOADS)
def test_formula_cells_are_quoted_and_restored(payload: str) -> None:
    assert neutralise(payload) == "'" + payload
    assert restore(neutralise(payload)) == payload


@pytest.mark.parametrize("number", ["-1.5", "-1", "+3", "-2e-3", "-.5", "0"])
def test_plain_numbers_stay_numbers(number: str) -> None:
    assert neutralise(number) == number


@pytest.mark.parametrize("text", ["'=x", "''@y", "'-1", "'tis", "", "plain", "=", "-", "'", "- 2", "-inf", "1-2"])
def test_quoting_is_reversible(text: str) -> None:
    assert restore(neutralise(text)) == text
    assert not _formula_cells(csv_text([{"a": text}]))


def test_jsonl_csv_writer_quotes_strings_and_keeps_numbers() -> None:
    text = csv_text([{"answer": p, "score": -1.5, "n": -2} for p in PAYLOADS])
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["answer"] for r in rows] == ["'" + p for p in PAYLOADS]
    assert {(r["score"], r["n"]) for r in rows} == {("-1.5", "-2")}
    assert not _formula_cells(text)


@pytest.mark.django_db
def test_results_csv_quotes_worker_cells_and_reads_them_back() -> None:
    from tests.importers.test_results_csv import worked_batch

    unit = worked_batch()
    Worker.objects.filter(external_id="W1").update(external_id=PAYLOADS[0])
    Assignment.objects.filter(unit=unit).update(feedback=PAYLOADS[1])
    out = io.StringIO()
    write_results_csv(unit.batch, out)
    assert not _formula_cells(out.getvalue())
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert {r["WorkerId"] for r in rows} == {"'" + PAYLOADS[0], "W2"}
    assert {r["RequesterFeedback"] for r in rows} == {"'" + PAYLOADS[1]}
    target = Batch.objects.create(project=unit.project, name="again", provider="mturk")
    result = import_results_csv(target, io.StringIO(out.getvalue()))
    assert result.errors == [] and result.assignments_created == 2
    imported = Assignment.objects.filter(unit__batch=target)
    assert set(imported.values_list("worker__external_id", flat=True)) == {PAYLOADS[0], "W2"}


@pytest.fixture
def campaign(tmp_path: Path, django_user_model) -> str:
    """An imported label campaign whose workers typed formulas as their ids, labels and a grouping."""
    django_user_model.objects.create_user(username="ada", is_staff=True)
    rows = [{"item_id": f"i{i}", "worker_id": payload, "label": PAYLOADS[(i + k) % 2], "system": "-2+3",
             "split": "train"} for i in range(3) for k, payload in enumerate(PAYLOADS[:3])]
    call_command("import_labels", str(write_csv(tmp_path / "labels.csv", rows)), "--project", "evil",
                 stdout=io.StringIO())
    return "evil"


@pytest.mark.django_db
def test_cli_csv_beside_jsonl_has_no_formula(campaign: str, tmp_path: Path) -> None:
    out = tmp_path / "items.jsonl"
    call_command("export", "--project", campaign, "--format", "campaign-items", "-o", str(out), "--csv",
                 stdout=io.StringIO(), stderr=io.StringIO())
    text = (tmp_path / "items.csv").read_text(encoding="utf-8")
    assert "'@SUM(1)" in text and "'-2+3" in text
    assert not _formula_cells(text)


@pytest.mark.django_db
def test_hf_dataset_csv_has_no_formula(campaign: str, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    call_command("export", "--project", campaign, "--format", "hf-dataset", "-o", str(out), "--csv",
                 stdout=io.StringIO(), stderr=io.StringIO())
    files = list(out.rglob("*.csv"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "'-2+3" in text and not _formula_cells(text), path


@pytest.mark.django_db
def test_api_csv_downloads_have_no_formula(django_user_model) -> None:
    from tests.api.conftest import _content

    researcher = django_user_model.objects.create_user("alice", password="pw")
    project = Project.objects.create(name="A")
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    _, qa, _, _ = _content(project, "a")
    QA.objects.filter(pk=qa.pk).update(question=PAYLOADS[0])
    client = client_for(researcher)
    for fmt in ("qa-jsonl", "qasem-release"):
        answer = client.get(f"/api/projects/{project.pk}/export/", {"export_format": fmt, "file": "csv"})
        assert answer.status_code == 200, answer
        text = b"".join(answer.streaming_content).decode()
        assert not _formula_cells(text), fmt
        assert "'=cmd" in text or fmt == "qasem-release"  # (there the question is inside the JSON cell of its QAs)
    answer = client.get(f"/api/projects/{project.pk}/export/", {"export_format": "hf-dataset", "file": "csv"})
    assert answer.status_code == 200
    with zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content))) as archive:
        names = [n for n in archive.namelist() if n.endswith(".csv")]
        assert names
        for name in names:
            assert not _formula_cells(archive.read(name).decode()), name
