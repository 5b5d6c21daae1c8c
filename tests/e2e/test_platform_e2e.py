"""MTurk-style entry inside a cross-origin iframe, with a fake externalSubmit endpoint on loopback; preview mode;
framing refused for origins outside FRAME_ANCESTORS."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode

import pytest

from annotation_tasks.models import Assignment, Batch, QALabel, SpanLabel
from annotation_tasks.services.tokens import unit_entry_path
from tests.e2e.helpers import press, wait_for
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class FakeTurk:
    """A tiny platform on 127.0.0.1: serves a page framing the unit URL and records externalSubmit POSTs."""

    def __init__(self) -> None:
        self.posts: list[dict[str, list[str]]] = []
        self.frame_url = ""
        turk = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                body = f'<!doctype html><title>HIT</title><iframe id="hit" src="{turk.frame_url}" width="1200" height="860"></iframe>'
                self._send(body)

            def do_POST(self):  # noqa: N802
                data = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                turk.posts.append({"path": [self.path], **parse_qs(data)})
                self._send("<!doctype html><p id='thanks'>HIT submitted</p>")

            def _send(self, body: str) -> None:
                raw = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def turk(settings, monkeypatch):
    mturk = pytest.importorskip("annotation_tasks.crowd.mturk")
    # this fake is MTurk's worker site only (no requester API to ask): MTurk cannot read an accepted assignment
    # anyway, so the entry is let in to be verified at sync (tests/crowd asks a fake requester API)
    monkeypatch.setattr(mturk.MTurkProvider, "verify_entry",
                        lambda self, unit, ctx: mturk.EntryCheck(mturk.EntryVerdict.AFTER_SUBMIT))
    fake = FakeTurk()
    settings.MTURK_SUBMIT_TEST_ORIGIN = fake.origin  # besides MTurk's own sites, the only turkSubmitTo allowed
    yield fake
    fake.close()


def mturk_unit():
    unit = make_unit("E2E MTurk", n_qas=2, n_responses=1, wanted=2)
    Batch.objects.filter(pk=unit.batch_id).update(provider="mturk")
    type(unit).objects.filter(pk=unit.pk).update(provider_ref="HIT1")  # the unit's HIT, stored at publish
    return unit


def hit_frame(page, turk, live_server, unit, **params):
    query = {"hitId": "HIT1", "turkSubmitTo": turk.origin, **params}
    turk.frame_url = f"{live_server.url}{unit_entry_path(unit)}?{urlencode(query)}"
    page.goto(f"{turk.origin}/hit")
    return page.frame_locator("#hit")


def test_mturk_entry_in_iframe_submits_to_external_submit(settings, live_server, page, turk, shot):
    settings.FRAME_ANCESTORS = ["'self'", turk.origin]
    unit = mturk_unit()
    frame = hit_frame(page, turk, live_server, unit, assignmentId="ASG-1", workerId="WORKER-1")
    frame.get_by_test_id("start-button").click()  # inside a platform's frame, keys arrive after a click
    shot(page, "started-in-iframe")
    press(page, "c", "c", "s", "n")
    shot(page, "labeled-in-iframe")
    press(page, "Control+Enter")
    wait_for(lambda: turk.posts, what="the externalSubmit POST")
    shot(page, "after-external-submit")
    post = turk.posts[0]
    assert post["path"] == ["/mturk/externalSubmit"] and post["assignmentId"] == ["ASG-1"]
    a = Assignment.objects.get()
    assert (a.provider_assignment_id, a.worker.provider, a.worker.external_id, a.status) == (
        "ASG-1", "mturk", "WORKER-1", "submitted")
    assert SpanLabel.objects.filter(assignment=a, covered=True).count() == 2
    assert sorted(QALabel.objects.filter(assignment=a).values_list("supported", flat=True)) == [False, True]


def test_mturk_preview_shows_the_unit_but_takes_no_labels(settings, live_server, page, turk, shot):
    settings.FRAME_ANCESTORS = ["'self'", turk.origin]
    unit = mturk_unit()
    frame = hit_frame(page, turk, live_server, unit, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE")
    frame.get_by_test_id("preview-banner").wait_for()
    assert frame.get_by_test_id("start-button").count() == 0
    assert frame.get_by_test_id("submit-button").is_disabled()
    assert frame.get_by_test_id("span-item").count() == 2
    # the banner takes room from the work area, not from the footer: all of it fits in the frame, no scrolling
    fits = frame.locator("factcrowd-annotator").evaluate("""el => {
      const foot = el.shadowRoot.querySelector('.fc-foot').getBoundingClientRect();
      const banner = el.shadowRoot.querySelector('[data-testid="preview-banner"]').getBoundingClientRect();
      return {footBottom: foot.bottom, bannerBottom: banner.bottom, height: innerHeight,
              scroll: document.documentElement.scrollHeight};
    }""")
    assert fits["bannerBottom"] < fits["footBottom"] <= fits["height"] and fits["scroll"] <= fits["height"], fits
    frame.get_by_test_id("span-item").first.click()
    press(page, "c", "Control+Enter")
    page.wait_for_timeout(300)
    shot(page, "preview")
    assert frame.locator(".item.labeled").count() == 0
    assert not Assignment.objects.exists() and not turk.posts


def test_framing_is_refused_for_other_origins(settings, live_server, page, turk):
    settings.FRAME_ANCESTORS = ["'self'", "https://worker.mturk.com"]
    unit = mturk_unit()
    hit_frame(page, turk, live_server, unit, assignmentId="ASG-2", workerId="W2")
    page.wait_for_timeout(1000)
    frame = page.frame(url=lambda u: "/work/unit/" in u)
    # Chromium blocks the document: the frame never shows the element
    assert frame is None or frame.locator("factcrowd-annotator").count() == 0
