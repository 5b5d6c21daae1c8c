"""The researcher's whole path in real Chromium, through the dashboard only:

log in → create a project → upload (a wrong file is refused per line, nothing imported) → parse → validate QAs →
compose and preview units → launch on the local provider (estimate, confirm) → three annotators annotate in the
element → the monitor shows them → the report shows kappa → the downloaded export equals the CLI's export.
Screenshots of every screen go to $FACTCROWD_SHOTS (default /tmp/factcrowd-shots).
"""
from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command

from annotation_tasks.models import QA, Assignment, Batch, Job, Project, QALabel, Response, Unit
from annotation_tasks.services import work
from annotation_tasks.services.reports import build_report
from annotation_tasks.services.tokens import read_assignment_token
from tests.e2e.helpers import DASHBOARD, login, press

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ITEMS = [
    ("s1", "The council approved the new budget on Monday after a long debate.",
     {"alpha": "The council approved the budget on Monday.", "beta": "The council rejected the budget on Friday."}),
    ("s2", "Heavy rain flooded the main road, so the school closed early.",
     {"alpha": "Rain flooded the road and the school closed early.", "beta": "Snow blocked the road, so the school opened late."}),
    ("s3", "The museum bought a painting that the artist finished in 1901.",
     {"alpha": "The museum bought a painting finished in 1901.", "beta": "The library sold a painting the artist started in 1950."}),
]


