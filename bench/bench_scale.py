"""The researcher's side at scale (issue 25): lists, counts, report, queue and exports of one big project.

Builds (bulk inserts) one QASem project the size of issue 25's, or --scale of it: 113,540 units (one source and
one response each, in 9 batches), 323,820 QAs with one answer span each, and 3 workers per unit from a pool of
--pool, whose QA labels make 971,460 labels (~80% agreeing with a latent truth); 1 QA in 50 has gold. Then
times, through the API in this process (Django's test client, token auth; median of --repeat), each request the
dashboard makes and prints one line per figure with the load average (os.getloadavg) at that moment and the
process's RSS growth, then the same as JSON. The machine is shared: read figures beside their load.

  .venv/bin/python bench/bench_scale.py --scale 0.1 \\
      --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale [--keep] [--server --port 8660]

--keep reuses a project built by an earlier run with the same --scale (the database is not emptied); --build-only
stops once it is built. Without --database-url a throw-away SQLite file is used. --server starts gunicorn with
backend/gunicorn_conf.py (WEB_CONCURRENCY=1, so its one worker's RSS is the figure) and a Celery worker (solo
pool) on 127.0.0.1:--port against the same database, asks them over HTTP with the researcher's token, and reports
the gunicorn worker's RSS, its growth and its peak (VmHWM, reset per request kind) for each request, and the
Celery worker's for each export Job; without it, Django's test client in this process (the view's own cost).
--json-out writes the figures (bench/bench_label_studio.py reads them for its ratios). --only exports measures
the streamed JSONL and the export Jobs alone (bench/bench_exports.py holds its 2026-12-05 before/after figures:
streamed qa-jsonl 24.3 -> 16.9 s, HF dataset job 48.1 -> 36.3 s and Celery peak 388 -> 308 MB, load 0.8-1.7).
The full-scale build (--scale 1) took 930 s at load ~15 (2026-12-04 20:24-20:39 UTC), peak ~1.3 GB.

Measured 2026-12-04 16:52-16:57 UTC, --scale 0.1 on PostgreSQL 15 (11,354 units, 32,382 QAs, 97,146 labels,
300 workers), the 2-core box shared with other sessions' tests at load 5-7 (median of 3, in-process client):
workers with metrics 85-91 ms (cold, computing every worker's metrics: 1.6 s), search 76 ms; batches 195 ms;
responses first / middle / last page 69 / 60 / 54 ms, search+filter 161 ms; QAs first / middle / last page
101 / 132 / 79 ms, by cursor 62 ms; units 59 ms; assignments 77 ms; queue summary cold 841 ms, warm 156 ms, a
100-row page 168 ms (119 KB); report summary cold 1.7 s, cached 79 ms (35 KB), a workers page 49 ms; JSONL
export first byte 277 ms (17 MB in 16.9 s); CSV / dataset export jobs accepted in 194 / 88 ms, ran 16.5 / 27.2 s.

First full scale (--scale 1: 113,540 units, 323,820 QAs, 971,460 labels, 300 workers), --server (gunicorn worker
starting at 167 MB), PostgreSQL 15, 2026-12-04 20:40-20:58 UTC, load 14.6-21 (8 sessions on 2 cores), median of 3
(cold rows and exports once): workers page 1 cold 582 ms, warm 156 ms, last page 229 ms, search 125 ms; batches
328 ms; responses first / middle / last page 133 / 320 / 193 ms, search+filter 460 ms; QAs first / middle / last
page 771 / 1,348 / 628 ms, by cursor 610 ms; units 159 ms; assignments 590 ms; queue summary cold 19.2 s (worker
175 -> 453 MB, peak 463), warm 1.5 s (peak 530 MB), a 100-row page 774 ms (119 KB); report summary cold 34.9 s
(worker -> 598 MB, peak 673), cached 71 ms (36 KB), workers page 52 ms; JSONL export first byte 793 ms, 173 MB in
137.7 s; CSV job accepted 492 ms, ran 356 s (83 MB; Celery worker peak 279 MB); HF dataset job accepted 1.3 s, ran
393 s (7.7 MB zip; Celery worker peak 433 MB).

Final, --server at HEAD c767784, 2026-12-04 21:53-21:57 UTC, load 2.6-3.4, median of 3 (cold rows and exports
once; gunicorn worker from 168 MB): workers page 1 cold 164 ms, warm 57 ms, last page 85 ms, search 52 ms; batches
76 ms; responses first / middle / last page 40 / 78 / 39 ms, search+filter 102 ms; QAs first / middle / last page
177 / 363 / 180 ms, by cursor 176 ms; units 50 ms; assignments 156 ms; queue summary cold 6.8 s (worker 175 ->
427 MB, peak 477), warm 93 ms (peak 517 MB), a 100-row page 133 ms (119 KB); report summary cold 7.9 s (peak
700 MB), cached 9 ms (36 KB), workers page 6 ms; JSONL export first byte 213 ms, 173 MB in 35.5 s; CSV job accepted
124 ms, ran 52.5 s (83 MB, Celery worker peak 264 MB); HF dataset job accepted 254 ms, ran 68.3 s (7.7 MB zip,
Celery worker peak 389 MB). Misses against issue 25: QAs middle page, queue / report cold, 1M-label export over
30 s, gunicorn worker over 300 MB after the cold queue and report, Celery over 300 MB for the dataset job.
In-process (--skip-exports), 21:57-21:58 UTC, load 3.2-3.5, from 230 MB: workers 190 cold / 54 / 29 ms, search
31 ms; batches 69 ms; responses 42 / 40 / 18 ms, search+filter 66 ms; QAs 176 / 349 / 159 ms, cursor 180 ms; units
23 ms; assignments 155 ms; queue summary cold 5.3 s (peak +276 MB), warm 67 ms, page 121 ms; report cold 9.5 s
(peak +276 MB), cached 12 ms, workers page 6 ms.

QA and assignment lists (issue 25 item 1; 5b59124: QA.project kept on the QA, migration 0021_qa_project, indexes
(project, id) and (project, validity, id); researcher lists scoped by the caller's project ids; the assignments of
a researched project counted over units only, ?search= matching workers / sources first), 2026-12-05 07:52-07:55
UTC, load 2.0-2.3 (after the CI run; other sessions' tests), median of 3, on copies of factcrowd_scale_full: before
b045525 on factcrowd_scale_hb0, after 5b59124 on factcrowd_scale_hb (migrated: the migration rewrote every QA row
once, 7.9 s; VACUUM ANALYZE after it, as autovacuum would), `--scale 1 --keep --skip-exports --database-url
postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_hb[0]`. In-process: QAs first / middle / last page
115 / 270 / 119 -> 56 / 74 / 56 ms, by cursor 148 -> 56 ms; assignments 109 -> 75 ms. --server --port 8680: QAs
110 / 296 / 111 -> 57 / 70 / 55 ms, by cursor 146 -> 57 ms; assignments 130 -> 80 ms; the rest within noise
(responses search+filter 70 -> 154 ms in that one server run, 60 / 71 ms in-process on both databases). EXPLAIN:
the QA count was a seq scan of responses (63 MB) hashed against every QA, the middle page that join plus an
external sort of 323,820 ids; now an index-only count (~35 ms, the floor of an exact count) and a 14 ms offset.
Not in this bench (in-process, load 1.5-2): assignments ?search= of a worker id 632 -> 88 ms.
At e694a99 (also ?batch= by subquery), --server, 2026-12-05 08:07-08:08 UTC, load 3.1-3.5 (the figures above
were at ~2): QAs first / middle / last page 79 / 108 / 75 ms, by cursor 87 ms; assignments 138 ms; units 51 ms;
responses 50 / 54 / 41 ms, search+filter 126 ms. Not in this bench (in-process, load 3-3.6): the QA list ?batch=
page 1 1708 -> 168 ms; still over 200 ms there: QA ?search= or ?kind= deep pages (a scan of every QA, twice:
count and offset, 240-440 ms), assignments ?status= deep pages (~290 ms), ?search= of a source id (~230 ms).

Report and queue summaries from kept SQL counts (issue 25 item 2, 5592e99), 2026-12-05 08:09-08:11 UTC, on a copy
of the full-scale database (factcrowd_scale_hc, --scale 1 --keep --skip-exports): ?section=summary is counts,
agreement, unlabelled systems, time on task and adjudication from adjudication.level_counts (one GROUPING SETS
pass per level, 2.3 s at 10^6 labels), kept per labels version; the tables, consistency, FActScore, pairwise and
scores come with ?section=details (the full build, as before). In-process, load 1.6-1.9: before (af023d9) queue
summary cold 3.1 s (peak +291 MB), warm 74 ms, page 99 ms; report summary cold 5.5 s (peak +270 MB), cached 8 ms.
After: queue summary cold 3.0 s (peak +291 MB: the table is still built and kept in the request here), warm 41 ms,
page 68 ms; report summary 747 ms (peak +20 MB) once the counts are kept (here by the queue), 3.3 s (+176 MB, peak
+225) with nothing kept, 26 ms kept. --server, load 1.1-1.3, gunicorn worker from 174 MB: queue summary cold 2.9 s
(peak 484 MB), warm 48 ms; report summary 729 ms (peak 205 MB), kept 23 ms; the full build (workers page 2, cold)
peak 635 MB. Misses: a summary with nothing kept is over 1 s (reading 10^6 labels is ~2 s here whichever way), and
the queue table or full report built in a worker without a shared cache is still over 300 MB.

Worker memory (issue 25 item 3), 2026-12-05, on factcrowd_scale_he (a copy of factcrowd_scale_hc), `DEBUG=true
.venv/bin/python bench/bench_scale.py --scale 1 --keep --server --port 8700 --only exports --database-url
postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_he`: before (1a1eb5c + 39f984b, 08:31-08:35 UTC,
load 3.4-4.9) the Celery worker idled at 235 MB (its boot imported pandas, pyarrow, scipy and krippendorff:
services.quality and services.scoring at celery_tasks' top, and Django's system checks, run by Celery's fixup,
imported the URLconf with every view), CSV job peak 256 MB, HF dataset job peak 308 MB; after ba9dc86 (tasks
import those services when they run; the worker skips the checks: tests/jobs/test_worker_boot.py) and 7e76570
(08:36-08:39 UTC, load 2.5-4.3, with profiling runs beside it: the jobs' seconds are not comparable) it idles at
77 MB, CSV job peak 194 MB, HF dataset job peak 246 MB. The gunicorn worker still starts at 168 MB (the master
preloads pandas for quality control on purpose: backend/gunicorn_conf.py).
Queue table and report in the gunicorn worker (in-process cache), `... --skip-exports` on the same database: before
(39f984b, 08:39-08:42 UTC, load 2.7-3.1; worker from 168 MB) queue summary cold peak 480 MB (RSS after 432), warm
peak 496, a page 505, report summary cold 503, the full build (workers page 2) 753; after 5ab81cf (08:52-08:54 UTC,
load 1.0-1.2; database migrated to 0022 by the run) 371 (after 336), 396, 396, 425, 610. What changed: level
counts read as three binary columns (7e76570) with codes from the flags (b4c8e08), freed pages handed back after a
build (65af130), summary / pages read positions instead of copying the chosen rows (3647b55), the table's names as
categories and small numbers as int32 (2579ccf), the report's labels without source / dataset / split (5ab81cf).
Still over 300 MB: the cold queue build (the kept table, its pickle in the local cache and the counts) and the full
report (labels frame ~45 MB, consistency's bootstrap and the uncertainty model on top); a shared cache moves both
into Celery, where they stack on a 77 MB worker instead of 235.

Filtered lists and the monitor (issue 25 item 1; cb8c6f8: Assignment.project kept on the assignment, migration
0022_assignment_project, indexes (project, id), (project, status, id) INCLUDE (verification, time_on_task_ms) and
(project, id) WHERE feedback <> ''; a searched QA list's count and page from one query, COUNT(*) OVER (); QA ?kind=
from the project's kinds; the monitor's assignment figures in one grouped pass plus percentile_disc), on
factcrowd_scale_hd (a copy of factcrowd_scale_hb; the migration took 16 s at load ~3.5, then VACUUM ANALYZE),
in-process, median of 3-5. Before (e694a99 + 39f984b, /tmp script, 08:31 UTC, load 3.6-3.9): QA ?search= middle
page 432 ms, last 246; ?kind= middle 323, last 158; assignments ?status= middle 316, last 145, -id middle 305;
?search= of a source id 288, of 11 sources page 2 367; monitor overview 1,303 ms (19 queries: three joined passes
over 3.4*10^5 assignments, the last sending every time to Python). After (08:38-08:42 UTC, load 3.0-4.5): QA
?search= middle 225-308, last 221; ?kind= middle 88-108, last 93; assignments ?status= middle 105-111, last 78,
-id middle 112; ?search= of a source id 36, page 2 37; monitor overview 448-651 ms. This bench at cb8c6f8
(`--scale 1 --keep --skip-exports --database-url .../factcrowd_scale_hd`, 08:41-08:42 UTC, load 2.6-3.1): qas
search middle page 308 ms, ?kind= middle 88, assignments ?status= middle 105, search one source id 36, monitor
overview 651; the plain lists as before (QAs 71 / 89 / 69 ms, cursor 83, assignments 129). Still over 200 ms: a QA
?search= (an unindexed LIKE over 3.2*10^5 QAs, now read once: ~200 ms of SQL at load 3; a trigram index would
help selective terms only) and the monitor (~380 ms of SQL: the times' sort for median / p90 ~110 ms, attention
checks ~90 ms in services/feedback.py, QA validity and assignment counts ~50-60 ms each as parallel seq scans).
Consolidated, --server at 5ab81cf (= df9d4c6's code) on a fresh copy of factcrowd_scale_full migrated to 0022
(factcrowd_scale_final), 2026-12-05 08:58-09:02 UTC, load 0.3-1.0 (a quiet box), median of 3, gunicorn worker from
168 MB: workers page 1 cold 219 ms, warm 36, last 70, search 19; batches 43; responses first / last / middle 23 /
25 / 67, search+filter 65; QAs first / last / middle 50 / 45 / 97, cursor 47, ?search= middle 273 (miss), ?kind=
middle 102; units 26; assignments 52, ?status= middle 82, source search 38; monitor overview 534 ms (miss); queue
summary cold 2.45 s (miss; worker 180 -> 295 MB, peak +191), warm 49 ms, a 100-row page 77 ms; report summary
cold 1.14 s (miss by 0.14 s; peak +74 MB), cached 32 ms, workers page 2 (the full build) 12 ms after it, peak
+213 MB (worker 375 MB after: miss); qa-jsonl streamed first byte 130 ms, 173 MB in 15.7 s; CSV job accepted
112 ms, ran 30.8 s, Celery peak 194 MB; HF dataset job accepted 183 ms, ran 36.9 s, Celery peak 246 MB.
Derived builds in Celery on every deployment (1a5fe2a..e90190b: the `derived` cache, FileBasedCache in VAR_DIR
unless redis; the queue task counts, keeps the report summary, then the table; the monitor's slow figures kept;
narrow queue table; bootstrap chunks; Arrow's pool released; certainty per distinct vote count), --server on
factcrowd_scale_final, 2026-12-05 12:44-12:46 UTC, load 0.8-1.4, median of 3, gunicorn worker from 139 MB:
workers page 1 cold 125 ms, warm 29, last 28, search 15; batches 38; responses first / last / middle 15 / 17 / 28,
search+filter 62; QAs first / last / middle 61 / 56 / 79, cursor 76, ?search= middle 155, ?kind= middle 56; units
42; assignments 52, ?status= middle 61, source search 34; monitor overview 138 ms (was 534). Queue summary: the
first ask 12 ms (`building`, the Celery build queued), the build 5.1 s in Celery (peak 332 MB), then 10 ms kept, a
100-row page 32 ms; report summary 61 ms from the counts the same task kept (was 1.14 s cold), 17 ms kept; the full
report 5.0 s in Celery (peak 488 MB: the one figure still over 300 MB), its workers page 7 ms. The gunicorn worker
ends at 235 MB (was 375) holding the queue table's and counts' copies. qa-jsonl streamed: first byte 89 ms, 173 MB
in 12.2 s; CSV job accepted 75 ms, ran 18.3 s (was 30.8), Celery peak 221 MB; HF dataset job accepted 133 ms, ran
28.6 s (was 36.9; 26.3 s in-process), peak 268 MB (after the report build in the same solo worker: 338 MB before
Arrow's pool was released). Label Studio 1.23.2 on the same 113,540 tasks, the same session (12:38-12:39 UTC,
`bench_label_studio.py --skip-export`, load 1.1): task list page 1 / last page / data filter 144 / 156 / 172 ms,
against ours 18.7 / 38.6 / 63.6 ms at 12:37-12:38 (LS/FactCrowd 7.7x / 4.0x / 2.7x); its JSON export was 876.7 s
and 3.2 GB (2026-12-04), ours streams in 12.2 s.
  DEBUG=true .venv/bin/python bench/bench_scale.py --scale 1 --keep --server --port 8720 \
      --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_final --json-out F

Celery builds under 300 MB (issue 25 item 3), 2026-12-05 16:19-16:25 UTC, load 0.8-1.3, `DEBUG=true .venv/bin/python
bench/bench_scale.py --scale 1 --keep --server --port 8722 --skip-exports --database-url
postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_final` (and `--only exports`): the Celery worker's
queue build peak 332 -> 280 MB (5.1 s), its full report build 443 -> 288 MB (5.6 s); CSV job 19.8 s, peak 192 MB
(was 221); HF dataset job 30.0 s (28.6 before; 27.4-28.5 s in-process, unchanged), peak 234 MB (was 268). What
changed: PostgreSQL frames and the queue's counts read as binary COPY rows decoded a few MB at a time (libpq no
longer holds a whole result, nor keeps a buffer of its size), the report reads only the columns it uses, per-label
codes are int8 / int32, the uncertainty section works per distinct vote count, a Celery worker sets its allocator
at start (backend/allocator.py) and lets its copies of kept builds go after a build (derived.forget_copies).
bench/bench_build_memory.py gives each step's peak. Lists in the same run: QA ?search= middle page 157-162 ms,
monitor overview 134-136 ms, the rest as above.

Every figure of issue 25 in one run, 2026-12-06 01:12-01:13 UTC, load 0.3-0.7, `DEBUG=true .venv/bin/python
bench/bench_scale.py --scale 1 --keep --server --port 8723 --database-url
postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale_final`: lists 5-152 ms (slowest: QA ?search= middle
page 152 ms, monitor overview 131 ms, workers page 1 cold 105 ms); queue build 5.1 s, Celery peak 284 MB; report
summary 53 ms, full build 5.4 s, Celery peak 292 MB; qa-jsonl streamed in 9.2 s (first byte 84 ms, 159 MB: compact
JSON lines now); CSV job accepted in 68 ms, ran 13.2 s (was 19.8-21.4), peak 204 MB; HF dataset job accepted in
122 ms, ran 20.3 s (was 30.0), peak 244 MB; gunicorn ends at 236 MB. What changed: each Celery task runs with the
heap it found frozen out of the garbage collector's walks (backend/collector.py: the HF export in-process 31 -> 23 s,
same peak), and the exporters encode records and decode token columns with orjson (exporters/jsontext.py).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FULL = {"units": 113_540, "qas": 323_820, "batches": 9}
WORDS = ["Anna", "visited", "Paris", "and", "Boris", "saw", "Lyon", "."]


def setup(database_url: str | None, tmp: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    os.environ["FACTCROWD_VAR_DIR"] = str(tmp)
    os.environ["DATABASE_URL"] = database_url or f"sqlite:///{tmp / 'scale.sqlite3'}"
    # not eager: POST export-job answers when the Job is queued (filesystem broker in the temp dir); the bench
    # then runs the Job in this process, as a Celery worker would, and times it
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "false"
    os.environ.setdefault("CELERY_BROKER_URL", "filesystem://")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build(scale: float, pool: int, seed: int = 0) -> Any:
    """The project, bulk inserted; returns it."""
    import numpy as np
    from django.db import transaction
    from django.utils import timezone

    from annotation_tasks.models import (
        QA,
        AnswerSpan,
        Assignment,
        Batch,
        GoldLabel,
        Predicate,
        Project,
        QALabel,
        Response,
        Source,
        Unit,
        UnitResponse,
        Worker,
    )

    name = f"Scale {scale}"
    n_units = max(20, int(FULL["units"] * scale))
    n_qas = max(3 * n_units // 2, int(FULL["qas"] * scale))
    rng = np.random.default_rng(seed)
    per_response = np.full(n_units, n_qas // n_units)
    per_response[: n_qas - int(per_response.sum())] += 1
    text = " ".join(WORDS)
    tokens, pos = [], 0
    for w in WORDS:
        tokens.append([w, pos, pos + len(w)])
        pos += len(w) + 1
    now = timezone.now()
    B = 5_000
    started = time.perf_counter()
    with transaction.atomic():
        project = Project.objects.create(name=name, protocol=["span_coverage", "qa_support"], annotations_per_item=3)
        batches = [Batch.objects.create(project=project, name=f"b{i}", status="published", provider="local")
                   for i in range(FULL["batches"])]
        workers = Worker.objects.bulk_create([Worker(external_id=f"scale-{scale}-{i}") for i in range(pool)], B)
        sources = Source.objects.bulk_create([Source(project=project, external_id=f"s{i}", text=text)
                                              for i in range(n_units)], B)
        responses = Response.objects.bulk_create([
            Response(project=project, source=s, external_id=f"r{i}", system=["sysA", "sysB", "sysC"][i % 3],
                     text=text, tokens=tokens, sentences=[{"start": 0, "end": len(WORDS), "text": text}],
                     parsed_at=now)
            for i, s in enumerate(sources)], B)
        predicates = Predicate.objects.bulk_create([
            Predicate(response=r, token_index=1, text="visited", verb_form="visit") for r in responses], B)
        qas, spans = [], []
        for r, p, k in zip(responses, predicates, per_response, strict=True):
            for j in range(int(k)):
                qas.append(QA(response=r, predicate=p, question=f"Who visited something {j}?", answer="Anna",
                              answer_start=0, answer_end=1, order=j))
                spans.append(AnswerSpan(response=r, start=j % 7, end=j % 7 + 1, text=WORDS[j % 7], order=j))
        qas = QA.objects.bulk_create(qas, B)
        spans = AnswerSpan.objects.bulk_create(spans, B)
        through = AnswerSpan.qas.through
        through.objects.bulk_create([through(answerspan_id=s.pk, qa_id=q.pk) for s, q in zip(spans, qas, strict=True)], B)
        GoldLabel.objects.bulk_create([GoldLabel(qa=q, value="supported") for q in qas[::50]], B)
        units = Unit.objects.bulk_create([
            Unit(project=project, batch=batches[i % len(batches)], source=s, status="completed")
            for i, s in enumerate(sources)], B)
        UnitResponse.objects.bulk_create([UnitResponse(unit=u, response=r) for u, r in zip(units, responses,
                                                                                            strict=True)], B)
        picks = [rng.choice(pool, 3, replace=False) for _ in range(n_units)]
        assignments = Assignment.objects.bulk_create([
            Assignment(unit=u, worker=workers[int(w)], status=["submitted", "approved"][int(w) % 2],
                       submitted_at=now, time_on_task_ms=int(rng.integers(20_000, 200_000)))
            for u, ws in zip(units, picks, strict=True) for w in ws], B)
        truth = rng.random(len(qas)) < 0.7
        qa_unit = np.repeat(np.arange(n_units), per_response)
        rows = []
        for q, (qa, u) in enumerate(zip(qas, qa_unit, strict=True)):
            for a in assignments[3 * int(u): 3 * int(u) + 3]:
                rows.append(QALabel(assignment=a, qa=qa, supported=bool(truth[q] ^ (rng.random() < 0.2))))
                if len(rows) >= B:
                    QALabel.objects.bulk_create(rows, B)
                    rows = []
        QALabel.objects.bulk_create(rows, B)
    print(f"built {name}: {n_units} units, {len(qas)} QAs, {3 * len(qas)} labels, {pool} workers in "
          f"{time.perf_counter() - started:.0f} s", flush=True)
    return project


def memory_mb(pid: int) -> tuple[float, float]:
    """A process's resident memory now and its peak since the last reset_peak (Linux /proc), in MB."""
    fields = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


