"""PostgreSQL restarted in the middle of a load run: gunicorn reconnects by itself, annotators retry what
failed while it was down, and nothing is lost: every assignment is submitted exactly once, with its labels once,
and every unit completes.

The restart needs a cluster of our own (restarting the shared one would disturb every other user): initdb into a
temp dir, on a free port, as the postgres OS user; the test database is copied into it with pg_dump."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg
import pytest
import requests
from django.db import connection

from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services import work
from annotation_tasks.services.tokens import assignment_token
from tests.integration import procs
from tests.work.builders import make_unit
from tests.work.helpers import qasem_labels

pytestmark = [pytest.mark.slow]

PG_BIN = Path("/usr/lib/postgresql")


def pg_bin(name: str) -> str:
    found = sorted(PG_BIN.glob(f"*/bin/{name}"), key=lambda p: float(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    return str(found[-1]) if found else shutil.which(name) or name


def as_postgres(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    done = subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", " ".join(args)], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, f"{' '.join(args)}: {done.stdout}\n{done.stderr}"
    return done


@pytest.fixture
def own_postgres():
    if os.geteuid() != 0 or not shutil.which("su") or not Path(pg_bin("initdb")).exists():
        pytest.skip("an own PostgreSQL cluster needs root (to run initdb as postgres) and the server binaries")
    data = Path(tempfile.mkdtemp(prefix="factcrowd-pg-"))
    shutil.chown(data, "postgres")
    port = procs.free_port()
    as_postgres(pg_bin("initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres", "--no-sync", timeout=120)
    ctl = [pg_bin("pg_ctl"), "-D", str(data / "db"), "-l", str(data / "log"), "-w", "-t", "60",
           "-o", f"'-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off'"]
    as_postgres(*ctl, "start")
    url = f"postgres://postgres@127.0.0.1:{port}/factcrowd"
    try:
        as_postgres(pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "factcrowd")
        yield url, (lambda: as_postgres(*ctl, "-m", "fast", "restart", timeout=90))
    finally:
        subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", " ".join([*ctl, "-m", "immediate", "stop"])],
                       capture_output=True, timeout=60)
        shutil.rmtree(data, ignore_errors=True)


def copy_test_database(url: str) -> None:
    """The test database (schema and the rows this test made) into the private cluster."""
    s = connection.settings_dict
    env = {**os.environ, "PGPASSWORD": s.get("PASSWORD") or ""}
    dump = subprocess.run([pg_bin("pg_dump"), "-h", s.get("HOST") or "127.0.0.1", "-p", str(s.get("PORT") or 5432),
                           "-U", s["USER"], "--no-owner", "--no-acl", s["NAME"]],
                          capture_output=True, env=env, timeout=120, check=True).stdout
    subprocess.run([pg_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", url], input=dump, capture_output=True,
                   timeout=120, check=True)


def annotate_until_done(base: str, token: str, labels: dict, stats: Counter, lock: threading.Lock) -> None:
    """The unit, a draft, the submit; a step that fails (a 5xx, a refused connection) is tried again."""
    steps = [("GET", f"/api/work/{token}/unit", None), ("PUT", f"/api/work/{token}/draft", {"draft": {"n": 1}}),
             ("POST", f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": 900})]
    with requests.Session() as http:
        for method, path, body in steps:
            deadline = time.monotonic() + 60
            while True:
                try:
                    code = http.request(method, base + path, json=body, timeout=30).status_code
                except requests.RequestException:
                    code = "refused"
                with lock:
                    stats[(method, code)] += 1
                if code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.3)
            time.sleep(0.2)


def test_postgres_restart_during_a_load_run_loses_nothing(topology, own_postgres):
    url, restart = own_postgres
    units = make_unit("Restart", n_sources=12, wanted=3, n_qas=2)
    tokens, labels = [], {}
    for unit in units:
        for k in range(3):
            a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"r{unit.pk}-{k}"))
            tokens.append(assignment_token(a))
            labels[tokens[-1]] = qasem_labels(work.unit_payload(a))
    copy_test_database(url)
    topology.env["DATABASE_URL"] = url
    base = topology.start_web()

    stats, lock = Counter(), threading.Lock()
    threads = [threading.Thread(target=annotate_until_done, args=(base, t, labels[t], stats, lock)) for t in tokens]
    for i, t in enumerate(threads):
        t.start()
        time.sleep(0.05)
        if i == len(threads) // 3:
            restart()  # a third of the annotators are on their way, the rest arrive while it comes back
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads)

    with psycopg.connect(url) as db:
        submitted = db.execute("SELECT count(*) FROM annotation_tasks_assignment WHERE status = 'submitted'").fetchone()[0]
        open_units = db.execute("SELECT count(*) FROM annotation_tasks_unit WHERE status <> 'complete'").fetchone()[0]
        per_assignment = db.execute("SELECT assignment_id, count(*), count(DISTINCT qa_id) FROM "
                                    "annotation_tasks_qalabel GROUP BY assignment_id").fetchall()
    assert stats[("POST", 200)] == len(tokens), (stats, topology.logs())
    assert submitted == len(tokens) and open_units == 0
    assert len(per_assignment) == len(tokens) and all(n == d == 4 for _, n, d in per_assignment)
    print(f"\nrequests by answer across the restart: {dict(stats)}")
