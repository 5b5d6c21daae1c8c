"""The worked example of docs/protocols.md in real Chromium: a fact-entailment project chosen in the dashboard's
protocol form (from the manifest), composed from the Batches tab, annotated by three workers by keyboard (one
writes a rationale), reviewed, adjudicated by keyboard, counted in the report and exported (labels-jsonl)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from annotation_tasks.models import AdjudicatedLabel, Project, Source, Unit
from annotation_tasks.models.labels import EntailmentLabel
from tests.e2e.helpers import new_token, open_unit, press, researcher_page
from tests.work.builders import make_response

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RATIONALE = "the source says Anna visited Paris"
REASON = "the source states it"


def test_an_entailment_project_from_the_form_to_the_export(live_server, new_page, page, dashboard_js, shot):
    base = live_server.url
    expert = get_user_model().objects.create_user("expert", password="pw")
    expert.user_permissions.add(Permission.objects.get(codename="add_project"))
    desk = researcher_page(new_page, base, "expert", accept_downloads=True)

    # -- the protocol form offers the protocol from the manifest; its step is ticked when it is chosen --------
    desk.get_by_test_id("new-project").click()
    desk.fill("input[name=name]", "Entailment E2E")
    desk.get_by_test_id("protocol-entailment").check()
    assert desk.is_checked("input[name=step-fact_entailment]")
    assert not desk.locator("input[name=step-span_coverage]").count()  # another crowd protocol's steps are not offered
    desk.get_by_role("button", name="Create project").click()
    desk.wait_for_url(re.compile(r".*#/p/\d+/data"))
    project = Project.objects.get(name="Entailment E2E")
    assert project.protocol == ["fact_entailment"]
    source = Source.objects.create(project=project, external_id="s0", text="Anna visited Paris . Boris visited Lyon .")
    make_response(project, source, "r0", 1, system="sys", with_facts=True, gold=False)

    # -- compose from the Batches tab: the mode comes from the protocol's declared step ----------------------------
    desk.click("[data-tab=batches]")
    desk.fill("input[name=batch-name]", "pilot")
    desk.select_option("select[name=provider]", "local")
    desk.get_by_role("button", name="Create batch").click()
    desk.get_by_test_id("compose").click()
    desk.get_by_test_id("info").wait_for()
    (unit,) = Unit.objects.filter(project=project)
    assert unit.mode == Unit.Mode.ENTAILMENT

    # -- three workers, by keyboard ------------------------------------------------------------------------------
    first_keys = {"w1": "c", "w2": "s", "w3": "n"}
    assignments = {}
    for worker, key in first_keys.items():
        assignment, token = new_token(unit, worker)
        open_unit(page, base, token)
        press(page, "Enter")
        n = page.locator(".fact-text").count()
        assert n >= 2
        if worker == "w1":
            press(page, "r")
            page.get_by_test_id("fact-rationale").first.wait_for()
            page.keyboard.type(RATIONALE)
            press(page, "Enter")
        press(page, key)  # the first fact; the element moves on to the next
        for _ in range(n - 1):
            press(page, "s")
        shot(page, f"entailment-{worker}")
        press(page, "Control+Enter")
        page.get_by_test_id("submitted-message").wait_for()
        assignments[worker] = assignment
    labels = EntailmentLabel.objects.filter(assignment__unit=unit)
    first = labels.filter(assignment=assignments["w1"]).order_by("fact__sentence_index", "fact__order", "fact_id")[0]
    assert (first.label, first.rationale) == ("contradicted", RATIONALE)
    assert sorted(labels.filter(fact=first.fact).values_list("label", flat=True)) == [
        "contradicted", "not_enough_info", "supported"]
    assert set(labels.exclude(fact=first.fact).values_list("label", flat=True)) == {"supported"}

    # -- review: what w1 saw and answered, with the rationale ----------------------------------------------------
    w1 = assignments["w1"]
    desk.goto(f"{base}/#/p/{project.pk}/review/{w1.pk}")
    desk.get_by_test_id("review-header").wait_for()
    row = desk.locator(f"[data-testid=review-item][data-level=entailment][data-item='{first.fact_id}']")
    assert row.get_by_test_id("review-answer").inner_text().strip() == "contradicted"
    assert RATIONALE in row.inner_text()
    assert desk.locator("[data-testid=review-item][data-level=entailment]").count() == labels.filter(
        assignment=w1).count()

    # -- adjudicate the disputed fact by keyboard (its keys and names from the manifest) ---------------------------
    desk.goto(f"{base}/#/p/{project.pk}/adjudicate")
    item = desk.get_by_test_id("adj-item")
    item.wait_for()
    assert item.get_attribute("data-key") == f"entailment:{first.fact_id}"
    assert "Not enough info" in item.inner_text()  # the level's display names
    desk.locator("body").click(position={"x": 5, "y": 5})
    desk.keyboard.press("s")
    assert desk.evaluate("document.activeElement.dataset.testid") == "reason"
    desk.keyboard.type(REASON)
    with desk.expect_response(lambda r: "/adjudications/" in r.url and r.request.method == "POST") as posted:
        desk.keyboard.press("Enter")
    assert posted.value.status == 201
    adj = AdjudicatedLabel.objects.get(project=project)
    assert (adj.level, adj.fact_id, adj.value, adj.majority) == ("entailment", first.fact_id, "supported", "contradicted")
    shot(desk, "entailment-adjudicated")

    # -- the report counts the level; the export carries votes, majority and the decision ---------------------------
    desk.click("[data-tab=report]")
    counts = desk.get_by_test_id("report-counts")
    counts.wait_for(timeout=60000)
    assert f"{labels.count()} entailment labels" in counts.inner_text()
    desk.click("[data-tab=exports]")
    with desk.expect_download() as info:
        desk.get_by_test_id("export-labels-jsonl").click()
    lines = [json.loads(x) for x in Path(info.value.path()).read_text(encoding="utf-8").splitlines()]
    mine = next(r for r in lines if r["level"] == "entailment" and r["item_id"] == first.fact_id)
    assert sorted(mine["votes"]) == ["contradicted", "not_enough_info", "supported"]
    assert mine["adjudication"]["label"] == "supported" and mine["adjudication"]["reason"] == REASON
