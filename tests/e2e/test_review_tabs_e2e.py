"""Review shows a response once with a tab per worker (issue 23 item 12, Label Studio's way), not the whole response
again beside every item: 26 items of one response read in one text, each worker's answers a tab away."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from annotation_tasks.models import Assignment, ProjectMembership, Worker
from annotation_tasks.services import work
from tests.e2e.helpers import AXE_JS, axe_violations, researcher_page
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_the_response_once_and_a_tab_per_worker(live_server, new_page, dashboard_js, shot):
    unit = make_unit("Tabs", protocol=["span_coverage", "qa_support"], n_qas=13, n_responses=1,
                     unit_caps={"spans": 100, "qas": 100, "facts": 100})
    names = ("w1", "w2", "w3")
    assignments = []
    for name in names:
        worker = Worker.objects.create(provider="local", external_id=f"user-{name}", display_name=f"Annotator {name}")
        assignment = Assignment.objects.create(unit=unit, worker=worker)
        payload = work.unit_payload(assignment)
        qas = [q["id"] for r in payload["responses"] for q in r["qas"]]
        assignment.refresh_from_db()
        work.submit(assignment, {"labels": qasem_labels(payload, unsupported={qas[0]} if name == "w2" else set()),
                                 "time_on_task_ms": 60_000})
        assignments.append(assignment)
    expert = get_user_model().objects.create_user("expert", password="pw")
    ProjectMembership.objects.create(project=unit.project, user=expert, role=ProjectMembership.Role.RESEARCHER)
    page = researcher_page(new_page, live_server.url, "expert", bypass_csp=True)  # bypass_csp: for axe-core only
    page.goto(f"{live_server.url}/#/p/{unit.project.pk}/review/{assignments[0].pk}")
    rows = page.get_by_test_id("review-item")
    rows.first.wait_for()
    assert rows.count() == 26  # 13 spans + 13 QAs
    response = unit.responses.get()
    # the response's text is on the page once, not once per item
    assert page.get_by_test_id("review-response-text").count() == 1
    shown = page.get_by_test_id("review-response-text").inner_text().strip()
    assert len(shown) > 200 and page.locator("body").inner_text().count(shown) == 1
    height = page.evaluate("() => document.documentElement.scrollHeight")
    print(f"review page height for 26 items: {height} px")
    # a row selected: its answer is marked in the one text
    qa_row = page.locator(f"[data-testid=review-item][data-level=qa][data-item='{qas[1]}']")
    qa_row.click()
    assert page.get_by_test_id("review-response-text").locator("mark").all_inner_texts() == [
        response.qas.get(pk=qas[1]).answer]
    # a tab per worker: this one first, then the two others with their answers beside this one's
    tabs = page.get_by_test_id("review-tab")
    assert tabs.all_inner_texts()[0].startswith("Annotator w1") and tabs.count() == 3
    page.locator("[data-testid=review-tab]", has_text="Annotator w2").click()
    other = page.locator(f"[data-testid=review-other-item][data-level=qa][data-item='{qas[0]}']")
    assert other.get_by_test_id("review-other-answer").inner_text().strip() == "not_supported"
    assert "disagree" in (other.get_attribute("class") or "")
    shot(page, "review-tabs")
    if AXE_JS.exists():
        assert axe_violations(page) == []
    assert page.errors == []
