"""A project keeps at least one researcher: demoting the last one (herself included) is a 400 on `role`.

Without a researcher every researcher action on the project is a 403 and only a superuser could undo it. Uses
the two-project world of tests/api/conftest.py: alice is project A's only researcher, ann and eve annotate it."""
from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotation_tasks.models import Project, ProjectMembership
from annotation_tasks.services import projects
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db


def members_url(project) -> str:
    return f"/api/projects/{project.pk}/members/"


def roles(project) -> dict[str, str]:
    return dict(project.memberships.values_list("user__username", "role"))


def assert_refused_on_role(response) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert list(body) == ["role"] and "at least one researcher" in body["role"][0], body


def test_the_only_researcher_cannot_demote_herself(world, as_user):
    alice = as_user("alice")
    before = roles(world.a)
    r = alice.post(members_url(world.a), {"username": "alice", "role": "annotator"}, format="json")
    assert_refused_on_role(r)
    assert roles(world.a) == before  # nothing written
    # still the project's researcher: her actions on it keep working
    assert alice.get(f"/api/projects/{world.a.pk}/overview/").status_code == 200
    assert alice.patch(f"/api/projects/{world.a.pk}/", {"description": "still mine"}, format="json").status_code == 200


def test_a_superuser_cannot_demote_the_last_researcher_either(world, users):
    admin = get_user_model().objects.create_superuser("root", password="pw")
    r = client_for(admin).post(members_url(world.a), {"username": "alice", "role": "annotator"}, format="json")
    assert_refused_on_role(r)
    assert roles(world.a)["alice"] == "researcher"


def test_demoting_oneself_while_another_researcher_remains_is_allowed(world, as_user):
    alice = as_user("alice")
    promoted = alice.post(members_url(world.a), {"username": "ann", "role": "researcher"}, format="json")
    assert promoted.status_code == 201, promoted.content
    demoted = alice.post(members_url(world.a), {"username": "alice", "role": "annotator"}, format="json")
    assert demoted.status_code == 201, demoted.content
    assert {m["username"]: m["role"] for m in demoted.json()} == {"alice": "annotator", "ann": "researcher",
                                                                   "eve": "annotator"}
    ann = as_user("ann")
    assert ann.get(f"/api/projects/{world.a.pk}/overview/").status_code == 200
    # ann is now the only one: she cannot leave the project without a researcher either
    assert_refused_on_role(ann.post(members_url(world.a), {"username": "ann", "role": "annotator"}, format="json"))
    assert roles(world.a)["ann"] == "researcher"


def test_other_member_changes_still_work(world, as_user):
    alice = as_user("alice")
    same = alice.post(members_url(world.a), {"username": "alice", "role": "researcher"}, format="json")
    assert same.status_code == 201  # the last researcher staying one changes nothing
    added = alice.post(members_url(world.a), {"username": "nobody", "role": "annotator"}, format="json")
    assert added.status_code == 201 and roles(world.a)["nobody"] == "annotator"
    changed = alice.post(members_url(world.a), {"username": "eve", "role": "researcher"}, format="json")
    assert changed.status_code == 201 and roles(world.a)["eve"] == "researcher"
    back = alice.post(members_url(world.a), {"username": "eve", "role": "annotator"}, format="json")
    assert back.status_code == 201 and roles(world.a)["eve"] == "annotator"
    # project B's researcher is another project's business
    assert roles(world.b) == {"bob": "researcher"}


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_project_command_refuses_it_too(world):
    with pytest.raises(CommandError, match=r"--role: .*needs at least one researcher"):
        run("project", "add-member", "A", "alice", "--role", "annotator")
    assert roles(world.a)["alice"] == "researcher"
    run("project", "add-member", "A", "eve", "--role", "researcher")
    assert "alice is annotator" in run("project", "add-member", "A", "alice", "--role", "annotator")
    assert roles(world.a) == {"alice": "annotator", "ann": "annotator", "eve": "researcher"}


def test_a_project_without_researchers_still_takes_members(users):
    """An import without an owner makes a project nobody researches yet: adding people to it is no demotion."""
    bare = Project.objects.create(name="imported")
    run("project", "add-member", "imported", "ann", "--role", "annotator")
    run("project", "add-member", "imported", "ann", "--role", "annotator")
    assert roles(bare) == {"ann": "annotator"}
    membership = projects.add_member(bare, users["alice"])
    assert membership.role == ProjectMembership.Role.RESEARCHER
    with pytest.raises(projects.LastResearcher) as refused:
        projects.add_member(bare, users["alice"], ProjectMembership.Role.ANNOTATOR)
    assert refused.value.field == "role" and "'imported' needs at least one researcher" in refused.value.message
