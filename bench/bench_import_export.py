"""Benchmark: import and streaming export of the shared QASem dev file, and export memory vs project size.

The dev file is imported k times into one project (each copy renames the systems, so every copy is new
content), then exported in all three formats. Streaming means the export's peak Python allocation
(tracemalloc) stays flat as k grows: it depends on the chunk, not on the project.
Run:  .venv/bin/python bench/bench_import_export.py [--copies 1 4 16]
A throw-away SQLite database in a temp folder is used; nothing of the project's data is touched.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ["FACTCROWD_VAR_DIR"] = tempfile.mkdtemp(prefix="bench-io-")
os.environ.pop("DATABASE_URL", None)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")

import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402

from annotation_tasks.services.exports import export_lines  # noqa: E402
from annotation_tasks.services.imports import import_qasem_release  # noqa: E402

DEV = Path(os.environ.get("FACTCROWD_SHARED_DATA", REPO.parent / "shared" / "data")) / "qasem_consistency" / "dev.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16])
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    lines = [json.loads(x) for x in DEV.read_text(encoding="utf-8").splitlines() if x]
    tmp = Path(os.environ["FACTCROWD_VAR_DIR"])
    done = 0
    for k in sorted(args.copies):
        for c in range(done, k):
            path = tmp / f"copy{c}.jsonl"
            path.write_text("".join(json.dumps({**d, "model": f"{d['model']}~{c}"}) + "\n" for d in lines))
            t = time.perf_counter()
            result = import_qasem_release(path, "bench")
            if c == 0:
                print(f"import dev.jsonl ({result.lines} lines, {result.created['qas']} QAs, "
                      f"{result.created['qa_labels'] + result.created['span_labels']} labels): {time.perf_counter() - t:.2f} s")
        done = k
        for fmt in ("qasem-release", "qa-jsonl"):
            t = time.perf_counter()
            n = sum(1 for _ in export_lines("bench", fmt))
            elapsed = time.perf_counter() - t
            tracemalloc.start()  # a second pass: tracing slows Python several times over
            sum(1 for _ in export_lines("bench", fmt))
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(f"copies={k:3d} export {fmt:13s}: {n:6d} lines in {elapsed:6.2f} s, peak traced {peak:6.1f} MiB")


if __name__ == "__main__":
    main()
