"""Issue 23 item 7: rate limits believe X-Forwarded-For only from configured proxies; API tokens end when the
password changes; an invite opened by a signed-in user asks before joining; a weak SECRET_KEY stops the start."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client, RequestFactory
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation_tasks.client_address import client_address
from annotation_tasks.models import Project, ProjectMembership
from annotation_tasks.services.tokens import invite_token
from tests.security.test_production_settings import SETUP, run_django

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice", password="pw-alice-1")


def test_thirty_wrong_passwords_with_made_up_headers_get_429_on_the_token_endpoint(alice, settings):
    assert settings.LOGIN_RATE == "10/min" and not settings.TRUSTED_PROXIES and not settings.NUM_PROXIES
    api = APIClient()
    codes = [api.post("/api/auth/token/", {"username": "alice", "password": f"guess{i}"},
                      HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code for i in range(30)]
    assert codes[:10] == [400] * 10 and set(codes[10:]) == {429}
    right = api.post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"},
                     HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert right.status_code == 429 and "token" not in right.json()


def test_thirty_wrong_passwords_with_made_up_headers_get_429_on_the_login_page(alice):
    c = Client()
    codes = [c.post("/accounts/login/", {"username": "alice", "password": f"guess{i}"},
                    HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code for i in range(30)]
    assert codes[:10] == [200] * 10 and set(codes[10:]) == {429}
    right = c.post("/accounts/login/", {"username": "alice", "password": "pw-alice-1"},
                   HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert right.status_code == 429


@pytest.mark.parametrize(("trusted", "num", "remote", "header", "expected"), [
    ([], 0, "192.0.2.1", "203.0.113.9", "192.0.2.1"),  # no proxy configured: the header is ignored
    (["10.0.0.0/8"], 0, "192.0.2.1", "203.0.113.9", "192.0.2.1"),  # not from the proxy: ignored
    (["10.0.0.0/8"], 0, "10.0.0.2", "203.0.113.9", "203.0.113.9"),
    (["10.0.0.0/8"], 0, "10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.3", "203.0.113.9"),  # spoofed left part skipped
    (["10.0.0.0/8"], 0, "10.0.0.2", "not-an-ip", "10.0.0.2"),
    (["10.0.0.0/8", "::1"], 0, "::1", "2001:db8::5", "2001:db8::5"),
    ([], 1, "10.0.0.2", "6.6.6.6, 203.0.113.9", "203.0.113.9"),  # one proxy: the address it appended
    ([], 2, "10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.3", "203.0.113.9"),
    ([], 1, "10.0.0.2", "", "10.0.0.2"),
])
def test_client_address(settings, trusted, num, remote, header, expected):
    settings.TRUSTED_PROXIES, settings.NUM_PROXIES = trusted, num
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=header)
    assert client_address(request) == expected


def test_behind_a_trusted_proxy_clients_are_counted_apart(alice, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    settings.LOGIN_RATE = "3/min"
    api = APIClient()

    def attempt(client_ip: str) -> int:
        return api.post("/api/auth/token/", {"username": "alice", "password": "x"}, REMOTE_ADDR="127.0.0.1",
                        HTTP_X_FORWARDED_FOR=client_ip).status_code

    assert [attempt("203.0.113.1") for _ in range(4)] == [400, 400, 400, 429]
    assert attempt("203.0.113.2") == 400


def test_api_tokens_end_when_the_password_changes(alice):
    api = APIClient()
    key = api.post("/api/auth/token/", {"username": "alice", "password": "pw-alice-1"}).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/projects/").status_code == 200
    alice.last_name = "Lovelace"
    alice.save()  # a save that keeps the password keeps the token
    alice.save(update_fields=["last_login"])
    assert api.get("/api/projects/").status_code == 200
    alice.set_password("pw-alice-2")
    alice.save()
    assert not Token.objects.filter(key=key).exists()
    assert api.get("/api/projects/").status_code in (401, 403)
    fresh = APIClient().post("/api/auth/token/", {"username": "alice", "password": "pw-alice-2"}).json()["token"]
    assert fresh != key


def test_changepassword_through_the_password_form_ends_tokens(alice):
    key = Token.objects.create(user=alice).key
    c = Client()
    c.force_login(alice)
    from django.contrib.auth.forms import SetPasswordForm

    form = SetPasswordForm(alice, {"new_password1": "An0ther-long-pass", "new_password2": "An0ther-long-pass"})
    assert form.is_valid(), form.errors
    form.save()
    assert not Token.objects.filter(key=key).exists()


def test_an_invite_opened_while_signed_in_asks_before_joining(alice):
    project = Project.objects.create(name="Stranger's study")
    browser = Client()
    browser.force_login(alice)
    path = f"/invite/{invite_token(project)}/"
    asked = browser.get(path)
    assert asked.status_code == 200 and b"invite-confirm" in asked.content and b"alice" in asked.content
    assert not ProjectMembership.objects.filter(project=project, user=alice).exists()
    joined = browser.post(path)
    assert joined.status_code == 302 and joined["Location"] == f"/annotate/{project.pk}/"
    assert ProjectMembership.objects.get(project=project, user=alice).role == "annotator"
    again = browser.get(path)  # a member goes straight to work
    assert again.status_code == 302 and again["Location"] == f"/annotate/{project.pk}/"


def test_the_invite_confirmation_needs_the_csrf_token(alice):
    project = Project.objects.create(name="Stranger's study")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    assert browser.post(f"/invite/{invite_token(project)}/").status_code == 403
    assert not ProjectMembership.objects.filter(project=project, user=alice).exists()


@pytest.mark.parametrize("key", ["short-key", "x" * 60, "abcd" * 20, "django-insecure-" + "q1w2e3r4t5y6" * 5])
def test_a_weak_secret_key_is_refused_outside_debug(tmp_path, key):
    refused = run_django(SETUP, {"DEBUG": "false", "SECRET_KEY": key}, tmp_path)
    assert refused.returncode != 0 and "SECRET_KEY is too weak" in refused.stderr and "W009" in refused.stderr
    assert run_django(SETUP, {"DEBUG": "true", "SECRET_KEY": key}, tmp_path).returncode == 0
