"""`make run` end to end, without reinstalling: scripts/run.sh (FACTCROWD_SKIP_SETUP=1) in a temp FACTCROWD_VAR_DIR.

The script migrates, loads the demo (a second time here: it must be idempotent), and starts a real Celery
worker (prefork), beat and runserver on the default SQLite file and filesystem broker. A browser-like client
logs in as demo/demo, opens the dashboard, and uploads and parses through the API; the jobs finish in the
real worker. Stopping: Ctrl-C (SIGINT to the terminal's process group), `kill` of the script alone, and a
crashed worker each leave no process behind.
"""
from __future__ import annotations

import os
import re
import signal
import socket

import pytest
import requests

from tests.integration import procs

pytestmark = [
    pytest.mark.slow,
    # `make run` is SQLite by definition (it ignores the test database): the SQLite pass of scripts/test.sh runs it
    pytest.mark.skipif(os.environ.get("DATABASE_URL", "").startswith("postgres"), reason="make run runs on SQLite"),
]

DEMO_ITEMS = procs.REPO / "annotation_tasks" / "demo" / "items.sample.jsonl"
DASHBOARD_JS = procs.REPO / "annotation_tasks" / "static" / "annotation_tasks" / "dist" / "dashboard.js"


def start_run_sh(tmp_path, first_load: bool = False, **extra_env: str) -> tuple[procs.Proc, str, str]:
    var_dir = tmp_path / "var"
    port = procs.free_port()
    # no DATABASE_URL: the default SQLite file in FACTCROWD_VAR_DIR
    env = procs.app_env(var_dir, None, PORT=str(port), FACTCROWD_SKIP_SETUP="1", **extra_env)
    first = ""
    if first_load:
        procs.manage(env, "migrate", "--noinput")
        first = procs.manage(env, "load_demo").stdout
    run = procs.Proc("run.sh", ["bash", "scripts/run.sh"], env, tmp_path)
    base = f"http://127.0.0.1:{port}"
    procs.wait_until(lambda: _status(f"{base}/accounts/login/") == 200, 120, "the web server", [run], interval=0.3)
    procs.wait_until(lambda: " ready." in run.log(), 60, "the worker", [run], interval=0.3)
    return run, base, first


def _status(url: str) -> int | None:
    try:
        return requests.get(url, timeout=5).status_code
    except requests.ConnectionError:
        return None


def wait_job(session: requests.Session, base: str, job_id: int, run: procs.Proc, timeout: float = 90) -> dict:
    def finished():
        job = session.get(f"{base}/api/jobs/{job_id}/", timeout=10).json()
        return job if job["status"] in ("done", "failed") else None

    return procs.wait_until(finished, timeout, f"job {job_id}", [run], interval=0.5)


def assert_all_stopped(run: procs.Proc, timeout: float = 60) -> int:
    procs.wait_until(lambda: not run.alive() and not run.group_pids(), timeout, "run.sh and its children to stop")
    return run.popen.returncode


