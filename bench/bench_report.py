"""Benchmark: the full report analysis over 1,000,000 labels on one core.

333,334 items × 3 workers (workers drawn from a pool of 300, three distinct per item), two categories,
~80% agreement with a latent truth. Runs exactly what services.reports runs on a labels frame:
Fleiss' kappa, Krippendorff's alpha, unanimity, majority labels and per-worker agreement.
Target: < 3 s and < 1 GB peak RSS. Run:  OMP_NUM_THREADS=1 .venv/bin/python bench/bench_report.py

With --from-db N the same shape (N items × 3 workers, QA labels) is written to a throw-away SQLite database
(--sqlite-dir DIR keeps it for the next run; or --database-url postgres://..., created if missing) and the
labels frame alone, then the whole `build_report`
(queryset → frames → analysis), are timed: the cost of reading the labels. Each build_report line gives wall
seconds, this process's CPU seconds, the seconds it waited for a CPU (other processes' turns: on a shared machine
that is where wall time beyond CPU time goes; SQLite runs inside this process and does not wait for I/O here) and,
on PostgreSQL, the database backend's CPU seconds. Peak RSS of that mode includes writing the labels; the RSS
before the report is printed too.
  .venv/bin/python bench/bench_report.py --from-db 333334 --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_bench_report
"""
from __future__ import annotations

import os

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")  # one core, as the target says

import argparse  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_tasks.analysis.aggregation import majority_labels  # noqa: E402
from annotation_tasks.analysis.agreement import agreement_table, worker_table  # noqa: E402


