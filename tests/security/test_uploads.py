"""Uploaded files: no server path reaches an API client, and the file is removed once its import ended."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation_tasks.models import Job
from tests.api.conftest import as_user, users, world  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

GOOD = json.dumps({"source_id": "s1", "source": "Rain fell.", "system": "m1", "response": "It rained."}) + "\n"
BAD = json.dumps({"source_id": "s2", "source": "Rain fell.", "system": "m1", "response": 5}) + "\n"


def upload(client, project_id: int, name: str, content: str):
    file = SimpleUploadedFile(name, content.encode(), content_type="application/octet-stream")
    return client.post(f"/api/projects/{project_id}/upload/", {"file": file}, format="multipart")


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


@pytest.mark.parametrize(("content", "status"), [(GOOD, "done"), (BAD, "failed")])
def test_no_server_path_in_job_answers_and_the_upload_is_removed(world, as_user, tmp_path, settings,  # noqa: F811
                                                                 django_capture_on_commit_callbacks, content, status):
    settings.VAR_DIR = tmp_path
    client = as_user("alice")
    with django_capture_on_commit_callbacks(execute=True):
        started = upload(client, world.a.pk, "items.jsonl", content)
    assert started.status_code == 202
    answers = [started.content.decode(), client.get(f"/api/jobs/{started.json()['id']}/").content.decode(),
               client.get("/api/jobs/", {"project": world.a.pk}).content.decode()]
    for text in answers:
        assert str(tmp_path) not in text and "/uploads/" not in text
    job = Job.objects.get(pk=started.json()["id"])
    assert job.status == status
    assert files_under(tmp_path / "uploads") == []  # removed after success and after failure


def test_a_stalled_import_keeps_its_file_for_the_resume(world, tmp_path, settings):  # noqa: F811
    from annotation_tasks.services import uploads

    settings.VAR_DIR = tmp_path
    settings.CELERY_TASK_ALWAYS_EAGER = False  # queue only: the job has not run (as with a dead worker)
    from backend.celery_app import app

    app.conf.task_always_eager = False
    try:
        job = uploads.start_import_job(world.a, SimpleUploadedFile("items.jsonl", GOOD.encode()), "items")
    finally:
        app.conf.task_always_eager = True
    assert [p.name for p in files_under(tmp_path / "uploads")] == ["items.jsonl"]
    assert "path" not in job.params
    done = uploads.run_import_job(job.pk)
    assert done.status == Job.Status.DONE and files_under(tmp_path / "uploads") == []


def test_older_import_jobs_with_a_server_path_do_not_show_it(world, as_user):  # noqa: F811
    job = Job.objects.create(project=world.a, kind=Job.Kind.IMPORT, status=Job.Status.DONE,
                             params={"file": "items.jsonl", "path": "/srv/factcrowd/var/uploads/1/abc/items.jsonl",
                                     "format": "items", "system": ""})
    answer = as_user("alice").get(f"/api/jobs/{job.pk}/").json()
    assert answer["params"] == {"file": "items.jsonl", "format": "items", "system": ""}