def reset_peak(pid: int) -> None:
    """Start a new peak (VmHWM) at the current RSS, so each request kind gets its own (Linux >= 4.0)."""
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:  # not allowed here: the peak is then the process's lifetime peak
        pass


class Answer:
    """What one request gave: status, body size, the first and the last byte's time."""

    def __init__(self, status: int, size: int, body: bytes | None, first_ms: float | None, total_ms: float,
                 streamed: bool) -> None:
        self.status_code, self.size, self.body = status, size, body
        self.first_ms, self.total_ms, self.streamed = first_ms, total_ms, streamed

    def json(self) -> Any:
        assert self.body is not None, "body not kept (over KEEP_BYTES)"
        return json.loads(self.body)


KEEP_BYTES = 32 * 2**20  # bodies bigger than this (exports) are counted, not kept


class InProcess:
    """Django's test client in this process: the view's own cost, no server."""

    mode = "in-process"

    def __init__(self, token: str) -> None:
        from rest_framework.test import APIClient

        self.client = APIClient()
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        self.pid = os.getpid()

    def request(self, method: str, url: str, body: dict | None = None) -> Answer:
        gc.collect()
        t0 = time.perf_counter()
        call = getattr(self.client, method)
        answer = call(url, body, format="json") if body is not None else call(url)
        if getattr(answer, "streaming", False):
            size, first, kept = 0, None, bytearray()
            for chunk in answer.streaming_content:
                first = first or time.perf_counter()
                size += len(chunk)
                if size <= KEEP_BYTES:
                    kept += chunk
            end = time.perf_counter()
            return Answer(answer.status_code, size, bytes(kept) if size <= KEEP_BYTES else None,
                          ((first or end) - t0) * 1000, (end - t0) * 1000, True)
        end = time.perf_counter()
        return Answer(answer.status_code, len(answer.content), answer.content, None, (end - t0) * 1000, False)

    def close(self) -> None:
        pass


