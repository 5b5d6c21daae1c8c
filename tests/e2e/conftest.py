"""Real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright's sync API) against a live server.

The annotator element is built from frontend/ when its dist file is missing. Screenshots of each step go to
$FACTCROWD_SHOTS (default /tmp/factcrowd-shots) for a person to look at.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's async-unsafe guard would refuse ORM calls.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

# Django's development server listens with a backlog of 10; a burst of simultaneous annotators (the concurrency
# test) would see connection resets from the kernel before our code runs. Production servers set their own.
from django.core.servers import basehttp  # noqa: E402

basehttp.WSGIServer.request_queue_size = 128

REPO = Path(__file__).resolve().parents[2]
ELEMENT_JS = REPO / "annotation_tasks" / "static" / "annotation_tasks" / "dist" / "factcrowd-annotator.js"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(os.environ.get("FACTCROWD_SHOTS", "/tmp/factcrowd-shots"))


def build_element() -> Path:
    """The element's bundle, built with npm when missing (npm ci only when node_modules is absent)."""
    if ELEMENT_JS.exists():
        return ELEMENT_JS
    npm = shutil.which("npm")
    frontend = REPO / "frontend"
    if npm is None or not (frontend / "package.json").exists():
        pytest.skip("annotator element not built and npm/frontend unavailable")
    if not (frontend / "node_modules").exists():
        subprocess.run([npm, "ci"], cwd=frontend, check=True, timeout=600)
    subprocess.run([npm, "run", "build:annotator"], cwd=frontend, check=True, timeout=600)
    if not ELEMENT_JS.exists():
        pytest.fail(f"build did not produce {ELEMENT_JS}")
    return ELEMENT_JS


@pytest.fixture(scope="session")
def annotator_js() -> Path:
    return build_element()


@pytest.fixture(scope="session")
def chromium(annotator_js):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.set_default_timeout(15000)
    yield pg
    context.close()


@pytest.fixture
def shot(request):
    """shot(page, "step") saves /tmp/factcrowd-shots/<test>-<n>-<step>.png."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    counter = {"n": 0}

    def take(pg, name: str) -> Path:
        counter["n"] += 1
        path = SHOTS / f"{request.node.name}-{counter['n']:02d}-{name}.png"
        pg.screenshot(path=str(path), full_page=True)
        return path

    return take
