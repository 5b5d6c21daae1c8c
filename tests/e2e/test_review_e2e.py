"""Review and adjudication in real Chromium, through the dashboard only:

three workers submit a QASem unit (through the same submit service as the element); the researcher opens an
assignment from Monitor and reads what its worker saw and answered (gold check, the others' votes, time on task),
opens the worker's drill-down, then adjudicates a disputed QA by keyboard alone (j / k, the label key, the reason,
Enter), and the QA JSONL export downloaded from the Exports tab carries the adjudicated label with its
provenance, the crowd's majority beside it, and equals the CLI's export.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation_tasks.models import AdjudicatedLabel, Assignment, ProjectMembership, Worker
from annotation_tasks.services import work
from tests.e2e.conftest import SHOTS
from tests.e2e.helpers import AXE_JS, axe_violations, researcher_page
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REASON = "the source names Anna as the visitor of Paris, not Lima"


def blocking_violations(page) -> list[str]:
    """axe-core's critical and serious WCAG 2 A/AA violations of the page as it is now (none when axe-core, a
    pinned dev dependency of frontend/, is not installed)."""
    if not AXE_JS.exists():
        return []
    found = axe_violations(page)
    return [f"{v['impact']} {v['id']}: {', '.join(' '.join(n['target']) for n in v['nodes'][:4])}" for v in found]


def _study():
    """One unit, two responses of two QAs; gold on the first QA of each. w3 says the first QA of response A is
    not supported (against gold), w2 the last QA of response B (no gold): two disputed QAs."""
    unit = make_unit("Review E2E", protocol=["span_coverage", "qa_support"], n_qas=2, n_responses=2)
    assignments = {}
    for i, name in enumerate(("w1", "w2", "w3")):
        worker = Worker.objects.create(provider="local", external_id=f"user-{name}", display_name=f"Annotator {name}")
        assignment = Assignment.objects.create(unit=unit, worker=worker)
        payload = work.unit_payload(assignment)
        qas = [q["id"] for r in payload["responses"] for q in r["qas"]]
        unsupported = {qas[0]} if name == "w3" else {qas[-1]} if name == "w2" else set()
        assignment.refresh_from_db()
        work.submit(assignment, {"labels": qasem_labels(payload, unsupported=unsupported),
                                 "time_on_task_ms": 65_000 + 1000 * i})
        assignments[name] = assignment
    return unit, assignments, qas


def test_review_then_adjudicate_by_keyboard_then_export(live_server, new_page, dashboard_js, shot):
    unit, assignments, qas = _study()
    project = unit.project
    expert = get_user_model().objects.create_user("expert", password="pw")
    ProjectMembership.objects.create(project=project, user=expert, role=ProjectMembership.Role.RESEARCHER)
    base = live_server.url
    # bypass_csp: only so that axe-core can be injected into the page (the page's own scripts run under its CSP)
    page = researcher_page(new_page, base, "expert", accept_downloads=True, bypass_csp=True)

    # -- Monitor → the assignment of w3 → what w3 saw and answered ----------------------------------------
    page.goto(f"{base}/#/p/{project.pk}/monitor")
    w3 = assignments["w3"]
    page.locator(f"[data-testid=assignment-link]:text-is('{w3.pk}')").click()
    page.get_by_test_id("review-header").wait_for()
    assert f"#/p/{project.pk}/review/{w3.pk}" in page.url
    summary = page.get_by_test_id("review-summary").inner_text()
    assert "67 s" in summary and "gold 3/4" in summary and "(6/7)" in summary, summary
    disputed = page.locator(f"[data-testid=review-item][data-level=qa][data-item='{qas[0]}']")
    assert disputed.get_by_test_id("review-answer").inner_text().strip() == "not_supported"
    assert "✗" in disputed.get_by_test_id("review-gold").inner_text()
    assert "Annotator w1: supported" in disputed.inner_text() and "Annotator w2: supported" in disputed.inner_text()
    assert page.get_by_test_id("review-source").inner_text() == unit.source.text
    assert page.get_by_test_id("review-item").count() == 8  # 4 spans + 4 QAs, as the worker was shown
    shot(page, "assignment-review")
    assert blocking_violations(page) == []

    # -- the worker's drill-down ----------------------------------------------------------------------------
    page.get_by_test_id("review-worker").click()
    page.get_by_test_id("worker-detail").wait_for()
    assert page.get_by_test_id("worker-assignment").count() == 1
    assert "gold 75.0%" in page.get_by_test_id("worker-totals").inner_text()
    shot(page, "worker-drill-down")
    assert blocking_violations(page) == []

    # -- the adjudication queue, by keyboard ----------------------------------------------------------------
    page.goto(f"{base}/#/p/{project.pk}/adjudicate")
    rows = page.get_by_test_id("queue-row")
    rows.nth(1).wait_for()
    assert rows.count() == 2
    assert [rows.nth(i).get_attribute("data-key") for i in range(2)] == [f"qa:{qas[0]}", f"qa:{qas[-1]}"]
    item = page.get_by_test_id("adj-item")
    assert item.get_attribute("data-key") == f"qa:{qas[0]}"
    page.locator("body").click(position={"x": 5, "y": 5})  # focus on the page, not a control
    page.keyboard.press("j")
    page.wait_for_function(f"() => document.querySelector('[data-testid=adj-item]').dataset.key === 'qa:{qas[-1]}'")
    page.keyboard.press("k")
    page.wait_for_function(f"() => document.querySelector('[data-testid=adj-item]').dataset.key === 'qa:{qas[0]}'")
    votes = page.get_by_test_id("adj-vote").all_inner_texts()
    assert len(votes) == 3 and any("Annotator w3" in v and "not_supported" in v for v in votes), votes
    page.keyboard.press("n")  # not supported: picks the label and puts the cursor in the reason box
    assert page.evaluate("document.activeElement.dataset.testid") == "reason"
    assert page.get_by_test_id("reason").input_value() == ""  # the key did not type itself
    page.keyboard.type(REASON)
    shot(page, "adjudicate")
    assert blocking_violations(page) == []
    with page.expect_response(lambda r: "/adjudications/" in r.url and r.request.method == "POST") as posted:
        page.keyboard.press("Enter")
    assert posted.value.status == 201
    page.get_by_test_id("queue-decided").first.wait_for()
    assert rows.nth(0).get_by_test_id("queue-decided").inner_text() == "→ not_supported"
    # the next open item is now in front, and nothing else was decided
    page.wait_for_function(f"() => document.querySelector('[data-testid=adj-item]').dataset.key === 'qa:{qas[-1]}'")
    adj = AdjudicatedLabel.objects.get()
    assert (adj.level, adj.qa_id, adj.value, adj.reason, adj.decided_by) == ("qa", qas[0], "not_supported", REASON, expert)
    assert adj.majority == "supported" and sorted(v["label"] for v in adj.votes) == [
        "not_supported", "supported", "supported"]
    shot(page, "adjudicated")

    # -- the report sets the majority against the adjudicated gold ------------------------------------------------
    page.click("[data-tab=report]")
    table = page.get_by_test_id("report-adjudication")
    table.wait_for(timeout=60000)
    cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
    assert cells[:3] == ["qa", "1", "0.0%"] and cells[4] == "1", cells  # the one decision overturned the majority

    # -- the export from the Exports tab shows the adjudicated label and its provenance ---------------------------
    page.click("[data-tab=exports]")
    with page.expect_download() as info:
        page.get_by_test_id("export-qa-jsonl").click()
    downloaded = Path(info.value.path()).read_text(encoding="utf-8")
    cli = io.StringIO()
    call_command("export", project=project.name, fmt="qa-jsonl", output="-", stdout=cli)
    assert downloaded == cli.getvalue()
    lines = [json.loads(line) for line in downloaded.splitlines()]
    assert len(lines) == len(qas)
    decided = [ln for ln in lines if "adjudication" in ln]
    assert len(decided) == 1
    line = decided[0]
    assert line["label"] == "not_supported" and line["majority"] == "supported"
    assert line["adjudication"]["decided_by"] == "expert" and line["adjudication"]["reason"] == REASON
    assert line["adjudication"]["majority_at_decision"] == "supported"
    assert sorted(line["adjudication"]["votes_at_decision"]) == ["not_supported", "supported", "supported"]
    assert all("majority" not in ln for ln in lines if ln is not line)
    assert not page.errors, page.errors


def test_the_crowd_scorer_disagreements_are_adjudicated_from_the_dashboard(live_server, new_page, dashboard_js):
    """Issue 26 item 4 in Chromium: Adjudicate ordered by a scorer lists the items where its verdict and the crowd's
    majority differ (a unanimous one first: the plain queue never shows it), with the scorer's verdict; the expert's
    keyboard decision is counted in evaluate_scorer's who-was-right."""
    from annotation_tasks.models import ItemScore
    from annotation_tasks.services import scoring

    unit, _assignments, qas = _study()  # majorities: all supported (qas[0] 2-1, qas[1], qas[2] 3-0, qas[3] 2-1)
    project = unit.project
    scores = {qas[0]: 0.9, qas[1]: 0.05, qas[2]: 0.8, qas[3]: 0.2}  # the judge doubts qas[1] (0.95 off), qas[3] (0.8)
    ItemScore.objects.bulk_create([ItemScore(qa_id=q, scorer="judge", version="v1", score=v) for q, v in scores.items()])
    expert = get_user_model().objects.create_user("expert", password="pw")
    ProjectMembership.objects.create(project=project, user=expert, role=ProjectMembership.Role.RESEARCHER)
    page = researcher_page(new_page, live_server.url, "expert")
    page.goto(f"{live_server.url}/#/p/{project.pk}/adjudicate")
    rows = page.get_by_test_id("queue-row")
    rows.first.wait_for()
    assert f"qa:{qas[1]}" not in [rows.nth(i).get_attribute("data-key") for i in range(rows.count())]
    page.get_by_test_id("adj-order").select_option("judge")
    page.wait_for_function(f"() => document.querySelector('[data-testid=adj-item]')?.dataset.key === 'qa:{qas[1]}'")
    assert [rows.nth(i).get_attribute("data-key") for i in range(rows.count())] == [f"qa:{qas[1]}", f"qa:{qas[3]}"]
    assert page.get_by_test_id("adj-scorer").inner_text() == "not_supported"
    assert "judge 0.05" in rows.nth(0).inner_text()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("s")  # the crowd was right
    with page.expect_response(lambda r: "/adjudications/" in r.url and r.request.method == "POST") as posted:
        page.keyboard.press("Enter")
    assert posted.value.status == 201
    versus = scoring.evaluate_scorer(project, "judge")["crowd_vs_scorer"]
    assert (versus["disagreements"], versus["adjudicated"], versus["crowd_right"]) == (2, 1, 1)
    assert not page.errors, page.errors


