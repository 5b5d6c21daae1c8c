"""Label Studio 1.23.2 on the same data as bench/bench_scale.py (issue 25): its task list and JSON export, as ratios.

Issue 25 compares FactCrowd's researcher side with Label Studio's on one project of 113,540 units. This script
(never run by tests or CI) starts Label Studio from its own virtual environment on PostgreSQL, imports the
project bench_scale.py built (one task per unit: the source and response texts and the unit's QAs as data, and
each of its 3 assignments as an annotation with one choice per QA, so the 971,460 labels are there too), then
times, over HTTP with a token (median of --repeat), the task list's first and last page (page_size 20, as the
dashboard's responses list) and the JSON export, with the Label Studio process's RSS (/proc VmRSS, peak VmHWM
per request kind), and prints ratios against FactCrowd's figures from bench_scale.py --json-out (its keys
list_first, list_last, list_filter, export_jsonl). Label Studio never goes into .venv or requirements:

  python3 -m venv /tmp/ls-venv && /tmp/ls-venv/bin/pip install label-studio==1.23.2
  PGPASSWORD=factcrowd createdb -h 127.0.0.1 -U factcrowd labelstudio_h6
  .venv/bin/python bench/bench_scale.py --scale 1 --keep --server --port 8660 \\
      --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_full --json-out /tmp/fc.json
  .venv/bin/python bench/bench_label_studio.py --scale 1 --port 8662 \\
      --factcrowd-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_full \\
      --ls-database labelstudio_h6 --factcrowd-json /tmp/fc.json

The import runs once (the Label Studio project "FactCrowd scale <scale>" is reused when it holds every task);
Label Studio runs as `label-studio start` does (Django's runserver, one process), so its RSS is the figure.

Measured 2026-12-04 (PostgreSQL 15, the 2-core box shared with other sessions): import of 113,540 tasks with
340,620 annotations (971,460 choices) in 1,182 s (20:59-21:20 UTC, chunks of 1000, load 10-16). Then 21:21-21:36
UTC, median of 3: task list page 1 328 ms (load 7.6), last page 5,677 360 ms, a data filter (data.unit = one task)
416 ms; Label Studio process 271 MB; JSON export (once) 876.7 s for 349 MB, process peak 3,197 MB (load 4.8-8).
Against FactCrowd's first full-scale --server run (bench_scale.py, 20:40-20:58 UTC, load 15-21, i.e. at a
higher load than Label Studio's): LS/FactCrowd time 2.47x (page 1: 133 ms), 1.86x (last page: 193 ms), 0.90x
(search + filter: 460 ms), 6.37x (JSONL export 137.7 s streamed); peak RSS 1.57x (lists) and 5.35x (export,
against the gunicorn worker's 597 MB). Against the final --server run (21:53-21:57 UTC, load 2.6-3.4; ratios by
--ls-json): 8.2x (page 1: 40 ms), 9.3x (last page: 39 ms), 4.1x (filter: 102 ms), 24.7x (export: 35.5 s).
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scale import memory_mb, reset_peak  # noqa: E402  (the same /proc readings as FactCrowd's figures)

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

LABEL_CONFIG = """<View>
  <Text name="source" value="$source"/>
  <Text name="response" value="$response"/>
  <Choices name="support" toName="response" choice="multiple">
    <Choice value="supported"/><Choice value="unsupported"/>
  </Choices>
