"""The researcher's side at scale (issue 25): lists, counts, report, queue and exports of one big project.

Builds (bulk inserts) one QASem project the size of issue 25's, or --scale of it: 113,540 units (one source and
one response each, in 9 batches), 323,820 QAs with one answer span each, and 3 workers per unit from a pool of
--pool, whose QA labels make 971,460 labels (~80% agreeing with a latent truth); 1 QA in 50 has gold. Then
times, through the API in this process (Django's test client, token auth; median of --repeat), each request the
dashboard makes and prints one line per figure with the load average (os.getloadavg) at that moment and the
process's RSS growth, then the same as JSON. The machine is shared: read figures beside their load.

  .venv/bin/python bench/bench_scale.py --scale 0.1 \\
      --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_scale [--keep]

--keep reuses a project built by an earlier run with the same --scale (the database is not emptied).
Without --database-url a throw-away SQLite file is used.

Measured 2026-12-04 16:52-16:57 UTC, --scale 0.1 on PostgreSQL 15 (11,354 units, 32,382 QAs, 97,146 labels,
300 workers), the 2-core box shared with other sessions' tests at load 5-7 (median of 3, in-process client):
workers with metrics 85-91 ms (cold, computing every worker's metrics: 1.6 s), search 76 ms; batches 195 ms;
responses first / middle / last page 69 / 60 / 54 ms, search+filter 161 ms; QAs first / middle / last page
101 / 132 / 79 ms, by cursor 62 ms; units 59 ms; assignments 77 ms; queue summary cold 841 ms, warm 156 ms, a
100-row page 168 ms (119 KB); report summary cold 1.7 s, cached 79 ms (35 KB), a workers page 49 ms; JSONL
export first byte 277 ms (17 MB in 16.9 s); CSV / dataset export jobs accepted in 194 / 88 ms, ran 16.5 / 27.2 s.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
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


def rss_mb() -> float:
    """This process's resident memory now (Linux /proc), in MB."""
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=0.1)
    ap.add_argument("--pool", type=int, default=300, help="workers")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--keep", action="store_true", help="reuse the project of an earlier run with this --scale")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-exports", action="store_true")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="factcrowd-scale-"))
    setup(args.database_url, tmp)
    from django.contrib.auth import get_user_model
    from django.db import connection
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    from annotation_tasks.models import Project, ProjectMembership, Response, Worker
    from annotation_tasks.services import export_jobs

    project = Project.objects.filter(name=f"Scale {args.scale}").first() if args.keep else None
    if project is None:
        Project.objects.filter(name=f"Scale {args.scale}").delete()
        project = build(args.scale, args.pool)
    user, _ = get_user_model().objects.get_or_create(username="scale-researcher")
    ProjectMembership.objects.get_or_create(project=project, user=user,
                                            defaults={"role": ProjectMembership.Role.RESEARCHER})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    p = project.pk
    figures: list[dict[str, Any]] = []

    def measure(name: str, url: str, *, method: str = "get", body: dict | None = None, stream: bool = False,
                repeat: int | None = None, target_ms: float = 200) -> Any:
        times, first, size, answer = [], [], 0, None
        rss0, peak0 = rss_mb(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        for _ in range(repeat or args.repeat):
            gc.collect()
            t0 = time.perf_counter()
            answer = getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
            if getattr(answer, "streaming", False):
                size, t1 = 0, None
                for chunk in answer.streaming_content:
                    t1 = t1 or time.perf_counter()
                    size += len(chunk)
                first.append(((t1 or time.perf_counter()) - t0) * 1000)
            else:
                size = len(answer.content)
            times.append((time.perf_counter() - t0) * 1000)
            assert answer.status_code < 400, (url, answer.status_code, answer.content[:300])
        row = {"figure": name, "median_ms": round(statistics.median(times), 1), "bytes": size,
               "rss_growth_mb": round(rss_mb() - rss0, 1),
               "peak_rss_growth_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - peak0, 1),
               "load": [round(x, 2) for x in os.getloadavg()],
               "target_ms": target_ms}
        if first:
            row["first_byte_ms"] = round(statistics.median(first), 1)
        figures.append(row)
        extra = f" first byte {row['first_byte_ms']} ms" if first else ""
        print(f"{name:<44} {row['median_ms']:>9.1f} ms{extra}  {size:>11,} B  rss +{row['rss_growth_mb']} MB "
              f"(peak +{row['peak_rss_growth_mb']} MB)  "
              f"load {row['load'][0]:.2f}", flush=True)
        return answer

    n_resp = Response.objects.filter(project=project).count()
    last_resp = -(-n_resp // 20)
    qas = client.get(f"/api/qas/?project={p}&page_size=25").json()["count"]
    last_qa = -(-qas // 25)
    workers = client.get(f"/api/workers/?project={p}&page_size=50").json()["count"]
    one = Worker.objects.filter(assignments__unit__project=project).first()
    print(f"project {project.name} (id {p}): {n_resp} responses, {qas} QAs, {workers} workers; "
          f"{connection.vendor}; repeat {args.repeat}", flush=True)
    from django.core.cache import cache

    cache.clear()
    measure("workers page 1 (cold: metrics computed)", f"/api/workers/?project={p}&page_size=50", repeat=1,
            target_ms=1000)
    measure("workers page 1 (with metrics)", f"/api/workers/?project={p}&page_size=50")
    measure("workers last page (with metrics)", f"/api/workers/?project={p}&page_size=50&page=last")
    measure("workers search one external id", f"/api/workers/?project={p}&search={one.external_id}")
    measure("batches (9)", f"/api/batches/?project={p}&page_size=100")
    measure("responses page 1", f"/api/responses/?project={p}&page_size=20")
    measure(f"responses page {last_resp} (last)", f"/api/responses/?project={p}&page_size=20&page={last_resp}")
    measure(f"responses middle page {last_resp // 2}",
            f"/api/responses/?project={p}&page_size=20&page={max(1, last_resp // 2)}")
    measure("responses search + filter", f"/api/responses/?project={p}&page_size=20&search=r77&system=sysB")
    measure("qas page 1", f"/api/qas/?project={p}&page_size=25&ordering=id")
    measure(f"qas page {last_qa} (last)", f"/api/qas/?project={p}&page_size=25&ordering=id&page={last_qa}")
    measure(f"qas middle page {last_qa // 2}", f"/api/qas/?project={p}&page_size=25&ordering=id&page={last_qa // 2}")
    cursor = client.get(f"/api/qas/?project={p}&page_size=25&ordering=id&cursor=").json()["next_cursor"]
    measure("qas next page by cursor", f"/api/qas/?project={p}&page_size=25&ordering=id&cursor={cursor}")
    measure("units of a batch page 1", f"/api/units/?batch={project.batches.first().pk}&page_size=50")
    measure("assignments page 1 (-id)", f"/api/assignments/?project={p}&page_size=50&ordering=-id")
    measure("adjudication queue summary (cold)", f"/api/projects/{p}/adjudication/queue/?summary=true", repeat=1,
            target_ms=1000)
    measure("adjudication queue summary (warm)", f"/api/projects/{p}/adjudication/queue/?summary=true",
            target_ms=1000)
    measure("adjudication queue page (limit 100)", f"/api/projects/{p}/adjudication/queue/?limit=100",
            target_ms=1000)
    measure("report summary (cold: builds)", f"/api/projects/{p}/report/?section=summary", repeat=1, target_ms=1000)
    measure("report summary (cached)", f"/api/projects/{p}/report/?section=summary", target_ms=1000)
    measure("report workers page 2", f"/api/projects/{p}/report/?section=workers&page=2&page_size=50",
            target_ms=1000)
    if not args.skip_exports:
        measure("export qa-jsonl (streamed)", f"/api/projects/{p}/export/?export_format=qa-jsonl", repeat=1,
                target_ms=30_000)
        for fmt, extra in (("qa-jsonl", {"file": "csv"}), ("hf-dataset", {})):
            label = f"{fmt}{' csv' if extra else ''}"
            answer = measure(f"export job {label}: accepted", f"/api/projects/{p}/export-job/", method="post",
                             body={"export_format": fmt, **extra}, repeat=1, target_ms=1000)
            rss0, t0 = rss_mb(), time.perf_counter()
            job = export_jobs.run_export_job(answer.json()["id"])  # what the Celery worker runs
            seconds = round(time.perf_counter() - t0, 1)
            rss_growth = round(rss_mb() - rss0, 1)
            figures.append({"figure": f"export job {label}: ran", "seconds": seconds, "status": job.status,
                            "bytes": (job.result or {}).get("bytes"), "rss_growth_mb": rss_growth,
                            "load": [round(x, 2) for x in os.getloadavg()]})
            print(f"export job {label}: ran {seconds} s, {job.status}, {(job.result or {}).get('bytes')} B, "
                  f"rss +{rss_growth} MB", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"scale": args.scale, "database": connection.vendor, "peak_rss_mb": round(peak),
                      "figures": figures}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
