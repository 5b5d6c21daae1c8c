"""Real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright's sync API) against a live server.

The annotator element is built from frontend/ when its dist file is missing, the dashboard when it is older than its
sources. Screenshots of each step go to $FACTCROWD_SHOTS (default /tmp/factcrowd-shots) for a person to look at.
Pages: `page` (the worker's window), `new_page(...)` for any other (its own context, options, a longer timeout);
every page collects its uncaught script errors in `page.errors`. Shared steps are in helpers.py.
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
DIST = REPO / "annotation_tasks" / "static" / "annotation_tasks" / "dist"
ELEMENT_JS = DIST / "factcrowd-annotator.js"
DASHBOARD_SOURCES = REPO / "frontend" / "src" / "dashboard"
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
def dashboard_js() -> Path:
    """The dashboard bundle, rebuilt when missing or older than its sources."""
    bundle = DIST / "dashboard.js"
    newest = max(p.stat().st_mtime for p in DASHBOARD_SOURCES.rglob("*") if p.is_file())
    if bundle.exists() and bundle.stat().st_mtime >= newest:
        return bundle
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("dashboard not built and npm unavailable")
    frontend = REPO / "frontend"
    if not (frontend / "node_modules").exists():
        subprocess.run([npm, "ci"], cwd=frontend, check=True, timeout=600)
    subprocess.run([npm, "run", "build:dashboard"], cwd=frontend, check=True, timeout=600)
    return bundle


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
def new_page(chromium):
    """new_page(width=1280, height=900, timeout_ms=15000, **context options, e.g. accept_downloads, bypass_csp):
    a page in a context of its own, its uncaught script errors in `page.errors`; every context is closed after the
    test."""
    contexts = []

    def make(*, width: int = 1280, height: int = 900, timeout_ms: int = 15000, **options):
        context = chromium.new_context(viewport={"width": width, "height": height}, **options)
        contexts.append(context)
        pg = context.new_page()
        pg.set_default_timeout(timeout_ms)
        pg.errors = []
        pg.on("pageerror", lambda exc: pg.errors.append(str(exc)))
        return pg

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page):
    return new_page()


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
