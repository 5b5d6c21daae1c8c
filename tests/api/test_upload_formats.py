"""Every format of the import registry (importers/registry.py) is uploadable from the dashboard: the upload
serializer, the upload job and the manifest's upload form read the same registry. WikiEval, long-form labels and
atomic facts were CLI-only before (the upload answered 400 for them)."""
from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.models import AtomicFact, CampaignLabel, Project, Response
from annotation_tasks.services.manifest import manifest
from tests.api.test_operations import upload

pytestmark = pytest.mark.django_db

ITEMS = "\n".join(json.dumps(r) for r in [
    {"source_id": "s1", "source": "Anna visited Paris.", "system": "m1", "response": "Anna went to Paris."},
]) + "\n"
WIKIEVAL = json.dumps({"question": "Where did Anna go?", "context_v1": "Anna visited Paris in 2023.",
                       "context_v2": "Paris is in France.", "answer": "Paris.", "ungrounded_answer": "Rome.",
                       "poor_answer": "Travel is fun."}) + "\n"
FACTS = json.dumps({"source_id": "s1", "system": "m1", "sentence_index": 0,
                    "facts": ["Anna went somewhere.", "Anna went to Paris."]}) + "\n"
LABELS = "item_id,worker_id,label,dataset\ni1,w1,yes,d\ni1,w2,no,d\ni2,w1,yes,d\n"


@pytest.fixture
def run(as_user, tmp_path, settings, django_capture_on_commit_callbacks):
    settings.VAR_DIR = tmp_path
    client = as_user("alice")

    def go(project_name: str, name: str, content: str, fmt: str) -> dict:
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            made = client.post("/api/projects/", {"name": project_name, "protocol": ["span_coverage"]}, format="json")
            assert made.status_code == 201, made.json()
            project = Project.objects.get(pk=made.json()["id"])
        with django_capture_on_commit_callbacks(execute=True):
            answer = upload(client, project.pk, name, content, fmt)
        assert answer.status_code == 202, answer.json()
        job = client.get(f"/api/jobs/{answer.json()['id']}/").json()
        assert job["status"] == "done", job
        return job

    return go


def test_the_registry_is_what_the_serializer_job_and_manifest_offer() -> None:
    from annotation_tasks.api.serializers import UploadSerializer
    from annotation_tasks.services import uploads

    assert list(uploads.FORMATS) == list(IMPORTERS)
    assert set(UploadSerializer().fields["format"].choices) == {"", *IMPORTERS}
    offered = manifest()["importers"]
    assert [i["value"] for i in offered] == list(IMPORTERS)
    assert {"wikieval", "labels-long", "atomic-facts"} <= {i["value"] for i in offered}
    assert next(i for i in offered if i["value"] == "wikieval")["steps"] == ["ragas_pairwise"]


def test_wikieval_uploads_from_the_dashboard(world, run) -> None:
    run("Wiki", "wikieval.jsonl", WIKIEVAL, "wikieval")
    systems = set(Response.objects.filter(project__name="Wiki").values_list("system", flat=True))
    assert systems == {"answer", "ungrounded_answer", "poor_answer"}


def test_atomic_facts_upload_onto_the_projects_responses(world, run) -> None:
    run("Facts", "items.jsonl", ITEMS, "items")
    run("Facts", "facts.jsonl", FACTS, "atomic-facts")
    assert sorted(AtomicFact.objects.filter(response__project__name="Facts").values_list("text", flat=True)) == [
        "Anna went somewhere.", "Anna went to Paris."]


def test_long_form_labels_upload(world, run) -> None:
    run("Campaign", "labels.csv", LABELS, "labels-long")
    assert CampaignLabel.objects.filter(project__name="Campaign").count() == 3


def test_the_cli_runs_every_registry_format(world, tmp_path) -> None:
    path = tmp_path / "wikieval.jsonl"
    path.write_text(WIKIEVAL, encoding="utf-8")
    call_command("import_file", str(path), "--format", "wikieval", "--project", "Wiki CLI", "--owner", "alice")
    assert Response.objects.filter(project__name="Wiki CLI").count() == 3
    assert Project.objects.get(name="Wiki CLI").protocol == ["ragas_pairwise"]
