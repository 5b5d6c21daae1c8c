"""The dashboard pages: login required, and the unit preview only for the project's researchers."""
import json
import re

import pytest
from django.test import Client

from annotation_tasks.pages import UNIT_DATA_ID

pytestmark = pytest.mark.django_db


def test_dashboard_needs_login_and_sets_csrf(world, users):
    anonymous = Client()
    answer = anonymous.get("/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/?next=/")
    client = Client()
    client.force_login(users["alice"])
    page = client.get("/")
    assert page.status_code == 200 and b"factcrowd-dashboard" in page.content and b"dashboard.js" in page.content
    assert "csrftoken" in page.cookies


def test_login_lands_on_the_dashboard(world, users):
    client = Client()
    answer = client.post("/accounts/login/", {"username": "alice", "password": "pw"})
    assert answer.status_code == 302 and answer["Location"] == "/"


def test_unit_preview_is_for_the_projects_researchers(world, users):
    url = f"/preview/unit/{world.unit_a.pk}/"
    assert Client().get(url).status_code == 302  # to the login page
    for name, expected in (("alice", 200), ("bob", 404), ("ann", 404)):
        client = Client()
        client.force_login(users[name])
        answer = client.get(url)
        assert answer.status_code == expected, name
    client = Client()
    client.force_login(users["alice"])
    page = client.get(url)
    assert b'preview="true"' in page.content and b"factcrowd-annotator" in page.content
    assert "frame-ancestors" in page.get("Content-Security-Policy", "")
    assert b"gold" not in page.content


def test_unit_preview_api_gives_payload_without_gold(world, as_user):
    body = as_user("alice").get(f"/api/units/{world.unit_a.pk}/preview/").json()
    assert body["preview_url"] == f"/preview/unit/{world.unit_a.pk}/"
    assert body["payload"]["assignment"]["preview"] is True
    assert "gold" not in str(body) and "sys-a" not in str(body)


def test_unit_preview_embeds_the_preview_payload(world, users, as_user):
    client = Client()
    client.force_login(users["alice"])
    page = client.get(f"/preview/unit/{world.unit_a.pk}/")
    html = page.content.decode()
    assert f'unit-data-id="{UNIT_DATA_ID}"' in html
    found = re.findall(rf'<script id="{UNIT_DATA_ID}" type="application/json">(.*?)</script>', html, flags=re.S)
    assert len(found) == 1
    assert json.loads(found[0]) == as_user("alice").get(f"/api/units/{world.unit_a.pk}/preview/").json()["payload"]
    assert "no-cache" in page.get("Cache-Control", "")