def _workers_submit(unit, labels_of) -> dict:
    out = {}
    for name in ("w1", "w2", "w3"):
        worker = Worker.objects.create(provider="local", external_id=f"user-{name}-{unit.pk}",
                                       display_name=f"Annotator {name}")
        assignment = Assignment.objects.create(unit=unit, worker=worker)
        payload = work.unit_payload(assignment)
        assignment.refresh_from_db()
        work.submit(assignment, {"labels": labels_of(name, payload), "time_on_task_ms": 30_000})
        out[name] = assignment
    return out


def _facts(name: str, payload: dict) -> dict:
    """w3 edits the second fact of sentence 0 into its own; w2 labels the first fact NS (its gold is S)."""
    response = payload["responses"][0]
    f = [x["id"] for x in response["facts"]]
    if name == "w3":
        return {"facts": [{"fact_id": f[0], "label": "S"},
                          {"text": "Anna visited a city in Peru.", "sentence_index": 0, "response_id": response["id"],
                           "edited_from": [f[1]], "label": "S"},
                          *({"fact_id": x, "label": "S"} for x in f[2:])]}
    return {"facts": [{"fact_id": f[0], "label": "NS" if name == "w2" else "S"},
                      *({"fact_id": x, "label": "S"} for x in f[1:])]}