def test_make_run_serves_the_demo_and_runs_jobs_in_its_worker(tmp_path):
    run, base, first = start_run_sh(tmp_path, first_load=True, CROWD_SYNC_SECONDS="2")
    try:
        # load_demo again (run.sh runs it on every start): nothing new the second time
        assert int(re.search(r"(\d+) new units", first).group(1)) > 0
        log = run.log()
        assert re.search(r"\b0 new units", log) and "0 imported" in log, log
        # beat keeps its schedule in FACTCROWD_VAR_DIR, not in the checkout's var/
        procs.wait_until(lambda: list((tmp_path / "var").glob("celerybeat-schedule*")), 30, "beat's schedule", [run])
        # beat sends the crowd sync every CROWD_SYNC_SECONDS; the worker runs it against the demo's open batches
        procs.wait_until(lambda: re.search(r"sync_open_batches\[[-0-9a-f]+\] succeeded", run.log()), 60,
                         "a beat-sent sync to succeed in the worker", [run], interval=0.5)

        web = requests.Session()
        login = web.get(f"{base}/accounts/login/", timeout=10)
        assert login.status_code == 200 and "csrftoken" in web.cookies
        page = web.post(
            f"{base}/accounts/login/",
            data={"username": "demo", "password": "demo", "csrfmiddlewaretoken": web.cookies["csrftoken"]},
            headers={"Referer": f"{base}/accounts/login/"}, timeout=10,
        )
        assert page.status_code == 200 and page.url == f"{base}/", (page.url, page.text[:500])
        assert 'id="factcrowd-dashboard"' in page.text and 'data-user="demo"' in page.text
        if DASHBOARD_JS.exists():
            assert web.get(f"{base}/static/annotation_tasks/dist/dashboard.js", timeout=10).status_code == 200

        projects = web.get(f"{base}/api/projects/", timeout=10).json()["results"]
        demo = next(p for p in projects if p["name"] == "Demo")
        write = {"X-CSRFToken": web.cookies["csrftoken"], "Referer": f"{base}/"}

        with DEMO_ITEMS.open("rb") as handle:
            upload = web.post(f"{base}/api/projects/{demo['id']}/upload/", files={"file": handle},
                              data={"format": "items"}, headers=write, timeout=30)
        assert upload.status_code == 202, upload.text
        job = wait_job(web, base, upload.json()["id"], run)
        assert (job["status"], job["kind"], job["result"]["lines"]) == ("done", "import", 3), job

        def count(what: str) -> int:
            return web.get(f"{base}/api/{what}/", params={"project": demo["id"]}, timeout=10).json()["count"]

        qas_before = count("qas")
        started = web.post(f"{base}/api/projects/{demo['id']}/parse/", json={}, headers=write, timeout=30)
        assert started.status_code == 202, started.text
        job = wait_job(web, base, started.json()["id"], run)
        assert (job["status"], job["kind"], job["error"]) == ("done", "parse", ""), job
        # "Start parsing" parses what is not decomposed yet: the 3 uploaded responses, not the pre-parsed demo
        assert job["done"] == job["total"] == 3 and job["result"]["qas"] > 0
        assert count("qas") == qas_before + job["result"]["qas"]
        responses = web.get(f"{base}/api/responses/", params={"project": demo["id"], "page_size": 500}, timeout=10).json()
        assert sum(r["parser_backend"] == "embedded" and bool(r["parsed_at"]) for r in responses["results"]) == 3
    finally:
        # Ctrl-C in the terminal: SIGINT to the whole foreground process group
        run.signal_group(signal.SIGINT)
        try:
            code = assert_all_stopped(run)
        finally:
            run.stop()
    assert code == 130, run.log()[-3000:]


@pytest.mark.parametrize("how", ["kill the script", "the worker crashes", "Ctrl-C twice"])
def test_run_sh_leaves_no_process_behind(tmp_path, how):
    run, base, _ = start_run_sh(tmp_path)
    try:
        children = [pid for pid in run.group_pids() if pid != run.pid]
        assert len(children) >= 4, children  # worker (+2 pool processes), beat, runserver
        if how == "kill the script":
            run.popen.send_signal(signal.SIGTERM)  # `kill PID`: only the script gets the signal
            expected = 143
        elif how == "Ctrl-C twice":  # the second one does not wait for the worker's warm shutdown
            run.signal_group(signal.SIGINT)
            procs.wait_until(lambda: "stopping worker, beat" in run.log(), 10, "cleanup", interval=0.05)
            run.signal_group(signal.SIGINT)
            procs.wait_until(lambda: "stopping at once" in run.log(), 10, "the second Ctrl-C", interval=0.05)
            expected = 130
        else:
            worker = next(pid for pid in children if _parent(pid) == run.pid and "worker" in _cmdline(pid))
            os.kill(worker, signal.SIGKILL)
            expected = 128 + signal.SIGKILL  # wait -n reports the worker's status
        code = assert_all_stopped(run)
        assert _status(f"{base}/accounts/login/") is None  # the web server went with it
    finally:
        run.stop()
    assert code == expected, run.log()[-3000:]


def _parent(pid: int) -> int:
    stat = open(f"/proc/{pid}/stat").read()
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def _cmdline(pid: int) -> str:
    return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()



def test_run_sh_stops_everything_when_the_port_is_taken(tmp_path):
    """runserver cannot listen: the worker and beat it already started must not keep running without it."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = procs.app_env(tmp_path / "var", None, PORT=str(taken.getsockname()[1]), FACTCROWD_SKIP_SETUP="1")
        run = procs.Proc("run.sh", ["bash", "scripts/run.sh"], env, tmp_path)
        try:
            code = assert_all_stopped(run, timeout=120)
        finally:
            run.stop()
    log = run.log()
    assert code == 1 and "That port is already in use" in log and "stopping the rest" in log, log[-3000:]
