"""The protocols' manifest (GET /api/protocols/, manage.py protocols --json): read from each protocol's own
declarations, the same JSON both ways, and the project step list checked against it."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation_tasks.models import Project, ProjectMembership, Unit
from annotation_tasks.protocols import available_protocols, get_protocol, label_order, mode_for_steps
from annotation_tasks.protocols.base import Vocabulary
from annotation_tasks.services import exports, uploads
from annotation_tasks.services.units import crowd_mode

pytestmark = pytest.mark.django_db


@pytest.fixture
def researcher() -> APIClient:
    user = User.objects.create_user("res", password="pw")
    project = Project.objects.create(name="Mine", protocol=["span_coverage", "qa_support"])
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(user)
    return client


def _command_json(*args: str) -> dict:
    out = io.StringIO()
    call_command("protocols", "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def test_api_and_command_print_the_same_manifest(researcher, tmp_path) -> None:
    served = researcher.get("/api/protocols/")
    assert served.status_code == 200
    assert served.json() == _command_json()
    written = tmp_path / "generated" / "manifest.json"
    call_command("protocols", "-o", str(written), stdout=io.StringIO())
    assert json.loads(written.read_text()) == served.json()


def test_the_manifest_is_each_protocols_declarations() -> None:
    data = _command_json()
    assert [p["name"] for p in data["protocols"]] == available_protocols()
    for entry in data["protocols"]:
        protocol = get_protocol(entry["mode"])
        assert entry["plan_kinds"] == list(protocol.plan_kinds) and entry["plan_kinds"]
        assert [s["value"] for s in entry["steps"]] == [s.value for s in protocol.steps]
        assert entry["expert_step"] is protocol.expert_step
        assert entry["guide"] == protocol.guide and entry["guide"].strip()
        for level in entry["label_levels"]:
            assert tuple(level["labels"]) == label_order()[level["name"]]
            assert list(level["display"]) == level["labels"]  # every label has its display name, in order
            assert level["item_type"] in {"span", "qa", "fact", "unit"}
        assert {k["command"] for k in entry["keys"]} >= {lab for lv in entry["label_levels"] for lab in lv["labels"]}
    steps = [s["value"] for s in data["steps"]]
    assert len(steps) == len(set(steps))
    assert steps == [s["value"] for p in sorted(data["protocols"], key=lambda p: not p["expert_step"]) for s in p["steps"]]
    assert {m["value"] for m in data["modes"]} == set(available_protocols()) <= set(Unit.Mode.values)
    assert [i["value"] for i in data["importers"]] == list(uploads.FORMATS)
    assert {e["value"] for e in data["exports"]} == {*exports.FORMATS, *exports.DATASET_FORMATS}


def test_the_manifest_is_for_researchers_only(researcher) -> None:
    annotator = User.objects.create_user("ann", password="pw")
    client = APIClient()
    assert client.get("/api/protocols/").status_code in (401, 403)
    client.force_authenticate(annotator)
    assert client.get("/api/protocols/").status_code == 403


def test_the_mode_of_a_project_comes_from_the_protocols_steps() -> None:
    for protocol in map(get_protocol, available_protocols()):
        if protocol.expert_step:
            continue
        for step in protocol.steps:
            assert mode_for_steps([step.value]) == protocol.mode
            assert crowd_mode(Project(name="x", protocol=["qa_validation", step.value])) == protocol.mode
    assert mode_for_steps([]) == mode_for_steps(["qa_validation"]) == Unit.Mode.QASEM


def test_a_level_two_protocols_share_must_have_one_vocabulary(monkeypatch) -> None:
    ragas = type(get_protocol("ragas"))
    monkeypatch.setattr(ragas, "review_levels", (Vocabulary(name="pairwise", item_type="unit", labels=("1", "2")),))
    label_order.cache_clear()
    try:
        with pytest.raises(ValueError, match="pairwise"):
            label_order()
    finally:
        monkeypatch.undo()
        label_order.cache_clear()


def test_a_ragas_project_keeps_its_step_and_a_mixed_or_unknown_step_list_is_refused_where_it_is(researcher) -> None:
    created = researcher.post("/api/projects/", {"name": "WikiEval", "protocol": ["ragas_pairwise"]}, format="json")
    assert created.status_code == 201, created.json()
    pid = created.json()["id"]
    saved = researcher.patch(f"/api/projects/{pid}/", {"protocol": ["ragas_pairwise"], "instructions": "x"},
                             format="json")
    assert saved.status_code == 200 and saved.json()["protocol"] == ["ragas_pairwise"]
    assert crowd_mode(Project.objects.get(pk=pid)) == Unit.Mode.RAGAS
    # what the dashboard's old form sent after a tick: a QASem step beside the ragas one
    mixed = researcher.patch(f"/api/projects/{pid}/", {"protocol": ["ragas_pairwise", "pairwise"]}, format="json")
    assert mixed.status_code == 400
    assert "ragas" in mixed.json()["protocol"]["1"][0]
    assert Project.objects.get(pk=pid).protocol == ["ragas_pairwise"]
    unknown = researcher.patch(f"/api/projects/{pid}/", {"protocol": ["ragas_pairwise", "nope"]}, format="json")
    assert unknown.status_code == 400 and "1" in unknown.json()["protocol"]


def test_the_dashboards_manifest_fixture_is_the_servers() -> None:
    """frontend/tests/fixtures/manifest.json is what the dashboard's Vitest suites read; a protocol change must
    rewrite it: .venv/bin/python manage.py protocols -o frontend/tests/fixtures/manifest.json"""
    fixture = Path(settings.BASE_DIR) / "frontend" / "tests" / "fixtures" / "manifest.json"
    assert json.loads(fixture.read_text(encoding="utf-8")) == _command_json(), (
        "stale fixture: run .venv/bin/python manage.py protocols -o frontend/tests/fixtures/manifest.json")


def test_each_mode_with_a_folder_is_a_protocol_and_a_mode_without_one_is_none() -> None:
    from annotation_tasks.protocols import registry

    assert available_protocols() == [m for m in Unit.Mode.values if registry._packaged(m)] == list(Unit.Mode.values)
    assert not registry._packaged("no_such_protocol")  # a Unit.Mode value added before its folder serves nothing
    for mode in available_protocols():
        assert type(get_protocol(mode)).__module__ == f"annotation_tasks.protocols.{mode}.protocol"
