"""Local annotators: invite link → next-unit page → unit → submit → the next unit; and many annotators asking
the live server for units at once never push a unit past N."""
from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from annotation_tasks.models import Assignment, ProjectMembership, SpanLabel
from annotation_tasks.services.tokens import invite_token
from tests.e2e.helpers import press
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_invited_annotator_works_through_the_queue(live_server, page, shot):
    units = make_unit("E2E local", n_qas=1, n_responses=1, n_sources=2, wanted=1)
    page.goto(f"{live_server.url}/invite/{invite_token(units[0].project)}/")
    page.get_by_label("Your name").fill("Queue Tester")
    page.get_by_test_id("invite-join").click()
    page.get_by_test_id("start-button").wait_for()
    assert "/work/" in page.url
    shot(page, "first-unit")
    press(page, "Enter", "c", "s", "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    # the unit page sends a local annotator on to the next unit
    page.get_by_test_id("start-button").wait_for(timeout=10000)
    press(page, "Enter", "n", "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    expect(page.get_by_test_id("queue-status")).to_contain_text("Nothing left", timeout=10000)
    shot(page, "nothing-left")
    user = ProjectMembership.objects.get().user
    done = Assignment.objects.filter(worker__user=user, status="submitted")
    assert sorted(done.values_list("unit_id", flat=True)) == sorted(u.pk for u in units)
    assert sorted(SpanLabel.objects.values_list("covered", flat=True)) == [False, True]


def _session_cookie(user) -> str:
    c = Client()
    c.force_login(user)
    return c.cookies["sessionid"].value


def test_many_annotators_at_once_never_push_a_unit_past_n(live_server):
    units = make_unit("E2E rush", n_qas=1, n_responses=1, n_sources=5, wanted=3)
    project = units[0].project
    users = [get_user_model().objects.create_user(f"ann{i}") for i in range(24)]
    for u in users:
        ProjectMembership.objects.create(project=project, user=u, role="annotator")
    cookies = [_session_cookie(u) for u in users]
    csrf = "k" * 32
    barrier = threading.Barrier(len(users))
    results: list[int] = []
    errors: list[str] = []

    def ask(session: str) -> None:
        req = urllib.request.Request(
            f"{live_server.url}/api/work/next", data=json.dumps({"project": project.pk}).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-CSRFToken": csrf,
                     "Cookie": f"sessionid={session}; csrftoken={csrf}"},
        )
        barrier.wait()
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                results.append(resp.status)
        except urllib.error.HTTPError as exc:
            errors.append(f"{exc.code} {exc.read()[:200]!r}")
        except Exception as exc:  # connection errors are failures too, reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=ask, args=(c,)) for c in cookies]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    print(f"{len(users)} concurrent next-unit requests took {time.monotonic() - started:.2f}s")
    assert errors == []
    assert Counter(results) == {200: 15, 204: 9}
    per_unit = Counter(Assignment.objects.values_list("unit_id", flat=True))
    assert per_unit == {u.pk: 3 for u in units}
    assert Assignment.objects.values("worker").distinct().count() == 15
