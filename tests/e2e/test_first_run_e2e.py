"""A new user's first minutes after `make run`, in real Chromium: load_demo → demo / demo logs in → the Demo
project → the header's Annotate button → the local queue serves the first unit → its Start button works."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from annotation_tasks.models import Assignment, Project

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_demo_user_annotates_from_the_dashboard(live_server, page, dashboard_js, shot):
    call_command("load_demo", stdout=io.StringIO())
    demo = Project.objects.get(name="Demo")

    page.goto(f"{live_server.url}/")
    assert "/accounts/login/" in page.url
    page.fill("input[name=username]", "demo")
    page.fill("input[name=password]", "demo")
    page.keyboard.press("Enter")
    page.get_by_role("link", name="Demo", exact=True).click()
    expect(page.get_by_test_id("project-name")).to_have_text("Demo")
    shot(page, "project")

    page.get_by_test_id("annotate-link").click()
    page.get_by_test_id("start-button").wait_for()
    assert "/work/" in page.url
    assignment = Assignment.objects.get(worker__user__username="demo")
    assert assignment.unit.project == demo and assignment.status == "assigned"
    assert assignment.unit.batch.status == "published" and assignment.unit.batch.provider == "local"
    shot(page, "first-unit")

    page.get_by_test_id("start-button").click()
    expect(page.get_by_test_id("start-button")).to_have_count(0)
    expect(page.get_by_test_id("progress")).to_contain_text("Step 1")
    shot(page, "started")


def _open_demo_project(page, base: str, name: str) -> None:
    """Log in as the demo user (make run's) and open one of the demo projects from the project list."""
    page.goto(f"{base}/")
    page.fill("input[name=username]", "demo")
    page.fill("input[name=password]", "demo")
    page.keyboard.press("Enter")
    page.get_by_role("link", name=name, exact=True).click()


def test_the_labelled_demo_study_shows_its_report_and_queue(live_server, page, dashboard_js, shot):
    """The finished demo study is explorable at once: its report has each system's consistency (as the report
    service computes it from the imported votes) and Adjudicate lists every split item."""
    from annotation_tasks.services import adjudication
    from annotation_tasks.services.reports import build_report

    call_command("load_demo", stdout=io.StringIO())
    study = Project.objects.get(name="Demo study (labelled)")
    expected = {r["system"]: f"{r['consistency']:.1f}%" for r in build_report(study)["consistency"]}
    split = adjudication.queue(study, {})["count"]
    assert len(expected) == 2 and split > 0

    _open_demo_project(page, live_server.url, "Demo study (labelled)")
    page.locator('[data-tab="report"]').click()
    rows = page.get_by_test_id("consistency-table").locator("tbody tr")
    expect(rows).to_have_count(len(expected))
    for system, value in expected.items():
        expect(rows.filter(has_text=system)).to_contain_text(value)
    shot(page, "study-report")

    page.locator('[data-tab="adjudicate"]').click()
    expect(page.get_by_test_id("queue-row")).to_have_count(split)
    shot(page, "study-adjudicate")


def test_unsaved_protocol_edits_come_back_after_a_tab_switch_and_a_reload(live_server, page, dashboard_js, shot):
    """The Protocol tab keeps what was typed and not saved (an audit lost it on switching tab or reloading): restored
    with a note, saved or discarded by the researcher."""
    call_command("load_demo", stdout=io.StringIO())
    demo = Project.objects.get(name="Demo")
    _open_demo_project(page, live_server.url, "Demo")
    page.locator('[data-tab="setup"]').click()
    card = page.get_by_test_id("protocol-card")
    card.locator("input[name=description]").fill("Typed, not saved")
    page.locator('[data-tab="data"]').click()
    page.locator('[data-tab="setup"]').click()
    expect(page.get_by_test_id("draft-restored")).to_be_visible()
    expect(card.locator("input[name=description]")).to_have_value("Typed, not saved")
    page.reload()
    expect(page.get_by_test_id("protocol-card").locator("input[name=description]")).to_have_value("Typed, not saved")
    shot(page, "setup-draft")
    assert Project.objects.get(pk=demo.pk).description != "Typed, not saved"  # nothing saved behind the user's back
    page.get_by_test_id("protocol-card").get_by_role("button", name="Save protocol").click()
    expect(page.get_by_test_id("draft-restored")).to_have_count(0)
    page.wait_for_function(f"() => !localStorage.getItem('factcrowd.setup.{demo.pk}')")
    assert Project.objects.get(pk=demo.pk).description == "Typed, not saved"
