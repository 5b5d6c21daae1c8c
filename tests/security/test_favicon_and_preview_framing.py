"""Issue 23 item 13: /favicon.ico answers with an icon (no 404 on every page), and the dashboard's unit preview,
which needs a login, can be framed by our own pages only, never by a crowd platform."""
from __future__ import annotations

import pytest
from django.test import Client

from annotation_tasks.models import Project, ProjectMembership
from tests.api.conftest import _content

pytestmark = pytest.mark.django_db


def test_favicon_is_an_icon_for_anyone() -> None:
    answer = Client().get("/favicon.ico")
    assert answer.status_code == 200 and answer["Content-Type"] == "image/x-icon"
    assert answer.content[:4] == b"\x00\x00\x01\x00" and len(answer.content) < 4096  # an ICO header, small
    assert "max-age" in answer["Cache-Control"]


def test_unit_preview_is_framed_by_our_own_pages_only(django_user_model, settings) -> None:
    assert settings.FRAME_ANCESTORS  # the platforms may frame the unit pages...
    researcher = django_user_model.objects.create_user("alice", password="pw")
    project = Project.objects.create(name="A")
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    response, *_ = _content(project, "a")
    from annotation_tasks.models import Batch, Unit

    unit = Unit.objects.create(project=project, batch=Batch.objects.create(project=project, name="b"),
                               source=response.source)
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/preview/unit/{unit.pk}/")
    assert page.status_code == 200
    assert page["X-Frame-Options"] == "SAMEORIGIN"
    policy = page["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in policy
    platforms = [o for o in settings.FRAME_ANCESTORS if o.startswith("http")]
    assert platforms and not any(o in policy for o in platforms)  # ...but not this page, which needs a login
