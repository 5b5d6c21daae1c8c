"""QA validation in the dashboard, by keyboard: the publish gate's link opens the batch's undecided QAs, one key
per decision, a question corrected in place (the original kept), the rest decided by filter, then the gate opens.
"""
from __future__ import annotations

import pytest

from annotation_tasks.models import QA, QAEdit
from annotation_tasks.services.batches import publish_blockers
from tests.e2e.helpers import press, researcher_page
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db(transaction=True)


def _open_the_gate_link(live_server, new_page, django_user_model):
    """An expert's project whose batch is held by undecided QAs, and the gate's link open on the first QA."""
    researcher = django_user_model.objects.create_user("expert", password="pw")
    project, batch = make_project(researcher)
    (gate,) = [b for b in publish_blockers(batch) if b.code == "undecided_qas"]
    page = researcher_page(new_page, live_server.url, "expert")
    page.goto(live_server.url + gate.link)
    page.locator("tr.cursor[data-testid=qa-row]").wait_for()
    return project, batch, page


def test_validation_by_keyboard_then_the_gate_opens(live_server, new_page, dashboard_js, shot, django_user_model):
    project, batch, page = _open_the_gate_link(live_server, new_page, django_user_model)
    rows = page.get_by_test_id("qa-row")
    first, second, third = (int(rows.nth(i).get_attribute("data-qa")) for i in range(3))

    press(page, "x")  # first: invalid, the cursor moves on
    page.locator(f"tr.invalid[data-qa='{first}']").wait_for()
    press(page, "2", "k", "v")  # second invalid, back up, then valid: the last key wins
    page.locator(f"tr.valid[data-qa='{second}']").wait_for()
    press(page, "e")  # third (the cursor moved on): correct its question
    page.get_by_test_id("question-input").fill("Who travelled somewhere?")
    press(page, "Enter")
    page.get_by_test_id("qa-original").wait_for()
    shot(page, "validate-keyboard")
    assert QA.objects.get(pk=first).validity == "invalid" and QA.objects.get(pk=second).validity == "valid"
    corrected = QA.objects.get(pk=third)
    assert (corrected.question, corrected.validity) == ("Who travelled somewhere?", "valid")
    assert QAEdit.objects.get(qa=corrected).before["question"] == "Who visited something?"

    press(page, "j")  # the answer span of the next QA: one token wider at its end
    fourth = int(page.locator("tr.cursor[data-testid=qa-row]").get_attribute("data-qa"))
    before = QA.objects.get(pk=fourth)
    press(page, "a", "ArrowRight", "Enter")
    page.locator(f"tr[data-qa='{fourth}'] [data-testid=qa-original]").wait_for()
    after = QA.objects.get(pk=fourth)
    assert (after.answer_start, after.answer_end) == (before.answer_start, before.answer_end + 1)

    # the rest of the batch's undecided QAs, across pages, by filter
    left = QA.objects.filter(response__project=project, validity="unknown").count()
    page.reload()  # the list shows what is still undecided
    page.wait_for_function(f"() => document.querySelector('[data-testid=validate-filter]')?.innerText === 'Mark all {left} valid'")
    assert left > 0 and page.get_by_test_id("qa-row").count() == left
    page.get_by_test_id("validate-filter").click()
    page.get_by_test_id("validate-info").wait_for()
    assert not QA.objects.filter(response__project=project, validity="unknown").exists()
    assert not [b for b in publish_blockers(batch) if b.code == "undecided_qas"]
    assert page.errors == []


def test_decisions_made_while_the_server_is_unreachable_are_kept_and_saved_once_it_is_back(
        live_server, new_page, dashboard_js, shot, django_user_model):
    """An outage during validation: the page says the decisions are not saved (not "All decisions saved"), the browser
    asks before leaving, and the decisions reach the server once it answers again (found by an audit: they were lost)."""
    project, batch, page = _open_the_gate_link(live_server, new_page, django_user_model)
    rows = page.get_by_test_id("qa-row")
    ids = [int(rows.nth(i).get_attribute("data-qa")) for i in range(3)]

    def cut(route):
        return route.abort() if route.request.method == "PATCH" else route.continue_()

    page.route("**/api/qas/**", cut)
    press(page, "v", "v", "x")
    status = page.get_by_test_id("validate-pending")
    page.wait_for_function("() => document.querySelector('[data-testid=validate-pending]')?.dataset.unsaved === '3'")
    assert "3 decisions not saved" in status.inner_text() and "All decisions saved" not in status.inner_text()
    assert page.locator("tr.unsaved[data-testid=qa-row]").count() == 3
    leaving = page.evaluate("() => { const e = new Event('beforeunload', {cancelable: true}); "
                            "window.dispatchEvent(e); return e.defaultPrevented }")
    assert leaving is True
    assert set(QA.objects.filter(pk__in=ids).values_list("validity", flat=True)) == {"unknown"}
    shot(page, "validate-outage")

    page.unroute("**/api/qas/**")
    page.get_by_test_id("validate-retry").click()
    page.wait_for_function("() => document.querySelector('[data-testid=validate-pending]')?.innerText.includes('All decisions saved')")
    assert dict(QA.objects.filter(pk__in=ids).values_list("pk", "validity")) == dict(zip(ids, ["valid", "valid", "invalid"], strict=True))
    assert page.locator("tr.unsaved[data-testid=qa-row]").count() == 0