</View>"""
USER = "bench@localhost.localdomain"


def start_label_studio(venv: Path, port: int, database: str, token: str, data_dir: Path) -> subprocess.Popen:
    """`label-studio start` on loopback, PostgreSQL database `database`, a user whose legacy token is `token`."""
    env = {**os.environ, "DJANGO_DB": "default", "POSTGRE_NAME": database, "POSTGRE_USER": "factcrowd",
           "POSTGRE_PASSWORD": "factcrowd", "POSTGRE_HOST": "127.0.0.1", "POSTGRE_PORT": "5432",
           "LABEL_STUDIO_BASE_DATA_DIR": str(data_dir), "DATA_UPLOAD_MAX_MEMORY_SIZE": str(512 * 2**20),
           "LOG_LEVEL": "WARNING", "SENTRY_DSN": "", "FRONTEND_SENTRY_DSN": "", "COLLECT_ANALYTICS": "false"}
    # no network here: its error reporting and analytics would only retry DNS lookups
    for key in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE"):
        env.pop(key, None)
    log = open(data_dir / "label-studio.log", "ab")
    return subprocess.Popen(
        [str(venv / "bin" / "label-studio"), "start", "--no-browser", "--internal-host", "127.0.0.1",
         "--port", str(port), "--username", USER, "--password", "bench-" + token[:12], "--user-token", token,
         "--enable-legacy-api-token", "--log-level", "WARNING"],
        env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=data_dir)


def wait_up(session: requests.Session, base: str, proc: subprocess.Popen | None, seconds: float = 600) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"label-studio exited with {proc.returncode}")
        try:
            if session.get(f"{base}/api/projects/", timeout=60).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(2)
    raise SystemExit("label-studio did not answer")


def factcrowd_tasks(database_url: str, scale: float, chunk: int) -> Any:
    """The bench_scale project's units as Label Studio tasks, `chunk` at a time (a list per chunk)."""
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    os.environ.setdefault("FACTCROWD_VAR_DIR", tempfile.mkdtemp(prefix="factcrowd-ls-"))
    import django

    django.setup()
    from annotation_tasks.models import QA, Project, QALabel, UnitResponse

    project = Project.objects.get(name=f"Scale {scale}")
    ids = list(UnitResponse.objects.filter(unit__project=project).order_by("unit_id").values_list("unit_id", flat=True))
    for lo in range(0, len(ids), chunk):
        part = ids[lo:lo + chunk]
        rows = list(UnitResponse.objects.filter(unit_id__in=part).order_by("unit_id").values(
            "unit_id", "response_id", "unit__source__text", "response__text"))
        resp = [r["response_id"] for r in rows]
        qas: dict[int, list[dict]] = {}
        for q in QA.objects.filter(response_id__in=resp).order_by("id").values("id", "response_id", "question",
                                                                                  "answer"):
            qas.setdefault(q["response_id"], []).append({"id": q["id"], "question": q["question"],
                                                         "answer": q["answer"]})
        anns: dict[int, dict[int, list[dict]]] = {}
        for lab in QALabel.objects.filter(qa__response_id__in=resp).order_by("id").values(
                "assignment_id", "qa_id", "qa__response_id", "supported"):
            anns.setdefault(lab["qa__response_id"], {}).setdefault(lab["assignment_id"], []).append({
                "id": f"q{lab['qa_id']}", "from_name": "support", "to_name": "response", "type": "choices",
                "value": {"choices": ["supported" if lab["supported"] else "unsupported"]}})
        yield [{"data": {"unit": r["unit_id"], "source": r["unit__source__text"], "response": r["response__text"],
                         "qas": qas.get(r["response_id"], [])},
                "annotations": [{"result": result, "ground_truth": False}
                                for result in anns.get(r["response_id"], {}).values()]}
               for r in rows]


