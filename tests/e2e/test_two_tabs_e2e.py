"""Two tabs on one assignment in real Chromium (issue 23, item 4): the stale tab's save is refused with a conflict it
shows, never a silent overwrite of the other tab's saved labels, and its submit is refused too."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment
from tests.e2e.helpers import new_token, open_unit, press, wait_for
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _qas(a: Assignment) -> dict:
    return (Assignment.objects.get(pk=a.pk).draft or {}).get("labels", {}).get("spans", {})


def test_a_stale_tab_shows_the_conflict_and_overwrites_nothing(live_server, new_page, shot):
    unit = make_unit("E2E two tabs", n_qas=2, n_responses=1, protocol=["span_coverage", "qa_support"])
    a, token = new_token(unit)
    first, second = new_page(), new_page()  # two windows (contexts of their own: no shared local copy)
    open_unit(first, live_server.url, token)
    open_unit(second, live_server.url, token)
    press(second, "Enter", "c", "c")  # the newer tab labels both spans covered and saves
    wait_for(lambda: len(_qas(a)) == 2, what="the second tab's draft")
    saved = Assignment.objects.get(pk=a.pk).draft
    press(first, "Enter", "n")  # the stale tab labels a span: its save names the version it loaded
    first.locator("[data-testid=save-indicator][data-status=conflict]").wait_for()
    assert "another tab" in first.get_by_test_id("save-indicator").inner_text()
    shot(first, "stale-tab-conflict")
    assert Assignment.objects.get(pk=a.pk).draft == saved  # the newer tab's labels stand
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.ASSIGNED
