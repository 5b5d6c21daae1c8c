"""`project` command and the imports' --owner: a project made on the command line shows in its owner's dashboard."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation_tasks.models import Project, ProjectMembership
from tests.api.conftest import client_for
from tests.importers.helpers import release_line, write_jsonl

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def release(tmp_path):
    return str(write_jsonl(tmp_path / "r.jsonl", [release_line(1, "a"), release_line(1, "b")]))


def dashboard_names(user) -> list[str]:
    return [p["name"] for p in client_for(user).get("/api/projects/").json()["results"]]


def test_import_with_owner_is_in_the_owners_dashboard_only(release):
    User = get_user_model()
    rosa, tim = User.objects.create_user("rosa"), User.objects.create_user("tim")
    run("import_qasem_release", release, "--project", "cli-made", "--owner", "rosa")
    assert ProjectMembership.objects.get(project__name="cli-made").user == rosa
    assert "cli-made" in dashboard_names(rosa) and "cli-made" not in dashboard_names(tim)


def test_import_without_owner_takes_the_only_researcher_or_says_what_to_pass(release):
    User = get_user_model()
    _, note = run("import_qasem_release", release, "--project", "nobody")
    assert "no researcher" in note and "project add-member nobody" in note  # a fresh install: import, then own it
    admin = User.objects.create_superuser("admin", password="pw")
    run("import_qasem_release", release, "--project", "mine")
    assert ProjectMembership.objects.get(project__name="mine").user == admin
    ProjectMembership.objects.create(project=Project.objects.get(name="mine"), user=User.objects.create_user("r2"),
                                     role="researcher")
    run("import_qasem_release", release, "--project", "mine")  # the project has researchers: nothing to choose
    with pytest.raises(CommandError, match=r"several researchers \(admin, r2\).*--owner"):
        run("import_qasem_release", release, "--project", "another")
    assert not Project.objects.filter(name="another").exists()  # nothing imported
    with pytest.raises(CommandError, match="--owner: no active user named 'ghost'"):
        run("import_qasem_release", release, "--project", "another", "--owner", "ghost")


def test_project_create_show_set_protocol_add_member():
    User = get_user_model()
    rosa = User.objects.create_user("rosa")
    User.objects.create_user("ann")
    out, _ = run("project", "create", "study", "--owner", "rosa", "--protocol", "span_coverage,qa_support")
    assert "protocol: span_coverage, qa_support" in out and "rosa (researcher)" in out
    assert "study" in dashboard_names(rosa)
    run("project", "set-protocol", "study", "fact_labeling")
    run("project", "add-member", "study", "ann", "--role", "annotator")
    shown = json.loads(run("project", "show", "study", "--json")[0])
    assert shown["protocol"] == ["fact_labeling"]
    assert shown["members"] == [{"username": "ann", "role": "annotator"}, {"username": "rosa", "role": "researcher"}]
    run("project", "add-member", "study", "ann", "--role", "researcher")  # changes the role, no second row
    assert ProjectMembership.objects.get(project__name="study", user__username="ann").role == "researcher"
    for args, message in [
        (("create", "study", "--owner", "rosa"), "exists"),
        (("create", "x", "--owner", "rosa", "--protocol", "span_coverage,nope"), "unknown step 'nope'"),
        (("create", "x", "--owner", "rosa", "--protocol", "qa_support,qa_support"), "twice"),
        (("set-protocol", "missing", "qa_support"), "no project named 'missing'"),
        (("add-member", "study", "ghost"), "USER: no active user named 'ghost'"),
    ]:
        with pytest.raises(CommandError, match=message):
            run("project", *args)
    assert not Project.objects.filter(name="x").exists()