def timed(session: requests.Session, url: str, pid: int | None, repeat: int,
          timeout: float = 3600) -> dict[str, Any]:
    """Median time (and first byte) of `repeat` GETs, bytes, and the Label Studio process's RSS. A request still
    unanswered after `timeout` s counts as that long (status "timeout": a lower bound)."""
    times, first, size, status = [], [], 0, 0
    rss0 = memory_mb(pid)[0] if pid else 0.0
    if pid:
        reset_peak(pid)
    for _ in range(repeat):
        t0 = time.perf_counter()
        size, t1 = 0, None
        try:
            answer = session.get(url, stream=True, timeout=timeout)
            for chunk in answer.iter_content(65536):
                t1 = t1 or time.perf_counter()
                size += len(chunk)
            status = answer.status_code
        except requests.Timeout:
            status = "timeout"
        times.append((time.perf_counter() - t0) * 1000)
        first.append(((t1 or time.perf_counter()) - t0) * 1000)
        if status != 200:
            print(f"{url}: {status}", file=sys.stderr)
    row: dict[str, Any] = {"status": status, "median_ms": round(statistics.median(times), 1),
                           "first_byte_ms": round(statistics.median(first), 1), "bytes": size,
                           "load": [round(x, 2) for x in os.getloadavg()], "times_ms": [round(t) for t in times]}
    if pid:
        rss1, peak = memory_mb(pid)
        row.update(rss_mb=round(rss1, 1), peak_rss_mb=round(peak, 1), peak_rss_growth_mb=round(peak - rss0, 1))
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ls-url", default=None, help="a running Label Studio (else one is started on --port)")
    ap.add_argument("--token", default=None, help="its legacy API token (with --ls-url)")
    ap.add_argument("--ls-pid", type=int, default=None, help="its process id, for RSS (with --ls-url)")
    ap.add_argument("--ls-venv", type=Path, default=Path("/tmp/ls-venv"))
    ap.add_argument("--port", type=int, default=8662)
    ap.add_argument("--ls-database", default="labelstudio_h6")
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/h6/ls-data"))
    ap.add_argument("--factcrowd-url", default=None, help="DATABASE_URL of the bench_scale project")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--chunk", type=int, default=1000, help="tasks per import request")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--export-repeat", type=int, default=1)
    ap.add_argument("--export-timeout", type=float, default=3600, help="s; a slower export is reported as this long")
    ap.add_argument("--factcrowd-json", type=Path, default=None, help="bench_scale.py --json-out, for ratios")
    ap.add_argument("--json-out", type=Path, default=None)
    ap.add_argument("--import-only", action="store_true")
    ap.add_argument("--skip-export", action="store_true", help="the lists only (the JSON export took 877 s here)")
    ap.add_argument("--ls-json", type=Path, default=None,
                    help="an earlier --json-out of this script: print its ratios against --factcrowd-json, run nothing")
    args = ap.parse_args()

    if args.ls_json:  # ratios of figures measured before against (newer) FactCrowd ones
        return report(args, json.loads(args.ls_json.read_text()))
    args.data_dir.mkdir(parents=True, exist_ok=True)
    token_file = args.data_dir / "token"
    if not token_file.exists():
        token_file.write_text(secrets.token_hex(20))
    token = args.token or token_file.read_text().strip()
    proc, pid, base = None, args.ls_pid, args.ls_url
    if base is None:
        proc = start_label_studio(args.ls_venv, args.port, args.ls_database, token, args.data_dir)
        pid, base = proc.pid, f"http://127.0.0.1:{args.port}"
    session = requests.Session()
    session.headers["Authorization"] = f"Token {token}"
    try:
        wait_up(session, base, proc)
        return run(args, session, base, pid)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def run(args: argparse.Namespace, session: requests.Session, base: str, pid: int | None) -> int:
    title = f"FactCrowd scale {args.scale}"
    found = [p for p in session.get(f"{base}/api/projects/?page_size=100", timeout=60).json()["results"]
             if p["title"] == title]
    project = found[0] if found else session.post(f"{base}/api/projects/", json={
        "title": title, "label_config": LABEL_CONFIG}, timeout=60).json()
    pk = project["id"]
    n = session.get(f"{base}/api/tasks?project={pk}&page=1&page_size=1", timeout=600).json()["total"]
    if n == 0:
        if not args.factcrowd_url:
            raise SystemExit("the Label Studio project is empty: --factcrowd-url names the bench_scale database to import")
        t0, done, anns = time.perf_counter(), 0, 0
        for tasks in factcrowd_tasks(args.factcrowd_url, args.scale, args.chunk):
            answer = session.post(f"{base}/api/projects/{pk}/import?commit_to_project=true", json=tasks,
                                  timeout=3600)
            assert answer.status_code == 201, (answer.status_code, answer.text[:500])
            done += answer.json()["task_count"]
            anns += answer.json().get("annotation_count", 0)
            if done % (20 * args.chunk) < args.chunk:
                print(f"imported {done} tasks, {anns} annotations in {time.perf_counter() - t0:.0f} s, "
                      f"load {os.getloadavg()[0]:.2f}", flush=True)
        print(f"imported {done} tasks, {anns} annotations in {time.perf_counter() - t0:.0f} s", flush=True)
        n = done
    elif n and args.import_only:
        print(f"project {pk} already holds {n} tasks")
    if args.import_only:
        return 0
    last = -(-n // 20)
    tasks = session.get(f"{base}/api/tasks?project={pk}&page={last}&page_size=20", timeout=600).json()["tasks"]
    unit = tasks[-1]["data"]["unit"]  # a data filter that finds one task (as FactCrowd's search + filter)
    print(f"Label Studio project {pk}: {n} tasks; repeat {args.repeat}", flush=True)
    figures = {
        "list_first": timed(session, f"{base}/api/tasks?project={pk}&page=1&page_size=20", pid, args.repeat),
        "list_last": timed(session, f"{base}/api/tasks?project={pk}&page={last}&page_size=20", pid, args.repeat),
        "list_filter": timed(session, f"{base}/api/tasks?project={pk}&page=1&page_size=20&query=" + quote(json.dumps(
            {"filters": {"conjunction": "and", "items": [{"filter": "filter:tasks:data.unit", "operator": "equal",
                                                          "type": "Number", "value": unit}]}})), pid, args.repeat),
    }
    if not args.skip_export:
        figures["export_jsonl"] = timed(session, f"{base}/api/projects/{pk}/export?exportType=JSON&download_all_tasks=true",
                                        pid, args.export_repeat, args.export_timeout)
    names = {"list_first": "task list page 1", "list_last": f"task list page {last} (last)",
             "list_filter": "data filter (data.unit = one)", "export_jsonl": "JSON export (all tasks)"}
    for key, row in figures.items():
        row["name"] = names[key]
    return report(args, {"label_studio": "1.23.2", "tasks": n, "figures": figures})


def report(args: argparse.Namespace, out: dict[str, Any]) -> int:
    """Print Label Studio's figures beside FactCrowd's (--factcrowd-json) as ratios; write --json-out."""
    ours = {}
    if args.factcrowd_json and args.factcrowd_json.exists():
        for row in json.loads(args.factcrowd_json.read_text())["figures"]:
            if row.get("key"):
                ours[row["key"]] = row
    for key, row in out["figures"].items():
        line = (f"{row['name']:<30} {row['median_ms']:>10.1f} ms  {row['bytes']:>12,} B  "
                f"rss {row.get('rss_mb')} MB (peak {row.get('peak_rss_mb')})  load {row['load'][0]:.2f}")
        if key in ours and row["status"] == 200:
            fc = ours[key]
            row["factcrowd"] = {k: fc.get(k) for k in ("figure", "median_ms", "bytes", "peak_rss_mb", "load")}
            row["ratio_time_ls_over_factcrowd"] = round(row["median_ms"] / fc["median_ms"], 2)
            line += f"  | FactCrowd {fc['figure']}: {fc['median_ms']} ms: LS/FC {row['ratio_time_ls_over_factcrowd']}x"
            if row.get("peak_rss_mb") and fc.get("peak_rss_mb"):
                row["ratio_peak_rss"] = round(row["peak_rss_mb"] / fc["peak_rss_mb"], 2)
                line += f", peak RSS {row['ratio_peak_rss']}x"
        print(line, flush=True)
    print(json.dumps(out, indent=1))
    if args.json_out:
        args.json_out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
