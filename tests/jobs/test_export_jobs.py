"""Exports as Jobs (issue 25 item 3): the request answers 202 at once, the Job writes the file line by line with
progress, and its download is the same bytes the synchronous export gives; other projects' researchers get 404."""
from __future__ import annotations

import io
import zipfile

import pytest

from annotation_tasks.models import Job, ProjectMembership
from annotation_tasks.services import export_jobs
from tests.api.conftest import client_for
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def users(db):
    from django.contrib.auth import get_user_model

    return {name: get_user_model().objects.create_user(name, password="pw") for name in ("alice", "bob")}


@pytest.fixture
def study(users, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    unit = make_unit("Export study", n_qas=3, n_responses=2)
    ProjectMembership.objects.create(project=unit.project, user=users["alice"],
                                     role=ProjectMembership.Role.RESEARCHER)
    return unit.project


def _run(client, project, body, capture) -> dict:
    with capture(execute=True):
        answer = client.post(f"/api/projects/{project.pk}/export-job/", body, format="json")
    assert answer.status_code == 202, answer.content[:300]
    job = Job.objects.get(pk=answer.json()["id"])
    assert job.kind == Job.Kind.EXPORT and job.status == Job.Status.DONE, job.error
    assert job.done >= job.total > 0
    return client.get(f"/api/jobs/{job.pk}/").json()


@pytest.mark.parametrize("body", [
    {"export_format": "qa-jsonl", "file": "csv"},
    {"export_format": "qa-jsonl"},
    {"export_format": "qasem-release", "file": "csv", "no_majority": True},
])
def test_the_jobs_file_equals_the_synchronous_export(study, users, django_capture_on_commit_callbacks, body):
    client = client_for(users["alice"])
    job = _run(client, study, body, django_capture_on_commit_callbacks)
    got = b"".join(client.get(job["result"]["download"]).streaming_content)
    query = {k: str(v).lower() if isinstance(v, bool) else v for k, v in body.items()}
    direct = client.get(f"/api/projects/{study.pk}/export/", query)
    expected = b"".join(direct.streaming_content)
    assert got == expected and len(got) > 100
    assert job["result"]["bytes"] == len(got)


def test_the_dataset_zip_job(study, users, django_capture_on_commit_callbacks):
    client = client_for(users["alice"])
    job = _run(client, study, {"export_format": "hf-dataset", "file": "csv"}, django_capture_on_commit_callbacks)
    answer = client.get(job["result"]["download"])
    assert answer["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content))).namelist()
    assert "README.md" in names and any(n.endswith(".csv") for n in names)
    assert not list((export_jobs.export_dir() / str(study.pk)).glob("*/dataset"))  # only the zip is kept


def test_others_and_unfinished_jobs_have_no_download(study, users, django_capture_on_commit_callbacks):
    alice = client_for(users["alice"])
    job = _run(alice, study, {"export_format": "qa-jsonl"}, django_capture_on_commit_callbacks)
    assert client_for(users["bob"]).get(job["result"]["download"]).status_code in (403, 404)  # not his project
    queued = Job.objects.create(project=study, kind=Job.Kind.EXPORT, params={"folder": "x"})
    assert alice.get(f"/api/jobs/{queued.pk}/download/").status_code == 404
    parse = Job.objects.create(project=study, kind=Job.Kind.PARSE, status=Job.Status.DONE, result={"file": "x"})
    assert alice.get(f"/api/jobs/{parse.pk}/download/").status_code == 404


def test_bad_export_requests_are_400_before_any_job(study, users):
    alice = client_for(users["alice"])
    for body, field in (({"export_format": "nope"}, "export_format"),
                        ({"export_format": "qa-jsonl", "aggregation": "x"}, "aggregation"),
                        ({"export_format": "factscore", "no_majority": True}, "no_majority")):
        answer = alice.post(f"/api/projects/{study.pk}/export-job/", body, format="json")
        assert answer.status_code == 400 and field in answer.json()
    assert not Job.objects.filter(kind=Job.Kind.EXPORT).exists()
