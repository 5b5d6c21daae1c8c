"""Upload → import Job, report, streamed export: the dashboard's pipeline endpoints."""
from __future__ import annotations

import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from annotation_tasks.models import Response, Source

pytestmark = pytest.mark.django_db

GOOD = "\n".join(json.dumps(r) for r in [
    {"source_id": "s1", "source": "A man died from measles.", "system": "m1", "response": "A man died."},
    {"source_id": "s1", "source": "A man died from measles.", "system": "m2", "response": "A man died of flu."},
    {"source_id": "s2", "source": "Rain fell in Paris.", "system": "m1", "response": "It rained in Paris."},
]) + "\n"


def upload(client, project_id, name, content, fmt=""):
    file = SimpleUploadedFile(name, content.encode(), content_type="application/octet-stream")
    return client.post(f"/api/projects/{project_id}/upload/", {"file": file, "format": fmt}, format="multipart")


def test_upload_runs_and_reports_errors_by_line(world, as_user, tmp_path, settings, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    client = as_user("alice")
    with django_capture_on_commit_callbacks(execute=True):
        ok = upload(client, world.a.pk, "items.jsonl", GOOD)
    assert ok.status_code == 202 and ok.json()["kind"] == "import"
    job = client.get(f"/api/jobs/{ok.json()['id']}/").json()
    assert job["status"] == "done" and job["progress"] == 1.0, job
    assert Response.objects.filter(project=world.a, system__in=["m1", "m2"]).count() == 3

    bad = GOOD.replace('"response": "It rained in Paris."', '"response": 5')
    before = (Source.objects.count(), Response.objects.count())
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(client, world.a.pk, "more.jsonl", bad.replace('"s1"', '"s9"'))
    job = client.get(f"/api/jobs/{answer.json()['id']}/").json()
    assert job["status"] == "failed"
    (error,) = job["result"]["errors"]
    assert (error["file"], error["line"], error["field"]) == ("more.jsonl", 3, "response")
    assert (Source.objects.count(), Response.objects.count()) == before  # nothing of the file was imported


def test_upload_is_for_researchers_of_the_project(world, as_user):
    assert upload(as_user("ann"), world.a.pk, "items.jsonl", GOOD).status_code == 403
    assert upload(as_user("bob"), world.a.pk, "items.jsonl", GOOD).status_code == 404
    assert upload(as_user("alice"), world.a.pk, "items.txt", GOOD).status_code == 400
    assert upload(as_user("alice"), world.a.pk, "items.jsonl", GOOD, fmt="excel").status_code == 400


def test_export_streams_what_the_cli_writes(world, as_user):
    client = as_user("alice")
    for fmt in ("qasem-release", "qa-jsonl", "factscore"):
        answer = client.get(f"/api/projects/{world.a.pk}/export/", {"export_format": fmt})
        assert answer.status_code == 200 and answer.streaming
        downloaded = b"".join(answer.streaming_content).decode()
        out = io.StringIO()
        call_command("export", project="A", fmt=fmt, output="-", stdout=out)
        assert downloaded == out.getvalue() and downloaded, fmt
    assert client.get(f"/api/projects/{world.a.pk}/export/", {"export_format": "csv"}).status_code == 400
    assert as_user("ann").get(f"/api/projects/{world.a.pk}/export/", {"export_format": "qa-jsonl"}).status_code == 403
    assert as_user("bob").get(f"/api/projects/{world.a.pk}/export/", {"export_format": "qa-jsonl"}).status_code == 404


def test_streamed_export_sends_its_first_line_alone_then_blocks(world, as_user, monkeypatch):
    from annotation_tasks.api import operations

    lines = [json.dumps({"n": n, "text": "é" * (n % 7)}) for n in range(50)]
    monkeypatch.setattr(operations.exports, "export_lines", lambda *a, **k: iter(lines))
    monkeypatch.setattr(operations, "_STREAM_BLOCK", 200)
    answer = as_user("alice").get(f"/api/projects/{world.a.pk}/export/", {"export_format": "qa-jsonl"})
    chunks = list(answer.streaming_content)
    assert b"".join(chunks).decode() == "".join(line + "\n" for line in lines)
    assert chunks[0].decode() == lines[0] + "\n"  # the first byte does not wait for a block
    assert all(c.endswith(b"\n") for c in chunks)  # a block holds whole lines
    assert 50 * 12 // 200 <= len(chunks) < 50  # about one write per 200 characters, not one per line


def test_report_is_the_report_service_dict(world, as_user):
    from annotation_tasks.services.reports import build_report

    answer = as_user("alice").get(f"/api/projects/{world.a.pk}/report/")
    assert answer.status_code == 200
    assert answer.json() == json.loads(json.dumps(build_report(world.a)))
    assert as_user("alice").get(f"/api/projects/{world.a.pk}/report/", {"by": "color"}).status_code == 400
    assert as_user("ann").get(f"/api/projects/{world.a.pk}/report/").status_code == 403


def test_export_offers_every_format_the_cli_has():
    from annotation_tasks.api.operations import AGGREGATIONS, EXPORT_FORMATS
    from annotation_tasks.services import exports

    assert set(EXPORT_FORMATS) == {*exports.FORMATS, *exports.DATASET_FORMATS}
    assert tuple(AGGREGATIONS) == tuple(exports.AGGREGATIONS)


def test_export_csv_and_aggregation_match_the_cli(world, as_user, tmp_path):
    client = as_user("alice")
    answer = client.get(f"/api/projects/{world.a.pk}/export/",
                        {"export_format": "qa-jsonl", "file": "csv", "aggregation": "dawid_skene"})
    assert answer.status_code == 200, answer.content
    assert answer["Content-Type"].startswith("text/csv") and 'filename="A.qa-jsonl.csv"' in answer["Content-Disposition"]
    downloaded = b"".join(answer.streaming_content).decode()
    target = tmp_path / "qa.jsonl"
    call_command("export", project="A", fmt="qa-jsonl", output=str(target), csv=True, aggregation="dawid_skene")
    assert downloaded == (tmp_path / "qa.csv").read_bytes().decode() and downloaded.count("\n") > 1


def test_export_dataset_is_a_zip_of_the_folder_the_cli_writes(world, as_user, tmp_path):
    import zipfile

    answer = as_user("alice").get(f"/api/projects/{world.a.pk}/export/", {"export_format": "hf-dataset"})
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
    archive = tmp_path / "d.zip"
    archive.write_bytes(b"".join(answer.streaming_content))
    call_command("export", project="A", fmt="hf-dataset", output=str(tmp_path / "cli"), stderr=io.StringIO())
    expected = sorted(p.relative_to(tmp_path / "cli").as_posix() for p in (tmp_path / "cli").rglob("*") if p.is_file())
    with zipfile.ZipFile(archive) as zipped:
        assert sorted(zipped.namelist()) == expected
        for name in expected:
            assert zipped.read(name) == (tmp_path / "cli" / name).read_bytes(), name


@pytest.mark.parametrize("params, field", [
    ({"export_format": "qa-jsonl", "aggregation": "vote"}, "aggregation"),
    ({"export_format": "qa-jsonl", "file": "xlsx"}, "file"),
    ({"export_format": "qa-jsonl", "with_platform_ids": "maybe"}, "with_platform_ids"),
    ({"export_format": "factscore", "with_platform_ids": "true"}, "with_platform_ids"),
    ({"export_format": "factscore", "no_majority": "true"}, "no_majority"),
    ({"export_format": "campaign-items"}, "export_format"),  # A is not a campaign project
])
def test_export_refuses_bad_parameters_by_name(world, as_user, params, field):
    answer = as_user("alice").get(f"/api/projects/{world.a.pk}/export/", params)
    assert answer.status_code == 400 and field in answer.json(), answer.content
