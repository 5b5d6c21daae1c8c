"""Time from navigation start to the first label accepted, and keystrokes per label, in headless Chromium.

A unit with two responses of 60 QAs each (60 spans, 60 QAs per response, plus the pairwise comparison) is served
by Django on loopback (a fresh SQLite database in a temp dir). Each run opens the unit page in a fresh browser
context (cold cache), presses Start (Enter) and one label key (c), and reads, from the page's own clock
(performance.now(), 0 = navigation start), when the first item is shown as labeled in the element's DOM.
A MutationObserver on the element's shadow root records the moments; the keydown is recorded in capture phase.
Runs alternate: in-page keys (a zero-reaction-time user: Enter as soon as Start is in the DOM, "c" one frame
later, with the driver kept out of the page until it is done) and Playwright keys (real input events through the
driver, which polls the page for the Start button). The server (gunicorn by default) is warmed first with plain
HTTP requests; every browser run is a fresh context. The unit page embeds the unit (unit-data-id), so no
GET unit is expected: `unit_requests_per_run` shows it, and the unit request phases appear when one is made.

Usage: .venv/bin/python bench/bench_first_label.py [--runs 15] [--qas 60] [--shots /tmp/factcrowd-bench]
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

INIT_SCRIPT = """
(() => {
  const fc = (window.__fc = { ready: null, firstLabel: null, keyAt: null, upgraded: null });
  // the driver waits for these attributes with locator waits (selectors, no eval: the page's CSP forbids it)
  const mark = (name) => document.documentElement.setAttribute('data-fc-' + name, '');
  window.addEventListener('keydown', (e) => {
    if (e.key === 'c' && fc.keyAt === null) fc.keyAt = performance.now();
  }, true);
  function check(root) {
    if (fc.ready === null && root.querySelector('[data-testid="start-button"]')) {
      fc.ready = performance.now();
      mark('ready');
      if (window.__fcAuto) {
        // a zero-reaction-time user: Enter (Start) then "c" one frame later, dispatched in the page
        const key = (k) => window.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
        setTimeout(() => { key('Enter'); requestAnimationFrame(() => key('c')); }, 0);
      }
    }
    if (fc.firstLabel === null && root.querySelector('.item.labeled')) {
      fc.firstLabel = performance.now();
      mark('first-label');
    }
  }
  function hook() {
    const el = document.querySelector('factcrowd-annotator');
    if (el && el.shadowRoot) {
      const root = el.shadowRoot;
      fc.upgraded = performance.now();
      check(root);
      new MutationObserver(() => check(root)).observe(root, { subtree: true, childList: true, attributes: true });
    } else {
      requestAnimationFrame(hook);
    }
  }
  hook();
})();
"""


def setup_django(tmp: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    os.environ["FACTCROWD_VAR_DIR"] = str(tmp)
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def collect_static() -> None:
    """Static files as production serves them: collected, then served by whitenoise (in MIDDLEWARE)."""
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


def serve() -> str:
    """Django (with static files) on a free loopback port, in a daemon thread."""
    from socketserver import ThreadingMixIn

    from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer, get_internal_wsgi_application

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    httpd = Server(("127.0.0.1", port), QuietHandler)
    httpd.set_app(get_internal_wsgi_application())
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{port}"


def serve_gunicorn(workers: int) -> tuple[str, subprocess.Popen]:
    """gunicorn in its own process, as in production (docker/Dockerfile): the browser driver in this process
    then competes with the server for nothing but the machine's CPUs."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [str(gunicorn), "backend.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", "4",
         "--log-level", "warning"],
        cwd=REPO, env=os.environ.copy(),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return f"http://127.0.0.1:{port}", proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("gunicorn did not start")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--qas", type=int, default=60, help="QAs (and spans) per response")
    ap.add_argument("--shots", default="/tmp/factcrowd-bench")
    ap.add_argument("--server", choices=["gunicorn", "inprocess"], default="gunicorn")
    ap.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="factcrowd-bench-"))
    setup_django(tmp)
    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS, build_element

    build_element()
    collect_static()
    from annotation_tasks.models import Assignment, PairwisePreference, QALabel, SpanLabel, Worker
    from annotation_tasks.services.tokens import assignment_token
    from annotation_tasks.services.work import unit_payload
    from tests.work.builders import make_unit

    # caps above the unit's size: the bench measures one whole unit of 2 x qas spans and QAs (the default caps
    # cut the pair into units of 12 spans / 20 QAs, and the keyboard pass would count keys for items never shown)
    caps = {"spans": min(1000, 2 * args.qas), "qas": min(1000, 2 * args.qas), "facts": min(1000, 2 * args.qas)}
    unit = make_unit("Bench", n_qas=args.qas, n_responses=2, wanted=2 * args.runs + 3 + 24, unit_caps=caps)
    server_proc = None
    if args.server == "gunicorn" and Path(sys.executable).with_name("gunicorn").exists():
        base, server_proc = serve_gunicorn(args.workers)
    else:
        base = serve()
    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)

    def new_url(i: int) -> tuple[Assignment, str]:
        a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"bench-{i}"))
        return a, f"{base}/work/{assignment_token(a)}/"

    def warm_server() -> None:
        """Each gunicorn worker's first requests are slow (imports, templates, first queries): send unit pages,
        GET unit answers and the element script from 8 threads at once, 3 rounds, so every worker has served them
        before the measured (browser) runs. The browser runs themselves stay cold (fresh contexts)."""
        from concurrent.futures import ThreadPoolExecutor
        from urllib.request import urlopen

        def fetch(k: int) -> None:
            a, url = new_url(-1000 - k)
            for u in (url, f"{base}/api/work/{assignment_token(a)}/unit",
                      f"{base}/static/annotation_tasks/dist/factcrowd-annotator.js"):
                with urlopen(u, timeout=30) as r:
                    r.read()

        with ThreadPoolExecutor(8) as pool:
            for rnd in range(3):
                list(pool.map(fetch, range(8 * rnd, 8 * rnd + 8)))

    warm_server()
    from playwright.sync_api import sync_playwright

    first, first_auto, ready, key_to_label, payload_bytes = [], [], [], [], 0
    phases: dict[str, list[float]] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        for i in range(2 * args.runs + 2):  # runs 0 and 1 warm the server (imports, first queries); not counted
            _, url = new_url(i)
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            auto = i % 2 == 0  # alternate: in-page keys (app time only), Playwright keys (real input + driver)
            if auto:
                page.add_init_script("window.__fcAuto = true")
            page.add_init_script(INIT_SCRIPT)
            page.goto(url, wait_until="commit")
            if auto:
                # the page runs by itself: leave the driver out of it until it is done (Playwright's polling and
                # injected scripts would otherwise compete for the page's main thread and count as app time)
                time.sleep(1.0)
            else:
                page.locator("html[data-fc-ready]").wait_for(state="attached", timeout=30000)
                page.keyboard.press("Enter")
                page.keyboard.press("c")
            page.locator("html[data-fc-first-label]").wait_for(state="attached", timeout=30000)
            fc = page.evaluate("window.__fc")
            marks = page.evaluate("""() => {
              const r = performance.getEntriesByType('resource');
              const end = (part) => (r.find((e) => e.name.includes(part)) || {}).responseEnd || null;
              const u = r.find((e) => e.name.includes('/unit')) || {};
              const nav = performance.getEntriesByType('navigation')[0];
              const paint = performance.getEntriesByName('first-contentful-paint')[0];
              return {unit_start: u.startTime || null, unit_first_byte: u.responseStart || null,
                      html: nav.responseEnd, dom_content_loaded: nav.domContentLoadedEventEnd,
                      script: end('factcrowd-annotator.js'), unit: end('/unit'),
                      first_paint: paint ? paint.startTime : null,
                      unit_requests: r.filter((e) => e.name.includes('/api/work/') && e.name.endsWith('/unit')).length};
            }""")
            if i == 2:
                page.screenshot(path=str(shots / "first-label.png"))
            if i > 1 and auto:
                first_auto.append(fc["firstLabel"])
            if i > 1 and not auto:
                first.append(fc["firstLabel"])
            if i > 1:
                ready.append(fc["ready"])
                key_to_label.append(fc["firstLabel"] - fc["keyAt"])
                marks["element_upgraded"] = fc["upgraded"]
                for k, v in marks.items():
                    if v is not None:
                        phases.setdefault(k, []).append(v)
            ctx.close()

        # keystrokes per label: one whole unit by keyboard only
        a, url = new_url(10_000)
        payload_bytes = len(json.dumps(unit_payload(a)))
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.goto(url)
        page.get_by_test_id("start-button").wait_for()
        page.keyboard.press("Enter")
        label_keys = 0
        started = time.perf_counter()
        for _resp in range(2):
            for _ in range(args.qas):
                page.keyboard.press("c")
                label_keys += 1
            for _ in range(args.qas):
                page.keyboard.press("s")
                label_keys += 1
        page.keyboard.press("3")
        label_keys += 1
        labeling_s = time.perf_counter() - started
        bar = page.get_by_test_id("progress-bar")
        done, total = int(bar.get_attribute("aria-valuenow")), int(bar.get_attribute("aria-valuemax"))
        page.screenshot(path=str(shots / "all-labeled.png"))
        page.keyboard.press("Control+Enter")
        page.get_by_test_id("submitted-message").wait_for(timeout=30000)
        page.screenshot(path=str(shots / "submitted.png"))
        ctx.close()
        browser.close()

    if server_proc is not None:
        server_proc.terminate()
        server_proc.wait(10)
    labels = (SpanLabel.objects.filter(assignment=a).count() + QALabel.objects.filter(assignment=a).count()
              + PairwisePreference.objects.filter(assignment=a).count())
    result = {
        "unit": f"2 responses x {args.qas} QAs/spans + 1 comparison ({total} items); payload {payload_bytes} bytes",
        "runs": args.runs,
        "server": f"gunicorn, {args.workers} workers x 4 threads" if server_proc else "in-process threaded WSGI",
        "nav_to_first_label_inpage_keys_ms": {
            "median": round(statistics.median(first_auto), 1), "p90": round(pct(first_auto, 0.9), 1),
            "min": round(min(first_auto), 1), "max": round(max(first_auto), 1)},
        "nav_to_first_label_ms": {"median": round(statistics.median(first), 1), "p90": round(pct(first, 0.9), 1),
                                  "min": round(min(first), 1), "max": round(max(first), 1)},
        "nav_to_start_button_ms": {"median": round(statistics.median(ready), 1), "p90": round(pct(ready, 0.9), 1)},
        # the unit page embeds the unit (unit-data-id): no unit request is expected; its phases show up when one is
        "median_ms_since_navigation": {
            name: round(statistics.median(phases[key]), 1) for name, key in (
                ("html_received", "html"), ("element_script_received", "script"),
                ("dom_content_loaded", "dom_content_loaded"), ("element_upgraded_rAF", "element_upgraded"),
                ("unit_request_sent", "unit_start"), ("unit_first_byte", "unit_first_byte"),
                ("unit_json_received", "unit"), ("first_contentful_paint", "first_paint"),
            ) if phases.get(key)
        } | {"start_button_shown": round(statistics.median(ready), 1)},
        "unit_requests_per_run": sorted(set(phases["unit_requests"])),
        "keydown_to_label_in_dom_ms": {"median": round(statistics.median(key_to_label), 1),
                                       "p90": round(pct(key_to_label, 0.9), 1)},
        "target_ms": 300,
        "keyboard_pass": {"label_keys": label_keys, "labels_in_db": labels, "progress": f"{done}/{total}",
                          "keystrokes_per_label": round(label_keys / labels, 3),
                          "with_start_and_submit": round((label_keys + 2) / labels, 3),
                          "seconds_for_all_keys": round(labeling_s, 2)},
        "screenshots": str(shots),
    }
    print(json.dumps(result, indent=2))
    return 0 if done == total == labels else 1


if __name__ == "__main__":
    raise SystemExit(main())
