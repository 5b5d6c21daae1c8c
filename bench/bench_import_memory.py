"""Benchmark: peak memory (RSS) of an import, per case, each in a fresh process on a throw-away SQLite database.

Cases (files generated in a temp folder under /tmp, removed afterwards):
- upload-200mb: a 200 MB plain-items JSONL (the upload limit), ordinary lines: what a full upload costs.
- one-line-50mb: one 50 MB items line (a 50 MB response): refused at IMPORT_MAX_LINE_BYTES before parsing.
- qasem-line-56mb: one 56 MB QASem release line (a huge token list): refused the same way.
- text-over-limit: one 1 MB line whose response is over IMPORT_MAX_TEXT_CHARS: refused after parsing that line.
- qasem-release-4k: the shared QASem dev release (148 lines) 28 times with shifted source ids, 4,144 lines and
  43,176 QAs with three votes each (issue 25 measured 27 s and 737 MB when the importer held every line): read
  and validated in one streaming pass, then written 200 lines at a time (importers/qasem_release.py).
Figures for qasem-release-4k (2026-12-04, this 2-core box shared with other sessions; 40.5 MB file):
  PostgreSQL 15: peak RSS 124 MB (92 MB after Django setup), import 168.6 s, load 10.5
  SQLite:        peak RSS 134 MB (79 MB after Django setup), import 117.0 s, load 8.3
  (streamed, but with each unit's Source kept to the end: 299 MB on PostgreSQL, 311 MB on SQLite; the issue
  measured 27 s and 737 MB at load about 1 when every line was held)
Peak RSS is the child's own ru_maxrss (os.wait4) (the whole process: Python, Django and the import).
Run:  .venv/bin/python bench/bench_import_memory.py [--cases upload-200mb one-line-50mb ...] [--mb 200]
          [--database-url postgres://.../a_fresh_database]  (default: a throw-away SQLite file)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import os, sys, time, resource
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
from annotation_tasks.services import imports
fmt, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
try:
    result = imports.import_items(path, "bench") if fmt == "items" else imports.import_qasem_release(path, "bench")
    outcome = f"imported {result.lines} lines"
except imports.ImportFormatError as exc:
    outcome = f"refused: {str(exc)[:110]}"
print(f"RESULT {time.perf_counter() - t:.1f} {base} {outcome}")
"""


def items_line(i: int, response_chars: int) -> str:
    words = ("The committee approved the budget after a long debate about schools and roads. " * 40)
    text = (words * (response_chars // len(words) + 1))[:response_chars]
    return json.dumps({"source_id": f"s{i // 2}", "source": f"Source text number {i // 2}. " * 8,
                       "system": f"m{i % 2}", "response": text}) + "\n"


def write_upload(path: Path, megabytes: int) -> None:
    """Ordinary item lines (a 1,500-character response each) up to `megabytes`."""
    target = megabytes * 1024 * 1024
    size = 0
    with path.open("w", encoding="utf-8") as out:
        i = 0
        while size < target:
            line = items_line(i, 1500)
            out.write(line)
            size += len(line.encode())
            i += 1


def write_long_line(path: Path, head: str, piece: str, tail: str, nbytes: int) -> None:
    """One line of about `nbytes`, written in pieces: this process stays small (a child's ru_maxrss starts from
    its parent's memory at fork on Linux, so a big parent would inflate every figure)."""
    reps = max(1, (nbytes - len(head) - len(tail)) // len(piece))
    chunk = piece * max(1, (1 << 20) // len(piece))
    per_chunk = len(chunk) // len(piece)
    with path.open("w", encoding="utf-8") as out:
        out.write(head)
        for _ in range(reps // per_chunk):
            out.write(chunk)
        out.write(piece * (reps % per_chunk))
        out.write(tail)


DEV_RELEASE = REPO.parent / "shared" / "data" / "qasem_consistency" / "dev.jsonl"


def write_release(path: Path, copies: int) -> None:
    """The shared dev release `copies` times, each copy's source ids shifted (numbers by 10,000 a copy, names
    suffixed) so every line is a new response of its own source."""
    lines = DEV_RELEASE.read_text(encoding="utf-8").splitlines()
    with path.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            for line in lines:
                obj = json.loads(line)
                sid = obj["source_id"]
                obj["source_id"] = sid + 10_000 * copy if isinstance(sid, int) else f"{sid} ({copy})"
                out.write(json.dumps(obj, ensure_ascii=False) + "\n")


def write_case(case: str, folder: Path, megabytes: int) -> tuple[str, Path]:
    path = folder / f"{case}.jsonl"
    if case == "qasem-release-4k":
        write_release(path, 28)
        return "qasem", path
    item_head = '{"source_id": "s0", "source": "A source.", "system": "m0", "response": "'
    if case == "upload-200mb":
        write_upload(path, megabytes)
        return "items", path
    if case == "one-line-50mb":
        write_long_line(path, item_head, "Words of a very long answer. ", '"}\n', 50 * 2**20)
        return "items", path
    if case == "qasem-line-56mb":
        write_long_line(path, '{"source_id": 1, "source": [', '"token", ', '"end"], "summary": [["A", "man", "."]], '
                        '"model": "m", "qas": [], "spans": []}\n', 56 * 2**20)
        return "qasem", path
    if case == "text-over-limit":
        write_long_line(path, item_head, "Words of a very long answer. ", '"}\n', 2**20)
        return "items", path
    raise SystemExit(f"unknown case {case}")


def run_case(case: str, folder: Path, megabytes: int, database_url: str = "") -> None:
    fmt, path = write_case(case, folder, megabytes)
    var = folder / f"var-{case}"
    var.mkdir()
    env = {**os.environ, "FACTCROWD_VAR_DIR": str(var), "DJANGO_SETTINGS_MODULE": "backend.settings"}
    env.pop("DATABASE_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    t = time.perf_counter()
    out, err = folder / f"{case}.out", folder / f"{case}.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, fmt, str(path)], cwd=REPO, env=env, stdout=stdout,
                                stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage: ru_maxrss in KiB on Linux
    wall = time.perf_counter() - t
    peak = usage.ru_maxrss
    line = next((x for x in out.read_text().splitlines() if x.startswith("RESULT")), None)
    if status or line is None:
        print(f"{case}: child failed ({status}): {err.read_text()[-800:]}")
        return
    _, seconds, base, outcome = line.split(" ", 3)
    note = ""
    print(f"{case:16s} file {path.stat().st_size / 2**20:7.1f} MB  peak RSS {peak / 1024:7.0f} MB "
          f"(after Django setup {int(base) / 1024:.0f} MB)  import {float(seconds):6.1f} s  wall {wall:6.1f} s  "
          f"{outcome}{note}  load {os.getloadavg()[0]:.2f}")
    path.unlink()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", nargs="+",
                        default=["text-over-limit", "one-line-50mb", "qasem-line-56mb", "qasem-release-4k",
                                 "upload-200mb"])
    parser.add_argument("--mb", type=int, default=200, help="size of the upload-200mb case")
    parser.add_argument("--database-url", default="", help="import into this database instead of a temporary SQLite")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-import-memory-", dir="/tmp"))
    try:
        for case in args.cases:  # smallest first: ru_maxrss of children only grows
            run_case(case, folder, args.mb, args.database_url)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
