"""POST /api/projects/<id>/invite-link/: researchers get a signed link; opening it makes an annotator who works."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.test import Client

from annotation_tasks.models import Assignment, ProjectMembership
from annotation_tasks.services.tokens import read_invite_token

pytestmark = pytest.mark.django_db


def test_researcher_gets_an_invite_link_for_their_project(world, as_user):
    r = as_user("alice").post(f"/api/projects/{world.a.pk}/invite-link/")
    assert r.status_code == 200
    url = urlparse(r.json()["url"])
    assert url.scheme == "http" and url.netloc == "testserver"
    assert url.path.startswith("/invite/") and url.path.endswith("/")
    assert read_invite_token(url.path.split("/")[2]) == world.a.pk
    assert r.json()["expires_in_days"] == 30


def test_annotators_and_outsiders_get_no_invite_link(world, as_user):
    assert as_user("ann").post(f"/api/projects/{world.a.pk}/invite-link/").status_code == 403  # member, not researcher
    assert as_user("bob").post(f"/api/projects/{world.a.pk}/invite-link/").status_code == 404  # another project's
    assert Client().post(f"/api/projects/{world.a.pk}/invite-link/").status_code in (401, 403)  # anonymous


def test_the_link_makes_a_new_annotator_who_gets_a_unit(world, as_user):
    path = urlparse(as_user("alice").post(f"/api/projects/{world.a.pk}/invite-link/").json()["url"]).path
    browser = Client()
    assert browser.get(path).status_code == 200  # asks for a name
    r = browser.post(path, {"name": "New Annotator"})
    assert r.status_code == 302 and r["Location"] == f"/annotate/{world.a.pk}/"
    joined = ProjectMembership.objects.filter(project=world.a, role="annotator").exclude(
        user__username__in=["ann", "eve"]
    )
    assert joined.count() == 1 and joined.get().user.username.startswith("annotator-")
    assert browser.get(f"/annotate/{world.a.pk}/").status_code == 200
    r = browser.post("/api/work/next", {"project": world.a.pk}, content_type="application/json")
    assert r.status_code == 200
    assignment = Assignment.objects.get(pk=r.json()["assignment_id"])
    assert assignment.worker.user == joined.get().user and assignment.unit.project == world.a
