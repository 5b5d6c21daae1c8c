"""Accessible to every annotator and researcher: axe-core (WCAG 2 A and AA rules) finds no critical or serious
violation on any page: login, invite, queue, every dashboard tab, and the unit page in each mode (QASem,
FActScore, validation, Ragas, platform preview; before and after Start). axe-core is the pinned dev dependency in
frontend/package.json; Playwright injects it into the real page (it walks the element's open shadow root too)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import Assignment, Batch, Project, ProjectMembership, Unit, Worker
from annotation_tasks.services.imports import import_wikieval
from annotation_tasks.services.tokens import assignment_token, invite_token, unit_entry_path
from annotation_tasks.services.units import compose_units, compose_validation_units
from tests.e2e.helpers import AXE_JS, axe_violations, login, open_unit
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def axe_source() -> Path:
    if not AXE_JS.exists():
        if os.environ.get("CI"):  # scripts/setup.sh installs it: missing in CI is a broken setup, not a skip
            pytest.fail("axe-core missing from frontend/node_modules (npm ci)")
        pytest.skip("axe-core not installed (cd frontend && npm ci)")
    return AXE_JS


def describe(found: list[dict]) -> str:
    """One line per violated rule, then each node (at most 8) with axe's reason, e.g. the contrast it measured."""
    lines = []
    for v in found:
        lines.append(f"{v['impact']} {v['id']}: {v['help']}")
        for n in v["nodes"][:8]:
            reason = " ".join((n["summary"] or "").split())
            lines.append(f"    {n['target']}: {reason[:220]}")
    return "\n".join(lines)


class Audit:
    """Collects the blocking violations of every page state a test visits; asserts once, listing them all."""

    def __init__(self, axe_source: Path) -> None:
        self.axe_source = axe_source
        self.found: list[str] = []
        self.checked = 0

    def check(self, page, where: str) -> None:
        self.checked += 1
        found = axe_violations(page, self.axe_source)
        if found:
            self.found.append(f"{where}:\n{describe(found)}")

    def assert_clean(self) -> None:
        assert self.checked and not self.found, "\n".join(self.found)


@pytest.fixture
def page(new_page):
    """As conftest's page, with the pages' Content-Security-Policy bypassed so axe's script can be injected."""
    return new_page(bypass_csp=True)


@pytest.fixture
def audit(axe_source) -> Audit:
    return Audit(axe_source)


def settle(page) -> None:
    page.wait_for_load_state("networkidle")


def test_login_invite_and_queue_pages(live_server, page, audit):
    unit = make_unit("A11y queue", n_qas=1, n_responses=1, wanted=1)
    page.goto(f"{live_server.url}/accounts/login/")
    audit.check(page, "login page")
    page.goto(f"{live_server.url}/invite/{invite_token(unit.project)}/")
    audit.check(page, "invite page")
    page.get_by_label("Your name").fill("  ")
    page.get_by_test_id("invite-join").click()  # the browser refuses a blank required field: still the form
    page.get_by_label("Your name").fill("Ada")
    page.get_by_test_id("invite-join").click()
    page.get_by_test_id("start-button").wait_for()
    # the unit was the only one: back on the queue page, which says nothing is left
    Assignment.objects.filter(unit=unit).update(status=Assignment.Status.SUBMITTED)
    page.goto(f"{live_server.url}/annotate/{unit.project_id}/")
    page.get_by_test_id("queue-status").wait_for()
    settle(page)
    audit.check(page, "queue page")
    audit.assert_clean()


