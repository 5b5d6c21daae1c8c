"""Issue 23 item 13: the Exports tab's "Campaign items" buttons answered 400 on every project that is not a label
campaign. GET projects/<id>/export-formats/ names the formats with nothing to export (and why); the tab shows
that reason instead of the buttons. Every other format downloads."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotation_tasks.models import Project, ProjectMembership
from tests.campaigns.helpers import write_csv

pytestmark = pytest.mark.django_db
FORMATS = ["qasem-release", "qa-jsonl", "factscore", "campaign-items", "hf-dataset"]


def _codes(client, project: Project) -> dict[str, int]:
    return {fmt: client.get(f"/api/projects/{project.pk}/export/", {"export_format": fmt}).status_code
            for fmt in FORMATS}


def test_every_format_offered_downloads_and_every_one_withheld_says_why(world, as_user, tmp_path, users):
    alice = as_user("alice")
    call_command("import_labels", str(write_csv(tmp_path / "l.csv", [
        {"item_id": f"i{i}", "worker_id": f"w{k}", "label": "yes"} for i in range(3) for k in range(2)])),
        "--project", "camp", "--owner", "alice", stdout=io.StringIO())
    empty = Project.objects.create(name="empty")
    ProjectMembership.objects.create(project=empty, user=users["alice"], role=ProjectMembership.Role.RESEARCHER)
    for project in (world.a, Project.objects.get(name="camp"), empty):
        answer = alice.get(f"/api/projects/{project.pk}/export-formats/")
        assert answer.status_code == 200
        unavailable = answer.json()["unavailable"]
        assert set(unavailable) <= set(FORMATS) and all(unavailable.values())
        codes = _codes(alice, project)
        assert {f for f, code in codes.items() if code != 200} == set(unavailable), (project.name, codes)
    assert "campaign-items" in alice.get(f"/api/projects/{world.a.pk}/export-formats/").json()["unavailable"]


def test_export_formats_is_for_the_projects_researchers(world, as_user):
    assert as_user("ann").get(f"/api/projects/{world.a.pk}/export-formats/").status_code == 403
    assert as_user("bob").get(f"/api/projects/{world.a.pk}/export-formats/").status_code == 404


def test_the_exports_tab_reads_the_reason(settings):
    from pathlib import Path

    vue = (Path(settings.BASE_DIR) / "frontend/src/dashboard/views/Exports.vue").read_text(encoding="utf-8")
    assert "export-formats/" in vue and "unavailable[e.value]" in vue
