"""The whole path per platform, through our HTTP API and the commands, each platform a fake on loopback:

publish (CLI) → a worker opens the platform's URL of our unit page → labels → submits (our API, then the
platform's own submit: externalSubmit / the completion redirect) → sync → approve → bonus (twice: paid once).
"""
from __future__ import annotations

import io
import re
from html import unescape
from urllib.parse import urlparse

import pytest
import requests
from django.core.management import call_command

from annotation_tasks.models import Assignment, Batch, QualityDecision, SpanLabel
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def open_unit(client, url: str) -> dict[str, str]:
    """GET the unit page as the platform's iframe would; return the element's attributes."""
    parsed = urlparse(url)
    resp = client.get(f"{parsed.path}?{parsed.query}")
    assert resp.status_code == 200, resp.content[:500]
    tag = re.search(r"<factcrowd-annotator([^>]*)>", resp.content.decode()).group(1)
    return {k: unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', tag)}


def label_everything(client, token: str) -> None:
    """Label like a careful worker: every span covered, the first QA of each response supported."""
    unit = client.get(f"/api/work/{token}/unit").json()
    spans, qas = [], []
    for r in unit["responses"]:
        spans += [{"span_id": s["id"], "covered": True} for s in r["spans"]]
        qas += [{"qa_id": q["id"], "supported": i == 0, "derived_from_span": False, "note": ""}
                for i, q in enumerate(r["qas"])]
    body = {"labels": {"spans": spans, "qas": qas}, "time_on_task_ms": 42000}
    resp = client.post(f"/api/work/{token}/submit", body, content_type="application/json")
    assert resp.status_code == 200 and resp.json() == {"status": "submitted", "duplicate": False}, resp.content


def quality_settings(batch: Batch) -> None:
    batch.settings = {**batch.settings, "quality": {"min_gold_items": 2}}
    batch.save(update_fields=["settings"])


def test_mturk_path(client, fake_mturk, settings):
    unit = make_unit("Path MTurk", n_qas=2, n_responses=1, wanted=2, provider="mturk")
    batch = unit.batch
    out = run("publish", "--project", "Path MTurk", "--provider", "mturk", "--batch", batch.name,
              "--assignments", "2", "--reward", "0.75", "--sandbox", "--yes", "--min-approval-rate", "95",
              "--locale", "US")
    assert "+ fees 0.30 (20%) = 1.80 USD" in out and "published 1 units" in out
    unit.refresh_from_db()
    hit = fake_mturk.hits[unit.provider_ref]
    assert hit["MaxAssignments"] == 2 and hit["Reward"] == "0.75"
    assert {r["QualificationTypeId"] for r in hit["QualificationRequirements"]} == {
        "000000000000000000L0", "00000000000000000071"}

    # preview: the unit shows, nothing can be submitted
    preview = open_unit(client, fake_mturk.external_url(unit.provider_ref, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE",
                                                       hitId=unit.provider_ref))
    assert preview.get("preview") == "true" and "assignment-id" not in preview

    aid = fake_mturk.accept(unit.provider_ref, "AWORKER1")
    element = open_unit(client, fake_mturk.worker_url(aid))
    assert element["assignment-id"] == aid and element["submit-to"] == f"{fake_mturk.url}/mturk/externalSubmit"
    label_everything(client, element["token"])
    # what the element does next: a form POST to its submit-to (turkSubmitTo/mturk/externalSubmit)
    resp = requests.post(element["submit-to"],
                         data={"assignmentId": aid, "factcrowd": "submitted"}, timeout=10)
    assert resp.status_code == 200

    assert "seen 1, new 0, updated 0, unchanged 1" in run("sync")
    a = Assignment.objects.get()
    assert (a.provider_assignment_id, a.worker.external_id, a.status) == (aid, "AWORKER1", "submitted")
    assert SpanLabel.objects.filter(assignment=a).count() == 2

    table = run("workers", "--project", "Path MTurk")  # workers by pseudonym; platform ids only when asked
    assert a.worker.pseudonym_in(a.unit.project_id) in table and "AWORKER1" not in table and "100.0% (2/2)" in table
    assert "AWORKER1" in run("workers", "--project", "Path MTurk", "--with-platform-ids")

    quality_settings(batch)
    assert "approved 1, waiting 0" in run("approve", "--batch", str(batch.pk))
    assert fake_mturk.assignments[aid]["AssignmentStatus"] == "Approved"
    for _ in range(2):
        run("bonus", "--assignment", str(a.pk), "--amount", "0.20", "--reason", "careful work", "--yes")
    assert [(b["WorkerId"], b["BonusAmount"]) for b in fake_mturk.bonuses] == [("AWORKER1", "0.20")]
    a.refresh_from_db()
    assert (a.status, str(a.bonus_paid)) == ("approved", "0.20")
    assert list(QualityDecision.objects.values_list("action", "status").order_by("id")) == [
        ("approve", "done"), ("bonus", "done")]

    from annotation_tasks.celery_tasks import sync_open_batches

    assert sync_open_batches.delay().get() == {
        str(batch.pk): {"seen": 1, "created": 0, "updated": 0, "unchanged": 1, "unknown_unit": 0,
                        "missing_labels": [], "verified": 1, "unverified": []}}


def test_prolific_path(client, fake_prolific, settings):
    unit = make_unit("Path Prolific", n_qas=2, n_responses=1, wanted=1, provider="prolific")
    batch = unit.batch
    out = run("publish", "--project", "Path Prolific", "--provider", "prolific", "--batch", batch.name,
              "--assignments", "1", "--reward", "1.20", "--units-per-place", "2", "--yes")
    assert "GBP" in out and "published 1 units" in out and "one study" in out
    unit.refresh_from_db()
    study = fake_prolific.studies[unit.provider_ref]
    assert study["status"] == "ACTIVE" and study["reward"] == 240 and study["total_available_places"] == 1
    assert "/work/study/" in study["external_study_url"]
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}" in study["external_study_url"]

    started = fake_prolific.start_submission(unit.provider_ref, "PID-1")
    element = open_unit(client, started["url"])
    label_everything(client, element["token"])
    # what the page does next: back to the study's entry page, which (no unit left) shows the completion link
    page = client.get(urlparse(started["url"]).path + "?" + urlparse(started["url"]).query).content.decode()
    link = unescape(re.search(r'data-testid="completion-link" href="([^"]+)"', page).group(1))
    assert link.startswith(f"{fake_prolific.url}/submissions/complete?cc=")
    assert requests.get(link, timeout=10).status_code == 200
    assert fake_prolific.submissions[started["id"]]["status"] == "AWAITING REVIEW"

    assert "seen 1" in run("sync", "--project", "Path Prolific")
    a = Assignment.objects.get()
    assert (a.provider_assignment_id, a.worker.provider, a.status, a.verification) == (
        f"{started['id']}/{unit.pk}", "prolific", "submitted", "verified")

    quality_settings(batch)
    assert "approved 1" in run("approve", "--batch", str(batch.pk))
    assert fake_prolific.submissions[started["id"]]["status"] == "APPROVED"
    for _ in range(2):
        run("bonus", "--assignment", str(a.pk), "--amount", "0.50", "--reason", "careful work", "--yes")
    assert [(p["participant_id"], str(p["amount"])) for p in fake_prolific.paid] == [("PID-1", "0.50")]


def test_local_path(client, settings):
    """Our own annotators: publish needs no money and no confirmation of fees; sync and approve still log."""
    unit = make_unit("Path Local", n_qas=2, n_responses=1, wanted=1)
    out = run("publish", "--project", "Path Local", "--provider", "local", "--batch", unit.batch.name,
              "--assignments", "1", "--reward", "0", "--yes")
    assert "published 1 units" in out
    from annotation_tasks.crowd.entry import local_worker_param, unit_entry_url

    element = open_unit(client, unit_entry_url(unit, "local", worker=local_worker_param("alice")))
    label_everything(client, element["token"])
    run("sync")
    assert "approved 1" in run("approve", "--batch", str(unit.batch_id), "--all")
    assert Assignment.objects.get().status == "approved"
