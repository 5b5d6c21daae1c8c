"""The whole path in real Chromium, each platform a fake on loopback that the real client code talks to:

MTurk: publish → the fake's worker site frames the HIT's ExternalQuestion URL → the worker labels with the
keyboard → the element submits to our API and posts externalSubmit to the fake → sync → approve → bonus.
Prolific: publish → the participant opens the study URL (placeholders filled) → labels → submits → the element
redirects to the completion URL on the fake → sync → approve → bonus.
(It lives in tests/e2e so that it shares that folder's one Chromium session; the crowd engineer owns it.)
"""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment, QALabel, SpanLabel
from annotation_tasks.services import publishing, quality
from tests.crowd.conftest import fake_mturk, fake_prolific  # noqa: F401 - fixtures (the fakes on loopback)
from tests.e2e.helpers import press, wait_for
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def label_in(pg, frame) -> None:
    frame.get_by_test_id("start-button").click()  # keys reach a platform's frame only after a click
    press(pg, "c", "c", "s", "n")
    press(pg, "Control+Enter")


def test_mturk_path_in_chromium(settings, live_server, page, shot, fake_mturk):  # noqa: F811
    settings.PUBLIC_BASE_URL = live_server.url  # loopback only: real MTurk would insist on HTTPS
    settings.FRAME_ANCESTORS = ["'self'", fake_mturk.url]
    unit = make_unit("E2E crowd MTurk", n_qas=2, n_responses=1, wanted=1, provider="mturk")
    publishing.publish_batch(unit.batch, reward="0.80", assignments_per_unit=1)
    unit.refresh_from_db()
    aid = fake_mturk.accept(unit.provider_ref, "ACHROMEWORKER")

    page.goto(f"{fake_mturk.url}/hit/{aid}")
    frame = page.frame_locator("#hit")
    shot(page, "mturk-hit")
    label_in(page, frame)
    wait_for(lambda: fake_mturk.assignments[aid]["AssignmentStatus"] == "Submitted", what="externalSubmit")
    shot(page, "mturk-submitted")

    assert publishing.sync_batch(unit.batch).unchanged == 1
    a = Assignment.objects.get()
    assert (a.provider_assignment_id, a.worker.external_id, a.status) == (aid, "ACHROMEWORKER", "submitted")
    assert a.verification == "verified"  # MTurk lists this worker's assignment: the work counts
    assert SpanLabel.objects.filter(assignment=a, covered=True).count() == 2
    assert sorted(QALabel.objects.filter(assignment=a).values_list("supported", flat=True)) == [False, True]
    quality.approve(a, reason="checked")
    quality.pay_bonus(a, "0.10", "fast and careful")
    quality.pay_bonus(a, "0.10", "fast and careful")
    assert fake_mturk.assignments[aid]["AssignmentStatus"] == "Approved"
    assert len(fake_mturk.bonuses) == 1


def test_prolific_path_in_chromium(settings, live_server, page, shot, fake_prolific):  # noqa: F811
    """One study for the batch: the participant enters from the fake's study URL, our queue hands them both units
    of their place one after the other, then the completion page sends them to Prolific with their own code."""
    settings.PUBLIC_BASE_URL = live_server.url
    units = make_unit("E2E crowd Prolific", n_qas=2, n_responses=1, wanted=1, provider="prolific", n_sources=2)
    batch = units[0].batch
    publishing.publish_batch(batch, reward="0.80", assignments_per_unit=1, units_per_place=2)
    batch.refresh_from_db()
    started = fake_prolific.start_submission(batch.provider_ref, "CHROME-PID")

    page.goto(started["url"])
    shot(page, "prolific-study")
    for n in (1, 2):  # after each submit the page comes back to the study's entry URL for the next unit
        label_in(page, page)
        wait_for(lambda n=n: Assignment.objects.filter(status="submitted").count() == n, what=f"unit {n} submitted")
    page.get_by_test_id("completion-code").wait_for()
    shot(page, "prolific-completion-code")
    page.get_by_test_id("completion-link").click()
    page.wait_for_url(f"{fake_prolific.url}/submissions/complete?cc=*")
    shot(page, "prolific-completed")
    assert fake_prolific.submissions[started["id"]]["status"] == "AWAITING REVIEW"

    publishing.sync_batch(batch)
    rows = list(Assignment.objects.order_by("id"))
    assert [a.unit_id for a in rows] == [u.pk for u in units]
    assert {(a.status, a.verification) for a in rows} == {("submitted", "verified")}
    quality.approve(rows[0], reason="checked")
    quality.pay_bonus(rows[0], "0.10", "fast and careful")
    assert fake_prolific.submissions[started["id"]]["status"] == "APPROVED"
    assert [p["participant_id"] for p in fake_prolific.paid] == ["CHROME-PID"]
