"""Where a Celery build's memory goes: the peak RSS of each step of the full report and the queue table (issue 25).

Runs services.reports.build_report (and with --queue, the queue task's body) for one project in this process,
as a Celery worker would, with each step the build calls wrapped: before a step the kernel's high-water mark is
reset (/proc/self/clear_refs, 5), after it the step's peak (VmHWM) and its RSS are read. A line per step:

    step                      seconds   rss before   peak   rss after   (MB)

The shared and default caches are emptied first (a cold build). The process starts as a Celery worker does
(Django set up, nothing of the analysis imported), so the first steps also pay for imports. Linux only (/proc). Load average printed beside the figures: the box is shared.

  DEBUG=true .venv/bin/python bench/bench_build_memory.py --project "Scale 1.0" \\
      --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_final [--queue] [--json]

A Celery worker runs with its allocator tuned (backend/allocator.py); to see that here, run with
MALLOC_MMAP_THRESHOLD_=1048576 ARROW_DEFAULT_MEMORY_POOL=system in the environment (glibc reads the first at start).

Figures, 2026-12-05, PostgreSQL 15, the full-scale project of bench_scale.py (113,540 units, 323,820 QAs, 971,460
labels), load 0.3-1.9, peak RSS of the process:
- report, before this stop's changes (6d34eba): 424 MB (steps: responses 235, labels 363, agreement 380,
  consistency 396, uncertainty 424); 389 MB with the tuned allocator alone.
- report, after (c788d3b and the next commits): 289 MB, 271 MB tuned, 4.6-4.8 s (the labels read by binary COPY
  rows: the read's peak +119 -> +37 MB and no 23 MB libpq buffer kept; QAs and labels without unread columns; int8 /
  int32 codes; uncertainty once per distinct vote count; the uncertainty table not copied; int32 counts for
  Krippendorff's alpha).
- queue task (counts, report summary, table), before: 306 MB, 282 tuned (its counts step alone 253 MB, with 25 MB
  kept by libpq); after: 309 / 272 MB (its counts by COPY: that step 240 MB, nothing kept).
In the real Celery worker (bench_scale.py --server, which also holds what an earlier build left): queue build peak
332 -> 280 MB, full report build 443 -> 288 MB.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _status(field: str) -> float:
    """A VmRSS / VmHWM line of /proc/self/status, in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")


STEPS: list[dict[str, Any]] = []
_OPEN: list[float] = []  # per step still running: the highest VmHWM read before an inner step reset it


def _wrap(owner: Any, name: str, label: str | None = None) -> None:
    """Replace owner.name by a wrapper that records its step. An inner step resets the high-water mark, so it
    hands the mark it found to the steps around it first: an outer step's peak is the max over its inner ones."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def step(*args, **kwargs):
        before = _status("VmRSS")
        if _OPEN:
            _OPEN[-1] = max(_OPEN[-1], _status("VmHWM"))
        _reset_peak()
        _OPEN.append(0.0)
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            peak = max(_status("VmHWM"), _OPEN.pop())
            if _OPEN:
                _OPEN[-1] = max(_OPEN[-1], peak)
            STEPS.append({"step": label or name, "seconds": round(time.perf_counter() - start, 2),
                          "rss_before": round(before, 1), "peak": round(peak, 1),
                          "rss_after": round(_status("VmRSS"), 1)})

    setattr(owner, name, step)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--queue", action="store_true", help="the queue task's body instead of the report")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.database_url:
        os.environ["DATABASE_URL"] = args.database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    import django

    django.setup()
    from annotation_tasks.models import Project

    project = Project.objects.get(name=args.project)
    from django.core.cache import cache

    from annotation_tasks.services import derived

    derived.derived_cache().clear()  # a cold build: nothing kept by an earlier run (counts, table, report)
    cache.clear()
    start_rss = _status("VmRSS")
    if args.queue:
        from annotation_tasks.services import adjudication, reports
        from annotation_tasks.services.versions import version_hash

        for name in ("counts_for", "level_counts", "_sql_level", "build_table", "_build_items_table",
                     "_items_table", "_level_table", "_golds"):
            _wrap(adjudication, name)
        _wrap(reports, "summary", "report summary")

        def run() -> None:  # the body of celery_tasks.build_queue_table
            version = version_hash(project, "labels")
            adjudication.counts_for(project, version)
            reports.summary(project)
            adjudication.build_table(project, version, only_if_changed=True)
    else:
        from annotation_tasks.services import frames, reports

        for name in ("counts_by_level", "worker_table",
                     "worker_confusion", "agreement_table", "_time_on_task", "system_consistency",
                     "human_factscore", "pairwise_summary", "_uncertainty", "_labelled_counts",
                     "_unlabelled_groups"):
            _wrap(reports, name)
        for name in ("responses_frame", "qas_frame", "labels_frame", "qa_spans_frame", "facts_frame",
                     "preferences_frame"):
            _wrap(frames, name)
        from annotation_tasks.services import adjudication, scoring

        _wrap(adjudication, "majority_agreement")
        _wrap(scoring, "report_section", "scores report_section")
        _wrap(reports, "build_report")

        def run() -> None:
            reports.build_report(project)
    _reset_peak()
    started = time.perf_counter()
    run()
    total = {"seconds": round(time.perf_counter() - started, 2), "rss_start": round(start_rss, 1),
             "rss_end": round(_status("VmRSS"), 1), "load": [round(x, 2) for x in os.getloadavg()]}
    peak = max([s["peak"] for s in STEPS] + [total["rss_end"]])
    total["peak"] = peak
    if args.json:
        print(json.dumps({"steps": STEPS, "total": total}, indent=1))
        return 0
    print(f"{'step':28} {'s':>6} {'before':>8} {'peak':>8} {'after':>8}  (MB)")
    for s in STEPS:
        print(f"{s['step']:28} {s['seconds']:6.2f} {s['rss_before']:8.1f} {s['peak']:8.1f} {s['rss_after']:8.1f}")
    print(f"total {total['seconds']} s, RSS {total['rss_start']} -> {total['rss_end']} MB, peak {peak} MB, "
          f"load {total['load']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