def jsonl(rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


GOOD = jsonl({"source_id": s, "source": text, "system": sys, "response": resp}
             for s, text, responses in ITEMS for sys, resp in responses.items())
BAD = GOOD.replace('"response": "Snow blocked the road, so the school opened late."', '"response": 17')


def drop_file(page, name: str, content: str) -> None:
    """A real drag-and-drop: a File in a DataTransfer, dispatched as dragover + drop on the drop zone."""
    page.get_by_test_id("dropzone").wait_for()
    page.evaluate(
        """([name, content]) => {
            const dt = new DataTransfer();
            dt.items.add(new File([content], name, {type: 'application/x-ndjson'}));
            const zone = document.querySelector('[data-testid=dropzone]');
            for (const type of ['dragenter', 'dragover', 'drop'])
                zone.dispatchEvent(new DragEvent(type, {dataTransfer: dt, bubbles: true, cancelable: true}));
        }""",
        [name, content],
    )


def keys_for(token: str, annotator: int) -> list[str]:
    """Keyboard labels for the unit behind a token: every span, then every asked QA, response by response.

    Annotators 0 and 1 agree (QAs alternate supported / not supported); annotator 2 marks the first QA of
    every response the other way, so agreement is high but not perfect and kappa is defined.
    """
    assignment = Assignment.objects.select_related("unit").get(pk=read_assignment_token(token).assignment_id)
    payload = work.preview_payload(assignment.unit)
    keys: list[str] = []
    for response in payload["responses"]:
        keys += ["c"] * len(response["spans"])
        for i, _qa in enumerate(response["qas"]):
            supported = i % 2 == 0
            if annotator == 2 and i == 0:
                supported = not supported
            keys.append("s" if supported else "n")
    return keys


def annotate_all(new_page, base: str, project: Project, username: str, annotator: int, shot) -> int:
    page = new_page(timeout_ms=20000)
    login(page, base, username, "pw", f"/annotate/{project.pk}/")
    done = 0
    while True:
        # the queue page either sends the annotator to /work/<token>/ or says nothing is left
        page.wait_for_function(
            "() => location.pathname.startsWith('/work/') || "
            "(document.querySelector('[data-testid=queue-status]')?.innerText || '').includes('Nothing left')"
        )
        if not page.url.split("?")[0].rstrip("/").rsplit("/", 2)[-2] == "work":
            break
        token = page.url.split("?")[0].rstrip("/").rsplit("/", 1)[-1]
        page.get_by_test_id("start-button").wait_for()
        if done == 0 and annotator == 0:
            shot(page, "annotator-unit")
        press(page, "Enter", *keys_for(token, annotator), "Control+Enter")
        page.get_by_test_id("submitted-message").wait_for()
        done += 1
        page.wait_for_url(lambda url, t=token: t not in url, timeout=20000)
    page.context.close()
    return done


def test_upload_parse_validate_launch_annotate_report_export(live_server, new_page, dashboard_js, shot):
    base = live_server.url
    User = get_user_model()
    researcher = User.objects.create_user("researcher", password="pw")
    researcher.user_permissions.add(Permission.objects.get(codename="add_project"))
    for name in ("ann1", "ann2", "ann3"):
        User.objects.create_user(name, password="pw")

    page = new_page(**{**DASHBOARD, "timeout_ms": 30000}, accept_downloads=True)

    # -- log in (Django's login page), create a project with its protocol ------------------------------
    page.goto(f"{base}/")
    assert "/accounts/login/" in page.url
    shot(page, "login")
    login(page, base, "researcher", "pw")
    page.get_by_test_id("new-project").click()
    page.fill("input[name=name]", "E2E study")
    page.uncheck("input[name=step-pairwise]") if page.is_checked("input[name=step-pairwise]") else None
    page.fill("input[name=annotations_per_item]", "3")
    page.fill("textarea[name=instructions]", "Judge every answer against the source.")
    shot(page, "new-project")
    page.get_by_role("button", name="Create project").click()
    page.wait_for_url(re.compile(r".*#/p/\d+/data"))
    project = Project.objects.get(name="E2E study")
    assert project.protocol == ["span_coverage", "qa_support"] and project.annotations_per_item == 3

    # -- a wrong file: errors per line, nothing imported ---------------------------------------------------
    drop_file(page, "items.jsonl", BAD)
    page.locator("[data-job-status=failed]").wait_for()
    cells = page.locator("table.errors tbody tr").first.locator("td").all_inner_texts()
    assert cells[:3] == ["items.jsonl", "4", "response"], cells
    shot(page, "upload-refused")
    assert Response.objects.filter(project=project).count() == 0

    # -- the right file, then parsing ------------------------------------------------------------------
    drop_file(page, "items.jsonl", GOOD)
    page.locator("[data-testid=upload-job][data-job-status=done]").wait_for()
    assert Response.objects.filter(project=project).count() == 6
    page.get_by_test_id("start-parse").click()
    page.locator("[data-testid=parse-job][data-job-status=done]").wait_for(timeout=120000)
    assert Job.objects.get(project=project, kind="parse").status == "done"
    page.get_by_test_id("response-row").first.wait_for()
    shot(page, "parsed")
    assert QA.objects.filter(response__project=project).count() > 6

    # -- QA validation ---------------------------------------------------------------------------------
    page.click("[data-tab=validate]")
    page.locator("[data-status=unknown]").wait_for()  # the screen has loaded its QAs and their counts
    first_qa = page.get_by_test_id("qa-row").first
    with page.expect_response(lambda r: "/api/qas/" in r.url and r.request.method == "PATCH") as patched:
        first_qa.get_by_role("button", name="Invalid").click()
    assert patched.value.status == 200
    page.locator("tr.invalid[data-testid=qa-row]").wait_for()
    page.get_by_test_id("validate-filter").click()  # every undecided QA of the filter, not a page
    page.wait_for_function("() => !document.querySelector('tr.unknown[data-testid=qa-row]')")
    shot(page, "validated")
    assert QA.objects.filter(response__project=project, validity="invalid").count() == 1
    assert QA.objects.filter(response__project=project, validity="valid").count() >= 1

    # -- compose, preview, launch on the local provider --------------------------------------------------
    page.click("[data-tab=batches]")
    page.fill("input[name=batch-name]", "pilot")
    page.select_option("select[name=provider]", "local")
    page.get_by_role("button", name="Create batch").click()
    page.get_by_test_id("compose").click()
    page.get_by_test_id("info").wait_for()
    assert "3 units composed" in page.get_by_test_id("info").inner_text()
    page.get_by_test_id("preview").first.click()
    frame = page.frame_locator("iframe.preview-frame")
    frame.locator("factcrowd-annotator").wait_for(state="attached")
    page.wait_for_timeout(800)
    shot(page, "unit-preview")
    page.fill("input[name=reward]", "0.50")
    page.get_by_test_id("estimate").click()
    page.get_by_test_id("confirm").wait_for()
    assert page.get_by_test_id("estimate-total").inner_text() == "4.50 USD"
    shot(page, "launch-confirm")
    assert Batch.objects.get(project=project, name="pilot").status == "draft"  # nothing before confirming
    page.get_by_test_id("confirm-publish").click()
    page.wait_for_function("() => (document.querySelector('[data-testid=info]')?.innerText || '').includes('Published')")
    batch = Batch.objects.get(project=project, name="pilot")
    assert batch.status == "published" and batch.units.exclude(provider_ref="").count() == 3

    # -- members: three annotators, added from the protocol screen ------------------------------------------
    page.click("[data-tab=setup]")
    for name in ("ann1", "ann2", "ann3"):
        page.fill("input[placeholder=username]", name)
        page.get_by_role("button", name="Add").click()
        page.locator("td", has_text=name).first.wait_for()

    # -- three annotators annotate in the element ------------------------------------------------------------
    for i, name in enumerate(("ann1", "ann2", "ann3")):
        assert annotate_all(new_page, base, project, name, i, shot) == 3
    assert Assignment.objects.filter(unit__batch=batch, status="submitted").count() == 9
    assert QALabel.objects.filter(assignment__unit__batch=batch).exists()

    # -- monitor: statuses, workers table, approve from it -------------------------------------------------
    page.click("[data-tab=monitor]")
    page.get_by_test_id("worker-row").nth(2).wait_for()
    assert page.get_by_test_id("worker-row").count() == 3
    row = page.locator("[data-testid=worker-row]", has_text="ann1")
    assert "3" in row.inner_text()
    row.get_by_role("button", name="Approve").click()
    page.get_by_role("button", name="Confirm").click()
    page.get_by_test_id("info").wait_for()
    shot(page, "monitor")
    assert Assignment.objects.filter(unit__batch=batch, worker__user__username="ann1", status="approved").count() == 3

    # -- the report shows kappa ------------------------------------------------------------------------------
    page.click("[data-tab=report]")
    page.get_by_test_id("agreement-table").wait_for()
    expected = {row["level"]: row["fleiss_kappa"] for row in build_report(project)["agreement"]}
    assert expected["qa"] is not None
    rows = page.locator("[data-testid=agreement-table] tbody tr")
    shown = {rows.nth(i).locator("td").first.inner_text(): rows.nth(i).get_by_test_id("kappa").inner_text()
             for i in range(rows.count())}
    assert shown["qa"] == f"{expected['qa']:.3f}"
    shot(page, "report")

    # -- every export downloads, and equals the CLI's export ---------------------------------------------------
    page.click("[data-tab=exports]")
    for fmt in ("qasem-release", "qa-jsonl", "factscore"):
        with page.expect_download() as info:
            page.get_by_test_id(f"export-{fmt}").click()
        downloaded = Path(info.value.path()).read_text(encoding="utf-8")
        cli = io.StringIO()
        call_command("export", project="E2E study", fmt=fmt, output="-", stdout=cli)
        assert downloaded == cli.getvalue(), fmt
    assert json.loads(downloaded.splitlines()[0])  # real JSON lines
    # ... and the CSV of another aggregation's labels, as `export --csv --aggregation` writes it
    page.get_by_test_id("export-aggregation").select_option("dawid_skene")
    with page.expect_download() as info:
        page.get_by_test_id("export-qa-jsonl-csv").click()
    cli_dir = Path(tempfile.mkdtemp())
    call_command("export", project="E2E study", fmt="qa-jsonl", output=str(cli_dir / "qa.jsonl"), csv=True,
                 aggregation="dawid_skene", stderr=io.StringIO())
    assert Path(info.value.path()).read_text(encoding="utf-8") == (cli_dir / "qa.csv").read_text(encoding="utf-8")
    shot(page, "exports")
    assert Unit.objects.filter(batch=batch).count() == 3
    assert not page.errors, page.errors
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r".*/accounts/login/"))
    page.goto(f"{base}/")
    assert "/accounts/login/" in page.url  # the session is gone
