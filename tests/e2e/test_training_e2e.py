"""Training in real Chromium (issue 24 item 4): a Prolific participant enters from the fake's study URL, does the
training unit, sees per-item feedback with the expert's explanation, passes or fails the pass mark; who passes does
main units (their gold items hidden in the payload, attention checks) and gets the completion code, who fails gets
the completion code for the training place and a polite word."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.services import publishing
from tests.crowd.conftest import fake_prolific  # noqa: F401 - fixture (the fake on loopback)
from tests.e2e.helpers import press, wait_for
from tests.work.builders import GOLD_EXPLANATION, make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _label(pg, *, careful: bool) -> None:
    pg.get_by_test_id("start-button").click()
    press(pg, "c", "c", "s" if careful else "n", "n")  # gold: the first span covered, the first QA supported
    press(pg, "Control+Enter")


def test_training_then_main_units_or_a_polite_goodbye_in_chromium(settings, live_server, page, shot,
                                                                    fake_prolific):  # noqa: F811
    settings.PUBLIC_BASE_URL = live_server.url
    units = make_unit("E2E training", n_qas=2, n_responses=1, wanted=1, provider="prolific", n_sources=3)
    batch = units[0].batch
    Unit.objects.filter(pk=units[0].pk).update(is_training=True)
    publishing.publish_batch(batch, reward="0.80", assignments_per_unit=1, units_per_place=3)
    batch.refresh_from_db()
    fake_prolific.studies[batch.provider_ref]["total_available_places"] = 2

    started = fake_prolific.start_submission(batch.provider_ref, "PASS-PID")
    page.goto(started["url"])
    _label(page, careful=True)
    page.get_by_test_id("training-feedback").wait_for()
    shot(page, "training-feedback-passed")
    assert page.get_by_test_id("training-item").count() == 2
    assert GOLD_EXPLANATION in page.content() and "You are qualified" in page.content()
    page.get_by_test_id("training-continue").click()
    for n in (1, 2):  # the main units: their gold items look like any other
        page.get_by_test_id("start-button").wait_for()
        assert GOLD_EXPLANATION not in page.content()
        _label(page, careful=True)
        wait_for(lambda n=n: Assignment.objects.filter(worker__external_id="PASS-PID", unit__is_training=False,
                                                       status="submitted").count() == n, what=f"main unit {n}")
    page.get_by_test_id("completion-code").wait_for()
    shot(page, "training-passed-completion")

    started = fake_prolific.start_submission(batch.provider_ref, "FAIL-PID")
    page.goto(started["url"])
    _label(page, careful=False)
    page.get_by_test_id("training-feedback").wait_for()
    assert "cannot offer you the main task" in page.content()
    shot(page, "training-feedback-failed")
    page.get_by_test_id("training-continue").click()
    page.get_by_test_id("completion-code").wait_for()
    assert "Thank you for doing the training" in page.content()
    shot(page, "training-failed-completion")
    failed = Assignment.objects.get(worker__external_id="FAIL-PID")
    assert failed.unit_id == units[0].pk and failed.status == "approved"