class Server:
    """gunicorn with backend/gunicorn_conf.py (one worker, so its RSS is the figure) and a Celery worker (solo
    pool: the export Job runs in the process measured) on the same DATABASE_URL, asked over HTTP with a token."""

    mode = "server"

    def __init__(self, token: str, port: int, tmp: Path) -> None:
        import secrets
        import subprocess

        import requests

        env = {**os.environ, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "1", "DEBUG": "false",
               "SECRET_KEY": secrets.token_urlsafe(50), "GUNICORN_TIMEOUT": "600"}
        env.pop("CELERY_TASK_ALWAYS_EAGER", None)
        bin_dir = Path(sys.executable).parent
        self.logs = [open(tmp / "gunicorn.log", "wb"), open(tmp / "celery.log", "wb")]
        self.procs = [
            subprocess.Popen([str(bin_dir / "gunicorn"), "-c", "backend/gunicorn_conf.py", "backend.wsgi"],
                             cwd=REPO, env=env, stdout=self.logs[0], stderr=subprocess.STDOUT),
            subprocess.Popen([str(bin_dir / "celery"), "-A", "backend", "worker", "--pool=solo", "--concurrency=1",
                              "--without-gossip", "--without-mingle", "--loglevel=WARNING"],
                             cwd=REPO, env=env, stdout=self.logs[1], stderr=subprocess.STDOUT),
        ]
        self.base = f"http://127.0.0.1:{port}"
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Token {token}"
        try:
            self._wait(tmp)
        except BaseException:
            self.close()
            raise
        master = self.procs[0].pid
        with open(f"/proc/{master}/task/{master}/children") as handle:
            self.pid = int(handle.read().split()[0])  # the one gunicorn worker
        self.celery_pid = self.procs[1].pid

    def _wait(self, tmp: Path) -> None:
        """Until gunicorn answers (its first request imports what the master did not)."""
        import requests

        deadline = time.time() + 180
        while True:
            try:
                if self.session.get(f"{self.base}/api/jobs/?page_size=1", timeout=60).status_code < 500:
                    return
            except requests.RequestException:
                pass
            if time.time() > deadline or any(p.poll() is not None for p in self.procs):
                raise SystemExit(f"gunicorn or celery did not start: see {tmp}/gunicorn.log, {tmp}/celery.log")
            time.sleep(0.5)

    def request(self, method: str, url: str, body: dict | None = None) -> Answer:
        t0 = time.perf_counter()
        answer = self.session.request(method.upper(), self.base + url, json=body, stream=True, timeout=900)
        size, first, kept = 0, None, bytearray()
        for chunk in answer.iter_content(65536):
            first = first or time.perf_counter()
            size += len(chunk)
            if size <= KEEP_BYTES:
                kept += chunk
        end = time.perf_counter()
        streamed = "content-length" not in answer.headers
        return Answer(answer.status_code, size, bytes(kept) if size <= KEEP_BYTES else None,
                      ((first or end) - t0) * 1000, (end - t0) * 1000, streamed)

    def close(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except Exception:  # noqa: BLE001 - a stuck one is killed
                proc.kill()
        for log in self.logs:
            log.close()


def main() -> int:  # noqa: C901 - one straight list of figures
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--pool", type=int, default=300, help="workers")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--keep", action="store_true", help="reuse the project of an earlier run with this --scale")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-exports", action="store_true")
    ap.add_argument("--only", choices=["exports"], default=None,
                    help="exports: only the streamed JSONL and the export Jobs (no lists, queue or report)")
    ap.add_argument("--build-only", action="store_true", help="build (or find, with --keep) the project and stop")
    ap.add_argument("--server", action="store_true",
                    help="ask a gunicorn (backend/gunicorn_conf.py, 1 worker) and a Celery worker started on --port "
                         "over HTTP, and report their RSS, instead of the test client in this process")
    ap.add_argument("--port", type=int, default=8660)
    ap.add_argument("--json-out", type=Path, default=None, help="also write the JSON figures to this file")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="factcrowd-scale-"))
    setup(args.database_url, tmp)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.authtoken.models import Token

    from annotation_tasks.models import QA, Project, ProjectMembership, QALabel, Response, Source, Unit, Worker
    from annotation_tasks.services import export_jobs

    project = Project.objects.filter(name=f"Scale {args.scale}").first() if args.keep else None
    if project is None:
        Project.objects.filter(name=f"Scale {args.scale}").delete()
        project = build(args.scale, args.pool)
    user, _ = get_user_model().objects.get_or_create(username="scale-researcher")
    ProjectMembership.objects.get_or_create(project=project, user=user,
                                            defaults={"role": ProjectMembership.Role.RESEARCHER})
    token = Token.objects.get_or_create(user=user)[0].key
    p = project.pk
    counts = {"units": Unit.objects.filter(project=project).count(),
              "responses": Response.objects.filter(project=project).count(),
              "qas": QA.objects.filter(response__project=project).count(),
              "labels": QALabel.objects.filter(qa__response__project=project).count(),
              "workers": Worker.objects.filter(assignments__unit__project=project).distinct().count()}
    print(f"project {project.name} (id {p}): {counts}; {connection.vendor}", flush=True)
    if args.build_only:
        print(json.dumps({"scale": args.scale, "project": p, "counts": counts}))
        return 0
    client: InProcess | Server = Server(token, args.port, tmp) if args.server else InProcess(token)
    figures: list[dict[str, Any]] = []

    def measure(name: str, url: str, *, method: str = "get", body: dict | None = None, repeat: int | None = None,
                target_ms: float = 200, key: str | None = None) -> Answer:
        times, first, answer = [], [], None
        rss0, _ = memory_mb(client.pid)
        reset_peak(client.pid)
        for _ in range(repeat or args.repeat):
            answer = client.request(method, url, body)
            assert answer.status_code < 400, (url, answer.status_code, (answer.body or b"")[:300])
            times.append(answer.total_ms)
            if answer.streamed and answer.first_ms is not None:
                first.append(answer.first_ms)
        rss1, peak = memory_mb(client.pid)
        row = {"figure": name, "key": key, "median_ms": round(statistics.median(times), 1), "bytes": answer.size,
               "rss_mb": round(rss1, 1), "rss_growth_mb": round(rss1 - rss0, 1), "peak_rss_mb": round(peak, 1),
               "peak_rss_growth_mb": round(peak - rss0, 1), "load": [round(x, 2) for x in os.getloadavg()],
               "target_ms": target_ms, "times_ms": [round(t, 1) for t in times]}
        if first:
            row["first_byte_ms"] = round(statistics.median(first), 1)
        figures.append(row)
        extra = f" first byte {row['first_byte_ms']} ms" if first else ""
        print(f"{name:<44} {row['median_ms']:>9.1f} ms{extra}  {answer.size:>11,} B  rss {row['rss_mb']} MB "
              f"(+{row['rss_growth_mb']}, peak +{row['peak_rss_growth_mb']})  load {row['load'][0]:.2f}", flush=True)
        return answer

    def until_built(name: str, url: str, task: str) -> None:
        """Seconds until `url` answers neither `building` nor `stale`: the Celery worker's build (its RSS is the
        figure), or, in-process, the task's body run here as the worker would."""
        from annotation_tasks import celery_tasks

        worker_pid = client.celery_pid if isinstance(client, Server) else client.pid
        rss0, _ = memory_mb(worker_pid)
        reset_peak(worker_pid)
        t0 = time.perf_counter()
        if isinstance(client, Server):
            while time.perf_counter() - t0 < 600:
                body = client.request("get", url).json()
                if not body.get("building") and not body.get("stale"):
                    break
                time.sleep(0.2)
        else:
            getattr(celery_tasks, task)(p)
        seconds = round(time.perf_counter() - t0, 2)
        rss1, peak = memory_mb(worker_pid)
        row = {"figure": name, "seconds": seconds, "rss_mb": round(rss1, 1), "rss_growth_mb": round(rss1 - rss0, 1),
               "peak_rss_mb": round(peak, 1), "peak_rss_growth_mb": round(peak - rss0, 1),
               "load": [round(x, 2) for x in os.getloadavg()]}
        figures.append(row)
        where = "celery worker" if isinstance(client, Server) else "this process"
        print(f"{name:<44} {seconds:>9.2f} s  {where} rss {row['rss_mb']} MB (+{row['rss_growth_mb']}, peak "
              f"{row['peak_rss_mb']})  load {row['load'][0]:.2f}", flush=True)

    try:
        n_resp = counts["responses"]
        last_resp = -(-n_resp // 20)
        qas = client.request("get", f"/api/qas/?project={p}&page_size=25").json()["count"]
        last_qa = -(-qas // 25)
        one = Worker.objects.filter(assignments__unit__project=project).first()
        print(f"{client.mode}, repeat {args.repeat}; {client.mode} pid {client.pid} at "
              f"{memory_mb(client.pid)[0]:.0f} MB", flush=True)
        from django.core.cache import cache, caches

        if args.only != "exports":
            cache.clear()  # in-process; a fresh gunicorn worker starts with an empty local cache
            measure("workers page 1 (cold: metrics computed)", f"/api/workers/?project={p}&page_size=50", repeat=1,
                    target_ms=1000)
            measure("workers page 1 (with metrics)", f"/api/workers/?project={p}&page_size=50")
            measure("workers last page (with metrics)", f"/api/workers/?project={p}&page_size=50&page=last")
            measure("workers search one external id", f"/api/workers/?project={p}&search={one.external_id}")
            measure("batches (9)", f"/api/batches/?project={p}&page_size=100")
            measure("responses page 1", f"/api/responses/?project={p}&page_size=20", key="list_first")
            measure(f"responses page {last_resp} (last)", f"/api/responses/?project={p}&page_size=20&page={last_resp}",
                    key="list_last")
            measure(f"responses middle page {last_resp // 2}",
                    f"/api/responses/?project={p}&page_size=20&page={max(1, last_resp // 2)}")
            measure("responses search + filter", f"/api/responses/?project={p}&page_size=20&search=r77&system=sysB",
                    key="list_filter")
            measure("qas page 1", f"/api/qas/?project={p}&page_size=25&ordering=id")
            measure(f"qas page {last_qa} (last)", f"/api/qas/?project={p}&page_size=25&ordering=id&page={last_qa}")
            measure(f"qas middle page {last_qa // 2}",
                    f"/api/qas/?project={p}&page_size=25&ordering=id&page={last_qa // 2}")
            cursor = client.request("get", f"/api/qas/?project={p}&page_size=25&ordering=id&cursor=").json()["next_cursor"]
            measure("qas next page by cursor", f"/api/qas/?project={p}&page_size=25&ordering=id&cursor={cursor}")
            measure("units of a batch page 1", f"/api/units/?batch={project.batches.first().pk}&page_size=50")
            measure("assignments page 1 (-id)", f"/api/assignments/?project={p}&page_size=50&ordering=-id")
            # filtered / searched deep pages and the monitor's header (issue 25 item 1, 0022)
            qs = f"/api/qas/?project={p}&page_size=25&ordering=id"
            found = client.request("get", f"{qs}&search=something%201").json()["count"]
            measure("qas search middle page", f"{qs}&search=something%201&page={max(1, -(-found // 25) // 2)}")
            measure("qas ?kind= middle page", f"{qs}&kind=verbal&page={max(1, last_qa // 2)}")
            asg = f"/api/assignments/?project={p}&page_size=50"
            found = client.request("get", f"{asg}&status=submitted").json()["count"]
            measure("assignments ?status= middle page", f"{asg}&status=submitted&page={max(1, -(-found // 50) // 2)}")
            source = Source.objects.filter(project=project).order_by("-id").first()
            measure("assignments search one source id", f"{asg}&search={source.external_id}")
            measure("monitor overview", f"/api/projects/{p}/overview/")
            # a large project's queue table, counts and report are built by Celery into the shared derived cache
            # (services/derived.py): the first ask queues the build and answers `building`; emptied here so the
            # first build is measured, not one kept by an earlier run
            caches["derived"].clear()
            queue_url = f"/api/projects/{p}/adjudication/queue/"
            measure("adjudication queue summary (first: build queued)", f"{queue_url}?summary=true", repeat=1,
                    target_ms=1000)
            until_built("adjudication queue: counts and table built", f"{queue_url}?limit=100",
                        "build_queue_table")
            measure("adjudication queue summary (kept)", f"{queue_url}?summary=true", target_ms=1000)
            measure("adjudication queue page (limit 100)", f"{queue_url}?limit=100", target_ms=1000)
            measure("report summary (from the kept counts)", f"/api/projects/{p}/report/?section=summary", repeat=1,
                    target_ms=1000)
            measure("report summary (kept)", f"/api/projects/{p}/report/?section=summary", target_ms=1000)
            measure("report workers page 2 (first: build queued)",
                    f"/api/projects/{p}/report/?section=workers&page=2&page_size=50", repeat=1, target_ms=1000)
            until_built("report: full build", f"/api/projects/{p}/report/?section=workers&page=2&page_size=50",
                        "build_report")
            measure("report workers page 2", f"/api/projects/{p}/report/?section=workers&page=2&page_size=50",
                    target_ms=1000)
        if not args.skip_exports:
            measure("export qa-jsonl (streamed)", f"/api/projects/{p}/export/?export_format=qa-jsonl", repeat=1,
                    target_ms=30_000, key="export_jsonl")
            for fmt, extra in (("qa-jsonl", {"file": "csv"}), ("hf-dataset", {})):
                run_job(client, measure, figures, p, fmt, extra, export_jobs)
    finally:
        client.close()
    print(json.dumps({"scale": args.scale, "database": connection.vendor, "mode": client.mode, "counts": counts,
                      "figures": figures}, indent=1))
    if args.json_out:
        args.json_out.write_text(json.dumps({"scale": args.scale, "database": connection.vendor, "mode": client.mode,
                                             "counts": counts, "figures": figures}, indent=1))
    return 0


def run_job(client: InProcess | Server, measure: Any, figures: list[dict[str, Any]], p: int, fmt: str,
            extra: dict, export_jobs: Any) -> None:
    """POST the export Job (timed: accepted), then run it (in this process, as the Celery worker would; or wait
    for the real Celery worker, whose RSS is then the figure) and time it."""
    label = f"{fmt}{' csv' if extra else ''}"
    worker_pid = client.celery_pid if isinstance(client, Server) else client.pid
    rss0, _ = memory_mb(worker_pid)
    reset_peak(worker_pid)
    answer = measure(f"export job {label}: accepted", f"/api/projects/{p}/export-job/", method="post",
                     body={"export_format": fmt, **extra}, repeat=1, target_ms=1000)
    job_id = answer.json()["id"]
    t0 = time.perf_counter()
    if isinstance(client, Server):
        while True:
            job = client.request("get", f"/api/jobs/{job_id}/").json()
            if job["status"] in ("done", "failed"):
                break
            time.sleep(0.5)
        status, result = job["status"], job.get("result") or {}
    else:
        done = export_jobs.run_export_job(job_id)  # what the Celery worker runs
        status, result = done.status, done.result or {}
    seconds = round(time.perf_counter() - t0, 1)
    rss1, peak = memory_mb(worker_pid)
    row = {"figure": f"export job {label}: ran", "seconds": seconds, "status": status, "bytes": result.get("bytes"),
           "rss_mb": round(rss1, 1), "rss_growth_mb": round(rss1 - rss0, 1), "peak_rss_mb": round(peak, 1),
           "peak_rss_growth_mb": round(peak - rss0, 1), "load": [round(x, 2) for x in os.getloadavg()]}
    figures.append(row)
    where = "celery worker" if isinstance(client, Server) else "this process"
    print(f"export job {label}: ran {seconds} s, {status}, {result.get('bytes')} B, {where} rss {row['rss_mb']} MB "
          f"(+{row['rss_growth_mb']}, peak {row['peak_rss_mb']})", flush=True)
    if status == "done" and result.get("download"):
        measure(f"export job {label}: download", result["download"], repeat=1, target_ms=30_000)


if __name__ == "__main__":
    raise SystemExit(main())