def test_written_facts_and_pairwise_aspects_are_adjudicated_by_keyboard(live_server, new_page, dashboard_js):
    """FActScore: the fact a worker wrote is first in the queue (1 of 3 workers wrote it), decided IR with `i`,
    and the FActScore export carries it. Pairwise: the disputed aspect is decided with `3`."""
    from annotation_tasks.models import AtomicFact

    facts_unit = make_unit("Facts E2E", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)
    written_by = _workers_submit(facts_unit, _facts)["w3"]
    pair_unit = make_unit("Pairwise E2E", protocol=["span_coverage", "qa_support", "pairwise"], n_qas=1)
    _workers_submit(pair_unit, lambda name, p: qasem_labels(p, pairwise=4 if name == "w3" else 2))
    expert = get_user_model().objects.create_user("expert", password="pw")
    for project in (facts_unit.project, pair_unit.project):
        ProjectMembership.objects.create(project=project, user=expert, role=ProjectMembership.Role.RESEARCHER)
    written = AtomicFact.objects.get(created_by_assignment=written_by)

    page = researcher_page(new_page, live_server.url, "expert", accept_downloads=True)

    # the review of w3's FActScore assignment: the model fact it replaced, and the fact it wrote
    page.goto(f"{live_server.url}/#/p/{facts_unit.project.pk}/review/{written_by.pk}")
    page.get_by_test_id("review-header").wait_for()
    facts = page.locator("[data-testid=review-item][data-level=fact]")
    assert facts.count() == 5  # four model facts shown, one written
    mine = page.locator(f"[data-testid=review-item][data-item='{written.pk}']")
    # the row's origin badge may come a render after the row: wait for it rather than read it once
    page.wait_for_function("(id) => (document.querySelector(`[data-testid=review-item][data-item='${id}']`)"
                           "?.innerText || '').includes('human · edited')", arg=written.pk)
    assert "human · edited" in mine.inner_text() and written.edited_from.get().text in mine.inner_text()
    replaced = page.locator(f"[data-testid=review-item][data-item='{written.edited_from.get().pk}']")
    assert "model · edited" in replaced.inner_text()
    page.screenshot(path=str(SHOTS / "review-facts.png"), full_page=True)

    page.goto(f"{live_server.url}/#/p/{facts_unit.project.pk}/adjudicate")
    item = page.get_by_test_id("adj-item")
    item.wait_for()
    assert item.get_attribute("data-key") == f"fact:{written.pk}"
    assert "written by a worker" in item.inner_text() and "1 of 3 workers wrote it" in item.inner_text()
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("i")
    page.keyboard.type("Peru is not in the source")
    with page.expect_response(lambda r: "/adjudications/" in r.url and r.request.method == "POST") as posted:
        page.keyboard.press("Enter")
    assert posted.value.status == 201
    page.get_by_test_id("queue-decided").first.wait_for()
    assert AdjudicatedLabel.objects.get(fact=written).value == "IR"
    page.click("[data-tab=exports]")
    with page.expect_download() as info:
        page.get_by_test_id("export-factscore").click()
    line = json.loads(Path(info.value.path()).read_text(encoding="utf-8").splitlines()[0])
    human = [f for s in line["annotations"] for f in s["human-atomic-facts"] or [] if "adjudication" in f]
    assert [(f["text"], f["label"], f["majority"]) for f in human] == [(written.text, "IR", "S")]
    assert human[0]["adjudication"]["reason"] == "Peru is not in the source"

    page.goto(f"{live_server.url}/#/p/{pair_unit.project.pk}/adjudicate")
    item.wait_for()
    page.wait_for_function(
        f"() => document.querySelector('[data-testid=adj-item]')?.dataset.key === 'pairwise:{pair_unit.pk}:consistency'")
    page.locator("body").click(position={"x": 5, "y": 5})
    sides = page.get_by_test_id("adj-side").all_inner_texts()
    from annotation_tasks.protocols.display import Display

    # as the workers read them: the builder stores tokens joined by spaces ("Anna visited Lima ."), shown as written
    texts = [Display(r.text, r.tokens).text for r in pair_unit.responses.order_by("unit_responses__position")]
    assert all(" ." not in t for t in texts)
    assert len(sides) == 2 and all(t in side for t, side in zip(texts, sides, strict=True)), sides
    page.keyboard.press("3")
    page.keyboard.type("both responses are equally wrong about the cities")
    with page.expect_response(lambda r: "/adjudications/" in r.url and r.request.method == "POST") as posted:
        page.keyboard.press("Enter")
    assert posted.value.status == 201
    adj = AdjudicatedLabel.objects.get(unit=pair_unit)
    assert (adj.aspect, adj.value, adj.majority) == ("consistency", "3", "2")
    assert not page.errors, page.errors


