"""Two POST /api/projects/ with one name at once (a double click on "Create project"): both can pass the
serializer's "already exists" check before either inserts, and the second insert then breaks the unique constraint
on the name. That is the same 400 on `name` as the check's own, not a 500 (IntegrityError), and one project is made.

The race is simulated by letting the second request's check pass (UniqueValidator patched to see nothing), so its
insert meets the first request's row, as it would have under two concurrent requests."""
from __future__ import annotations

from unittest import mock

import pytest
from rest_framework.validators import UniqueValidator

from annotation_tasks.models import Project, ProjectMembership

pytestmark = pytest.mark.django_db

BODY = {"name": "Twice", "protocol": ["qa_support"], "annotations_per_item": 3}


def test_a_name_taken_between_check_and_insert_is_the_checks_400_on_name(world, as_user):
    alice = as_user("alice")
    first = alice.post("/api/projects/", BODY, format="json")
    assert first.status_code == 201, first.content
    checked = alice.post("/api/projects/", BODY, format="json")  # the check sees the first one: its own 400
    assert checked.status_code == 400, checked.content

    with mock.patch.object(UniqueValidator, "__call__", lambda self, value, field: None):
        raced = alice.post("/api/projects/", BODY, format="json")  # the check passes: the insert fails

    assert raced.status_code == 400, raced.content
    assert raced.json() == checked.json() == {"name": ["project with this name already exists."]}
    assert Project.objects.filter(name="Twice").count() == 1
    project = Project.objects.get(name="Twice")
    assert list(project.memberships.values_list("user__username", "role")) == [
        ("alice", ProjectMembership.Role.RESEARCHER)]
    # the failed insert left no broken transaction behind: the same client goes on reading and writing
    assert alice.get(f"/api/projects/{project.pk}/").status_code == 200
    again = alice.post("/api/projects/", {**BODY, "name": "Twice 2"}, format="json")
    assert again.status_code == 201, again.content


def test_another_integrity_error_is_not_reported_as_a_taken_name(world, as_user):
    """Only a name that exists is a 400 on `name`; any other constraint still fails loudly."""
    from django.db import IntegrityError

    alice = as_user("alice")
    with mock.patch.object(ProjectMembership.objects, "create", side_effect=IntegrityError("other constraint")):
        with pytest.raises(IntegrityError):
            alice.post("/api/projects/", {**BODY, "name": "Other"}, format="json")
    assert not Project.objects.filter(name="Other").exists()  # rolled back with the membership
