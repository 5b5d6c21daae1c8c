"""Production settings: no start without a real SECRET_KEY outside DEBUG, and `check --deploy` passes with the
environment docker/compose.yml gives the app (secure cookies, HSTS, SSL redirect behind the proxy header)."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]


def run_django(code_or_args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    """A fresh Python process with exactly the settings environment given (plus PATH), from the repo root."""
    base = {"PATH": os.environ.get("PATH", ""), "FACTCROWD_VAR_DIR": str(tmp_path / "var"),
            "SECRET_KEY_FILE": str(tmp_path / "no-such-key-file"), "DJANGO_SETTINGS_MODULE": "backend.settings"}
    return subprocess.run([sys.executable, *code_or_args], cwd=REPO, env={**base, **env},
                          capture_output=True, text=True, timeout=120)


SETUP = ["-c", "import django; django.setup(); from django.conf import settings; print('KEY', settings.SECRET_KEY)"]


def test_no_start_without_a_real_key_outside_debug(tmp_path):
    missing = run_django(SETUP, {"DEBUG": "false"}, tmp_path)
    assert missing.returncode != 0 and "ImproperlyConfigured" in missing.stderr and "SECRET_KEY" in missing.stderr
    dev_key = run_django(SETUP, {"DEBUG": "false", "SECRET_KEY": "dev-only-insecure-key-change-me-in-production"},
                         tmp_path)
    assert dev_key.returncode != 0 and "ImproperlyConfigured" in dev_key.stderr
    debug = run_django(SETUP, {"DEBUG": "true"}, tmp_path)
    assert debug.returncode == 0, debug.stderr
    assert "KEY dev-only-insecure-key-change-me-in-production" in debug.stdout


def test_the_key_file_supplies_a_real_key(tmp_path):
    key = secrets.token_urlsafe(50)
    (tmp_path / "key").write_text(key + "\n")
    ok = run_django(SETUP, {"DEBUG": "false", "SECRET_KEY_FILE": str(tmp_path / "key")}, tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert f"KEY {key}" in ok.stdout


def compose_app_environment(secret_key: str) -> dict[str, str]:
    """The app containers' environment from docker/compose.yml, with compose's ${VAR:-default} rules applied as
    a deployment that sets only SECRET_KEY would get them."""
    compose = yaml.safe_load((REPO / "docker" / "compose.yml").read_text())
    raw = compose["x-app"]["environment"]
    given = {"SECRET_KEY": secret_key}

    def substitute(value: str) -> str:
        def one(m: re.Match) -> str:
            name, op, default = m.group(1), m.group(2), m.group(3) or ""
            if name in given:
                return given[name]
            if op == ":?":
                raise AssertionError(f"compose requires {name}")
            return default

        return re.sub(r"\$\{(\w+)(:-|:\?)?([^}]*)\}", one, str(value))

    return {k: substitute(v) for k, v in raw.items()}


def test_check_deploy_passes_with_the_docker_environment(tmp_path):
    env = compose_app_environment(secrets.token_urlsafe(50))
    assert env["DEBUG"] == "false" and env["PUBLIC_BASE_URL"].startswith("https://")
    result = run_django(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    shown = run_django(["-c", (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS > 0, "
        "s.SECURE_PROXY_SSL_HEADER, s.CACHES['default']['BACKEND'])")], env, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split(None, 4)[:4] == ["True", "True", "True", "True"]
    assert "HTTP_X_FORWARDED_PROTO" in shown.stdout and "redis" in shown.stdout.lower()


@pytest.mark.parametrize("debug", ["true", "false"])
def test_plain_http_setups_keep_plain_cookies(tmp_path, debug):
    """`make run` (http://127.0.0.1, DEBUG off) must keep working over plain HTTP: no redirect, no secure cookie."""
    env = {"DEBUG": debug, "SECRET_KEY": secrets.token_urlsafe(50), "PUBLIC_BASE_URL": "http://127.0.0.1:8000"}
    shown = run_django(["-c", (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.SESSION_COOKIE_SECURE, s.SECURE_SSL_REDIRECT, s.SECURE_HSTS_SECONDS)")], env, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["False", "False", "0"]