def test_a_tokenized_import_reads_as_written_in_review_adjudication_and_validation(
        live_server, new_page, dashboard_js, tmp_path):
    """The QASem release stores "Riverton 's mayor paid $ 4 million ."; the researcher screens show it as the
    workers read it ("Riverton's mayor paid $4 million."), and mark the answer's words by the tokens' offsets."""
    from annotation_tasks.models import QA
    from tests.review.test_review_display import import_tokenized

    project = import_tokenized(tmp_path)
    expert = get_user_model().objects.create_user("expert", password="pw")
    ProjectMembership.objects.create(project=project, user=expert, role=ProjectMembership.Role.RESEARCHER)
    assignment = Assignment.objects.filter(unit__project=project).order_by("id").first()
    first = QA.objects.get(response__project=project, answer="Riverton 's mayor")
    written = "Riverton's mayor paid $4 million. He wasn't there in March."
    page = researcher_page(new_page, live_server.url, "expert")

    page.goto(f"{live_server.url}/#/p/{project.pk}/review/{assignment.pk}")
    row = page.locator(f"[data-testid=review-item][data-level=qa][data-item='{first.pk}']")
    row.wait_for()
    row.click()  # the response is shown once per response; the selected item is marked in it
    text = page.get_by_test_id("review-response-text").first
    assert text.inner_text().strip() == written
    assert text.locator("mark").all_inner_texts() == ["Riverton's mayor"]
    assert "Who paid something?" in row.inner_text() and " 's" not in row.inner_text()

    page.goto(f"{live_server.url}/#/p/{project.pk}/adjudicate/qa:{first.pk}")
    item = page.locator(f"[data-testid=adj-item][data-key='qa:{first.pk}']")
    item.wait_for()
    shown = item.get_by_test_id("adj-context")
    assert shown.inner_text().strip() == written
    assert shown.locator("mark").all_inner_texts() == ["Riverton's mayor", "paid"]
    assert "Riverton's mayor said it cost $4 million in March." in item.inner_text()

    page.goto(f"{live_server.url}/#/p/{project.pk}/validate")
    page.select_option("select[name=validity]", "")
    qa_row = page.locator(f"[data-testid=qa-row][data-qa='{first.pk}']")
    qa_row.wait_for()
    assert qa_row.locator("td.context").inner_text().strip() == written
    assert qa_row.locator("td.context mark").all_inner_texts() == ["Riverton's mayor", "paid"]
    assert "Who paid something?" in qa_row.inner_text()
    assert not page.errors, page.errors