def make_labels(n_items: int, n_workers: int = 3, pool: int = 300, seed: int = 0) -> pd.DataFrame:
    """A labels frame with the dtypes services.frames produces (categorical level and label)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n_items)
    agree = rng.random((n_items, n_workers)) < 0.8
    codes = np.where(agree, truth[:, None], 1 - truth[:, None]).ravel()
    base = (np.arange(n_items) * 7) % (pool - n_workers)
    workers = (base[:, None] + np.arange(n_workers)[None, :]).ravel()
    n = n_items * n_workers
    return pd.DataFrame(
        {
            "level": pd.Categorical.from_codes(np.zeros(n, dtype=np.int8), categories=["qa"]),
            "item_id": np.repeat(np.arange(1, n_items + 1, dtype=np.int64), n_workers),
            "worker_id": workers.astype(np.int64),
            "assignment_id": np.repeat(np.arange(n_items, dtype=np.int64), n_workers),
            "label": pd.Categorical.from_codes(codes.astype(np.int8), categories=["not_supported", "supported"]),
        }
    )


def run(labels: pd.DataFrame) -> dict:
    agreement = agreement_table(labels)
    workers = worker_table(labels)
    majority = majority_labels(labels, with_votes=False)
    return {"agreement": agreement, "n_workers": len(workers), "n_majority": len(majority)}


def run_from_db(n_items: int, n_workers: int, database_url: str = "", sqlite_dir: str = "", repeat: int = 1) -> None:
    """Write n_items QAs with n_workers labels each to a temporary SQLite db (or the PostgreSQL database
    `database_url`, created if missing, a fresh project each run), then time the labels frame and build_report."""
    import tempfile

    if sqlite_dir:  # kept between runs: the labels are written once (about 5 minutes on SQLite), read many times
        Path(sqlite_dir).mkdir(parents=True, exist_ok=True)
    os.environ["FACTCROWD_VAR_DIR"] = sqlite_dir or tempfile.mkdtemp(prefix="bench_report_")
    os.environ.pop("DATABASE_URL", None)
    if database_url:
        from urllib.parse import urlparse

        import psycopg

        parts = urlparse(database_url)
        with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as conn:
            if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (parts.path.lstrip("/"),)).fetchone():
                conn.execute(f'CREATE DATABASE "{parts.path.lstrip("/")}"')
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "backend.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from annotation_tasks.models import Project
    from annotation_tasks.services.reports import build_report

    call_command("migrate", verbosity=0)
    name = f"bench {n_items}x{n_workers} in submission order"
    project = Project.objects.filter(name=name).first() if database_url or sqlite_dir else None
    if project is None:  # PostgreSQL (or --sqlite-dir) keeps the project between runs: written once, read many times
        from django.db import transaction

        with transaction.atomic():  # all or nothing: a half-written project would be "reused" next time
            _write_labels(name, n_items, n_workers)
        project = Project.objects.get(name=name)
    else:
        print(f"reusing the labels of project {name!r}")
    import gc

    from django.db import connection

    from annotation_tasks.services.frames import labels_frame

    gc.collect()
    rss_before = _rss_mib()
    start, cpu = time.perf_counter(), time.process_time()
    frame = labels_frame(project, levels=["qa"])
    frame_seconds, frame_cpu = time.perf_counter() - start, time.process_time() - cpu
    frame_rss = _rss_mib() - rss_before
    del frame
    gc.collect()
    print(f"labels frame from {connection.vendor}: {frame_seconds:.3f} s ({frame_cpu:.3f} s CPU, +{frame_rss:.0f} MiB RSS)")
    server = _server_cpu(connection)
    for run in range(1, repeat + 1):
        start, cpu, queued, served = time.perf_counter(), time.process_time(), _run_queue_seconds(), server()
        report = build_report(project.name)
        seconds, report_cpu = time.perf_counter() - start, time.process_time() - cpu
        queued, served = _run_queue_seconds() - queued, server() - served
        row = report["agreement"][0]
        # Wall = this process on a CPU + this process waiting for one (the run queue: other processes' turns on a
        # shared machine; /proc/self/schedstat) + waiting for the database server, whose own CPU is shown too.
        print(f"build_report {run}/{repeat}: {seconds:.3f} s wall, {report_cpu:.3f} s CPU, {queued:.3f} s waiting for "
              f"a CPU" + (f", database server {served:.3f} s CPU" if served == served else "")
              + f" for {row['n_labels']:,} labels (fleiss {row['fleiss_kappa']:.4f}); load {os.getloadavg()[0]:.2f}")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS MiB of the whole run (writing the labels included): {peak_mib:.0f}; RSS before the report "
          f"{rss_before:.0f} MiB")


def _run_queue_seconds() -> float:
    """Seconds this process has spent runnable but waiting for a CPU (Linux schedstat; NaN elsewhere)."""
    try:
        with open("/proc/self/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


def _server_cpu(connection):
    """A function giving the CPU seconds (user + system) used so far by this connection's PostgreSQL backend,
    read from /proc when the server runs on this machine; NaN otherwise (SQLite runs in this process)."""
    if connection.vendor != "postgresql":
        return lambda: float("nan")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    ticks = os.sysconf("SC_CLK_TCK")

    def cpu() -> float:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        except (OSError, IndexError, ValueError):
            return float("nan")

    return cpu


def _write_labels(name: str, n_items: int, n_workers: int) -> None:
    from annotation_tasks.models import QA, Assignment, Predicate, Project, QALabel, Response, Source, Unit, Worker

    labels = make_labels(n_items, n_workers)
    start = time.perf_counter()
    project = Project.objects.create(name=name)
    source = Source.objects.create(project=project, external_id="s")
    response = Response.objects.create(project=project, source=source, external_id="r", system="m", text="x")
    predicate = Predicate.objects.create(response=response, token_index=0, text="x")
    QA.objects.bulk_create(
        [QA(response=response, predicate=predicate, question="q", answer="a", answer_start=0, answer_end=1)
         for _ in range(n_items)], batch_size=5000,
    )
    qa_ids = list(QA.objects.filter(response=response).order_by("id").values_list("id", flat=True))  # this project's
    unit = Unit.objects.create(project=project, source=source)
    workers = Worker.objects.bulk_create([Worker(external_id=f"{name}/w{i}") for i in range(labels["worker_id"].max() + 1)])
    assignments = Assignment.objects.bulk_create(
        [Assignment(unit=unit, worker=w, status="approved") for w in workers]
    )
    # in submission order, as the work API writes them (one submit stores all labels of its assignment together):
    # the report finds a project's labels through their assignments, so the order decides how scattered they lie
    order = np.argsort(labels["worker_id"].to_numpy(), kind="stable")
    supported = labels["label"].to_numpy()[order] == "supported"
    rows = (
        QALabel(assignment_id=assignments[w].pk, qa_id=qa_ids[i - 1], supported=bool(v))
        for i, w, v in zip(labels["item_id"].to_numpy()[order], labels["worker_id"].to_numpy()[order], supported,
                           strict=True)
    )
    QALabel.objects.bulk_create(rows, batch_size=5000)
    print(f"wrote {len(labels):,} QA labels in {time.perf_counter() - start:.1f} s")


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=333_334)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--from-db", type=int, default=0, metavar="N", help="time build_report over N items in SQLite")
    parser.add_argument("--database-url", default="", help="with --from-db: this PostgreSQL database instead")
    parser.add_argument("--sqlite-dir", default="", help="with --from-db on SQLite: keep the database in this folder "
                        "and reuse its labels on the next run (default: a fresh temporary folder)")
    parser.add_argument("--repeat", type=int, default=1, help="with --from-db: run build_report this many times")
    args = parser.parse_args()
    if args.from_db:
        run_from_db(args.from_db, args.workers, args.database_url, args.sqlite_dir, args.repeat)
        return
    labels = make_labels(args.items, args.workers)
    start = time.perf_counter()
    result = run(labels)
    seconds = time.perf_counter() - start
    start = time.perf_counter()
    with_votes = majority_labels(labels, with_votes=True)
    votes_seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # ru_maxrss is KiB on Linux
    row = result["agreement"][0]
    print(f"labels: {len(labels):,}  items: {row['n_items']:,}  workers: {result['n_workers']}")
    print(f"fleiss_kappa: {row['fleiss_kappa']:.4f}  krippendorff_alpha: {row['krippendorff_alpha']:.4f}  "
          f"unanimous: {row['percent_unanimous']:.2f}%")
    # Sanity: each label matches a 50/50 truth with p = 0.8, so pairwise agreement is 0.8² + 0.2² = 0.68
    # against chance 0.5: kappa ≈ (0.68 - 0.5) / 0.5 = 0.36; unanimity ≈ 0.8³ + 0.2³ = 52%.
    print("expected (by hand): kappa ≈ 0.360, unanimous ≈ 52.0%")
    print(f"analysis seconds: {seconds:.3f}  (target < 3)")
    print(f"majority with vote lists (exporter path, not in the report): {votes_seconds:.3f} s, {len(with_votes):,} items")
    print(f"peak RSS MiB: {peak_mib:.0f}  (target < 1024, includes building the input frame)")


if __name__ == "__main__":
    main()
