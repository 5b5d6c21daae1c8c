"""The steps the browser tests share: a worker's token and unit page, keys, a researcher's sign-in, waiting on the
database, and axe-core's audit. The pages themselves come from conftest's `page` and `new_page` fixtures."""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services.tokens import assignment_token

T = TypeVar("T")

AXE_JS = Path(__file__).resolve().parents[2] / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
BLOCKING = ("critical", "serious")
# what the researcher's screens are tested at: the dashboard's tables want the wider window
DASHBOARD = {"width": 1360, "timeout_ms": 20000}


def wait_for(predicate: Callable[[], T], timeout: float = 10.0, what: str = "condition") -> T:
    """Polls `predicate` (e.g. a database read the page's request will make true) until it is truthy."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def new_token(unit, ext: str = "w1") -> tuple[Assignment, str]:
    """A new local worker's assignment of `unit` and the token of its unit page."""
    worker = Worker.objects.create(external_id=ext)
    a = Assignment.objects.create(unit=unit, worker=worker)
    return a, assignment_token(a)


def open_unit(page, base: str, token: str, ready: str = "start-button") -> None:
    """The worker's unit page for `token`, once the element shows `ready` (a test id: the Start button, or
    "annotator" where there is none)."""
    page.goto(f"{base}/work/{token}/")
    page.get_by_test_id(ready).wait_for()


def press(page, *keys: str) -> None:
    for k in keys:
        page.keyboard.press(k)


def progress(page) -> str:
    return page.get_by_test_id("progress").inner_text()


def login(page, base: str, username: str, password: str = "pw", next_path: str = "/") -> None:
    """Signs in on Django's login page, reached through `next_path`, and waits to be back on it."""
    page.goto(f"{base}{next_path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.wait_for_url(re.compile(".*" + re.escape(next_path.rstrip("/")) + ".*"))


def researcher_page(new_page: Callable[..., Any], base: str, username: str, **options: Any):
    """A dashboard-sized page (new_page's options may add to it) with `username` signed in."""
    page = new_page(**{**DASHBOARD, **options})
    login(page, base, username)
    return page


def axe_violations(page, axe_js: Path = AXE_JS) -> list[dict]:
    """axe-core's WCAG 2 A/AA violations of the page as it is now, critical and serious only (the page's context
    needs bypass_csp=True for the script to be injected)."""
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_js))
    found = page.evaluate(
        """async (tags) => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
                                           nodes: v.nodes.map(n => ({target: n.target, summary: n.failureSummary}))}));
        }""",
        WCAG_TAGS,
    )
    return [v for v in found if v["impact"] in BLOCKING]