@pytest.mark.parametrize("mode", ["qasem", "factscore", "validation", "ragas", "preview"])
def test_unit_page_in_each_mode(live_server, page, audit, mode, tmp_path):
    if mode == "ragas":
        from tests.e2e.test_ragas_e2e import ROW

        rows = tmp_path / "wikieval.jsonl"
        rows.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
        import_wikieval(rows, "A11y ragas")
        (unit,) = compose_units(Batch.objects.create(project=Project.objects.get(name="A11y ragas"), name="b"))
    elif mode == "factscore":
        unit = make_unit("A11y facts", protocol=["fact_labeling"], with_facts=True, n_qas=1, n_responses=1)
    elif mode == "validation":
        first = make_unit("A11y validation", protocol=["qa_validation", "span_coverage", "qa_support"], n_qas=2,
                          n_responses=1)
        batch = Batch.objects.create(project=first.project, name="validation")
        Unit.objects.filter(project=first.project).delete()
        unit = compose_validation_units(batch)[0]
    else:
        unit = make_unit(f"A11y {mode}", n_qas=2, n_responses=2)
    unit.project.instructions = "Mark **Supported** only if the reference says so.\n\n| key | label |\n|---|---|\n| s | Supported |"
    unit.project.save()
    if mode == "preview":  # what a platform shows before a worker accepts the task
        page.goto(f"{live_server.url}{unit_entry_path(unit)}?provider=local&preview=1")
        page.get_by_test_id("annotator").wait_for()
    else:
        a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"a11y-{mode}"))
        open_unit(page, live_server.url, assignment_token(a), ready="annotator")
    settle(page)
    audit.check(page, f"{mode} unit page, before start")
    start = page.get_by_test_id("start-button")
    if start.count():
        start.click()
        settle(page)
        audit.check(page, f"{mode} unit page, working")
        page.keyboard.press("c")  # one label given: selected and done states are on screen too
        audit.check(page, f"{mode} unit page, one label given")
        if mode == "qasem":  # the other sections: QA support, then the pairwise comparison
            for step in ("second section", "pairwise section"):
                page.keyboard.press("]")
                page.wait_for_timeout(200)
                audit.check(page, f"{mode} unit page, {step}")
        page.keyboard.press("?")
        page.get_by_test_id("instructions").wait_for()
        audit.check(page, f"{mode} unit page, instructions open")
    audit.assert_clean()


def test_every_dashboard_tab(live_server, page, audit):
    User = get_user_model()
    rita = User.objects.create_user("rita", password="pw")
    units = make_unit("A11y dashboard", n_qas=2, n_responses=2, n_sources=2, wanted=2)
    project = units[0].project
    ProjectMembership.objects.create(project=project, user=rita, role=ProjectMembership.Role.RESEARCHER)
    for k, unit in enumerate(units):
        worker = Worker.objects.create(external_id=f"tab-{k}", display_name=f"Worker {k}")
        Assignment.objects.create(unit=unit, worker=worker, status=Assignment.Status.SUBMITTED, time_on_task_ms=40_000)
    login(page, live_server.url, "rita")
    page.get_by_text("A11y dashboard").first.wait_for()
    settle(page)
    audit.check(page, "project list")
    page.goto(f"{live_server.url}/#/p/{project.pk}/data")
    page.locator("nav.tabs a[data-tab]").first.wait_for()
    tabs = page.eval_on_selector_all("nav.tabs a[data-tab]", "els => els.map(e => e.dataset.tab)")
    assert {"setup", "data", "validate", "batches", "monitor", "report", "exports"} <= set(tabs)
    for tab in tabs:
        page.goto(f"{live_server.url}/#/p/{project.pk}/{tab}")
        page.locator(f"nav.tabs a.active[data-tab={tab}]").wait_for()
        settle(page)
        page.wait_for_timeout(300)  # the tab's first render after its data arrives
        audit.check(page, f"dashboard tab {tab}")
    first = Assignment.objects.filter(unit__project=project).order_by("id").first()
    for name, path in (("assignment review", f"review/{first.pk}"), ("worker page", f"worker/{first.worker_id}")):
        page.goto(f"{live_server.url}/#/p/{project.pk}/{path}")
        settle(page)
        page.wait_for_timeout(300)
        audit.check(page, name)
    page.goto(f"{live_server.url}/#/p/{project.pk}/monitor")
    page.get_by_test_id("worker-row").first.get_by_role("button", name="Reject").click()
    page.get_by_role("button", name="Confirm").wait_for()
    audit.check(page, "monitor with the reject form open")
    assert "Worker 0" in page.get_by_test_id("workers-table").inner_text()  # the display name, not the platform id
    audit.assert_clean()
