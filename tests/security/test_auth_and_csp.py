"""Attacks on sign-in and pages: expiring API tokens, throttled login and token endpoints, a script CSP."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.work.builders import make_unit
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-1")


def test_api_tokens_expire_and_a_new_post_issues_a_fresh_one(alice, settings):
    settings.API_TOKEN_MAX_AGE_HOURS = 2
    api = APIClient()
    issued = api.post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"}).json()
    assert issued["expires_at"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {issued['token']}")
    assert api.get("/api/projects/").status_code == 200
    Token.objects.filter(key=issued["token"]).update(created=timezone.now() - timedelta(hours=3))
    expired = api.get("/api/projects/")
    assert expired.status_code in (401, 403) and "expired" in expired.json()["detail"].lower()
    fresh = APIClient().post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"}).json()
    assert fresh["token"] != issued["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {fresh['token']}")
    assert api.get("/api/projects/").status_code == 200


def test_token_endpoint_is_throttled(alice, settings):
    settings.LOGIN_RATE = "3/min"
    api = APIClient()
    codes = [api.post("/api/auth/token/", {"username": "alice", "password": "wrong"}).status_code for _ in range(4)]
    assert codes == [400, 400, 400, 429]
    # the right password does not get through either until the window passes
    assert api.post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"}).status_code == 429


def test_login_page_is_throttled_after_failed_attempts(alice, settings):
    settings.LOGIN_RATE = "3/min"
    c = Client()
    codes = [c.post("/accounts/login/", {"username": "alice", "password": f"guess{i}"}).status_code for i in range(3)]
    assert codes == [200, 200, 200]  # the form again, with its error
    blocked = c.post("/accounts/login/", {"username": "alice", "password": "pw-alice-1"})
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    cache.clear()
    assert c.post("/accounts/login/", {"username": "alice", "password": "pw-alice-1"}).status_code == 302


def test_successful_logins_are_not_counted(alice, settings):
    settings.LOGIN_RATE = "2/min"
    for _ in range(4):
        c = Client()
        assert c.post("/accounts/login/", {"username": "alice", "password": "pw-alice-1"}).status_code == 302


def csp_of(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part.strip() for part in header.split(";") if part.strip()}


def test_element_page_has_a_script_csp_and_its_inline_script_carries_the_nonce(alice):
    unit = make_unit(n_qas=1)
    membership_user = alice
    from annotation_tasks.models import ProjectMembership

    ProjectMembership.objects.create(project=unit.project, user=membership_user, role="annotator")
    c = Client()
    c.force_login(alice)
    _, token = new_assignment(unit, "w-csp")
    page = c.get(f"/work/{token}/?next=1")
    policy = csp_of(page)
    assert policy["script-src"].startswith("script-src 'self' 'nonce-")
    assert "'unsafe-inline'" not in policy["script-src"] and "object-src" in policy
    assert "frame-ancestors" in policy  # the framing policy is kept beside the script policy
    nonce = re.search(r"'nonce-([^']+)'", policy["script-src"]).group(1)
    html = page.content.decode()
    for tag in re.findall(r"<script\b[^>]*>", html):
        assert 'src="' in tag or f'nonce="{nonce}"' in tag or 'type="application/json"' in tag, tag
    queue = c.get(f"/annotate/{unit.project_id}/")
    assert queue.status_code == 200
    nonce = re.search(r"'nonce-([^']+)'", csp_of(queue)["script-src"]).group(1)
    assert f'<script nonce="{nonce}">' in queue.content.decode()
    assert c.get(f"/annotate/{unit.project_id}/")["Content-Security-Policy"] != queue["Content-Security-Policy"]


def test_dashboard_and_login_pages_have_the_script_csp(alice):
    c = Client()
    assert csp_of(c.get("/accounts/login/"))["script-src"].startswith("script-src 'self'")
    c.force_login(alice)
    dashboard = c.get("/")
    assert dashboard.status_code == 200 and "script-src" in csp_of(dashboard)
    assert "Content-Security-Policy" not in c.get("/api/projects/")  # JSON needs none
