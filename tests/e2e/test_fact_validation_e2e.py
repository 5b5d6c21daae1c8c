"""Fact validation in the dashboard, by keyboard (issue 23 item 11): the publish gate's link opens the batch's
undecided facts; one key keeps, drops, fixes (the text edited in place) or splits a fact; `u` undoes the last key;
every decision is saved in order; the gate opens; a worker's unit then shows the fixed and split facts, never the
dropped one nor the originals they replace."""
from __future__ import annotations

import pytest

from annotation_tasks.models import AtomicFact
from annotation_tasks.services.batches import publish_blockers
from tests.e2e.helpers import AXE_JS, axe_violations, new_token, open_unit, press, researcher_page, wait_for
from tests.validation_gate.test_fact_validation import make_fact_project

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _validation(fact_id: int) -> str:
    return AtomicFact.objects.get(pk=fact_id).validation


def test_fact_validation_by_keyboard_then_workers_see_the_fix(live_server, new_page, page, dashboard_js, shot,
                                                              django_user_model):
    researcher = django_user_model.objects.create_user("expert", password="pw")
    project, batch = make_fact_project(researcher, n_sentences=3)
    facts = list(AtomicFact.objects.filter(response__project=project).order_by("sentence_index", "order"))
    (gate,) = [b for b in publish_blockers(batch) if b.code == "undecided_facts"]
    assert gate.count == len(facts) == 6

    # bypass_csp: only so that axe-core can be injected (the page's own scripts run under its CSP)
    expert = researcher_page(new_page, live_server.url, "expert", bypass_csp=True)
    expert.goto(live_server.url + gate.link)
    expert.locator("tr.cursor[data-testid=fact-row]").wait_for()
    rows = expert.get_by_test_id("fact-row")
    assert [int(rows.nth(i).get_attribute("data-fact")) for i in range(rows.count())] == [f.pk for f in facts]

    press(expert, "v")  # f0 kept; the cursor moves on
    press(expert, "x")  # f1 dropped
    press(expert, "e")  # f2 fixed: its text edited in place
    field = expert.get_by_test_id("fact-input")
    field.fill("Carl visited Rome in 1990.")
    press(expert, "Enter")
    press(expert, "s")  # f3 split: one fact a line
    expert.get_by_test_id("fact-split-input").fill("The city is old.\nThe city is large.")
    press(expert, "Enter")
    press(expert, "x", "u")  # f4 dropped, then undone: back to undecided, the cursor on it again
    wait_for(lambda: expert.get_by_test_id("fact-pending").inner_text() == "All decisions saved", what="saved")
    assert _validation(facts[4].pk) == "unknown"
    press(expert, "v", "v")  # f4 and f5 kept
    wait_for(lambda: expert.get_by_test_id("fact-pending").inner_text() == "All decisions saved", what="saved")
    expert.locator(f"tr[data-fact='{facts[5].pk}'][data-validation=kept]").wait_for()
    shot(expert, "decided")
    if AXE_JS.exists():
        assert axe_violations(expert) == []

    assert [_validation(f.pk) for f in facts] == ["kept", "dropped", "fixed", "split", "kept", "kept"]
    fixed = AtomicFact.objects.get(edited_from=facts[2])
    assert fixed.text == "Carl visited Rome in 1990." and AtomicFact.objects.get(pk=facts[2].pk).text == facts[2].text
    assert sorted(AtomicFact.objects.filter(edited_from=facts[3]).values_list("text", flat=True)) == [
        "The city is large.", "The city is old."]
    assert [b for b in publish_blockers(batch) if b.code == "undecided_facts"] == []
    assert expert.errors == []

    # a worker's unit shows what the expert decided
    _, token = new_token(batch.units.get())
    open_unit(page, live_server.url, token)
    press(page, "Enter")
    page.get_by_test_id("fact-item").first.wait_for()
    shown = [t.split("\n")[0] for t in page.get_by_test_id("fact-item").all_inner_texts()]
    assert shown == [facts[0].text, "Carl visited Rome in 1990.", "The city is old.", "The city is large.",
                     facts[4].text, facts[5].text]
    shot(page, "worker-unit")
    assert page.errors == []
