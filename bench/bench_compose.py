"""Benchmark: composing N units (issue 25 item 4): seconds and peak RSS of the process that composes.

Builds a project of N sources, one response each (a summary of --tokens tokens in sentences of 20, with a
predicate, a QA and an answer span per sentence, gold labels on every 10th response), in a fresh child process,
then composes it in another fresh child, so the composing process's ru_maxrss (os.wait4) is its own:
- `--path job` (default): what a Celery worker runs for POST batches/<id>/compose/ above the inline threshold,
  the compose Job (services.batch_jobs.run_compose_job: a chunk of sources per transaction, progress per chunk);
- `--path inline`: services.units.compose_units in one transaction, returning every unit (the CLI and small
  composes; kept for comparison).
The database: --database-url (PostgreSQL: its tables are created by migrate and the project is removed
afterwards), else a temporary SQLite file.

Run:  .venv/bin/python bench/bench_compose.py --units 30000 \
          --database-url postgres://factcrowd:factcrowd@127.0.0.1:5432/factcrowd_compose_h5
Figures (2026-12-04, this 2-core box shared with 7 other sessions, PostgreSQL 15, 30,000 units of 60 tokens
and 3 QAs each, 3,000 gold):
  compose Job    185.9 s, peak RSS 82 MB (67 MB after Django setup), load 19.8
  inline         216.2 s, peak RSS 99 MB (it returns every unit), load 20.3
  (the Job with one items query per response, before responses_items per chunk: 680 s, 82 MB, load 15.4)
  before (commit 5446b98, --repo of it, --path inline: a create and three gold queries per unit) 391.3 s,
  peak RSS 107 MB, load 6.1
The issue measured one API compose of 29,820 units at 57-63 s (load about 1) leaving the gunicorn worker at
2.0-2.4 GB, before compose_units stopped keeping each unit's source.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BUILD = r"""
import sys, time
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)
from django.db import transaction
from annotation_tasks.models import QA, AnswerSpan, GoldLabel, Predicate, Project, Response, Source
n, n_tok, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
kept = Project.objects.filter(name=name).first()
if kept is not None and kept.sources.count() == n:  # built by an earlier run with --keep
    print("BUILT 0 (kept)")
    sys.exit(0)
Project.objects.filter(name=name).delete()
project = Project.objects.create(name=name, protocol=["span_coverage", "qa_support"])
words = [("Alice", "visited", "Paris", "in", "May", ".")[i % 6] for i in range(n_tok)]
tokens, pos = [], 0
for w in words:
    tokens.append([w, pos, pos + len(w)])
    pos += len(w) + 1
text = " ".join(words)
sentences = [{"start": s, "end": min(s + 20, n_tok), "text": "", "is_relevant": True} for s in range(0, n_tok, 20)]
t = time.perf_counter()
STEP = 1000
for lo in range(0, n, STEP):
    with transaction.atomic():
        sources = Source.objects.bulk_create([Source(project=project, external_id=f"s{i}", text=text)
                                              for i in range(lo, min(lo + STEP, n))])
        responses = Response.objects.bulk_create([
            Response(project=project, source=s, external_id=f"r{s.external_id}", system="m", text=text,
                     tokens=tokens, sentences=sentences) for s in sources])
        preds = Predicate.objects.bulk_create([Predicate(response=r, token_index=s["start"] + 1, text="visited",
                                                         sentence_index=k)
                                               for r in responses for k, s in enumerate(sentences)])
        qas = QA.objects.bulk_create([QA(response=p.response, predicate=p, question="Who visited something?",
                                         answer="Alice", answer_start=p.token_index - 1,
                                         answer_end=p.token_index, order=p.sentence_index) for p in preds])
        spans = AnswerSpan.objects.bulk_create([AnswerSpan(response=q.response, start=q.answer_start,
                                                           end=q.answer_end, text="Alice", order=q.order)
                                                for q in qas])
        AnswerSpan.qas.through.objects.bulk_create([AnswerSpan.qas.through(answerspan=s, qa=q)
                                                     for s, q in zip(spans, qas)])
        GoldLabel.objects.bulk_create([GoldLabel(qa=q, value="supported") for q in qas
                                       if q.order == 0 and q.response.pk % 10 == 0])
print(f"BUILT {time.perf_counter() - t:.1f} (new)")
"""

COMPOSE = r"""
import sys, time, resource
import django
django.setup()
from annotation_tasks.models import Batch, Project, Unit
from annotation_tasks.services import batch_jobs, jobs, units
path, name = sys.argv[1], sys.argv[2]
project = Project.objects.get(name=name)
batch = Batch.objects.create(project=project, name=f"bench {path} {time.time():.0f}")  # earlier runs' stay (--keep)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
if path == "job":
    job = jobs.start(project, "compose", params={"batch": batch.pk, "mode": "", "assignments_wanted": None},
                     queue=False)
    job = batch_jobs.run_compose_job(job.pk)
    assert job.status == "done", job.error
    made = job.result["created"]
else:
    made = len(units.compose_units(batch))
seconds = time.perf_counter() - t
print(f"RESULT {seconds:.1f} {base} {made} {Unit.objects.filter(batch=batch, is_gold=True).count()}")
"""


def child(code: str, args: list[str], env: dict[str, str], folder: Path, tag: str,
          repo: Path = REPO) -> tuple[str, int, float]:
    """Run `code` in a fresh interpreter; its last RESULT/BUILT line, its own peak RSS (KiB) and wall seconds."""
    t = time.perf_counter()
    out, err = folder / f"{tag}.out", folder / f"{tag}.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", code, *args], cwd=repo, env=env, stdout=stdout, stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
    if status:
        raise SystemExit(f"{tag} failed ({status}): {err.read_text()[-1500:]}")
    lines = [x for x in out.read_text().splitlines() if x.startswith(("RESULT", "BUILT"))]
    return lines[-1], usage.ru_maxrss, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--units", type=int, default=30_000)
    parser.add_argument("--tokens", type=int, default=60, help="tokens per response (a sentence every 20)")
    parser.add_argument("--path", choices=["job", "inline"], nargs="+", default=["job"])
    parser.add_argument("--database-url", default="")
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="compose with the code of this checkout (e.g. `git archive <commit>` unpacked: a before "
                             "figure; --path inline only when its services.batch_jobs has no compose Job)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the built project (a rerun with the same --units and --tokens reuses it)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-compose-", dir="/tmp"))
    env = {**os.environ, "FACTCROWD_VAR_DIR": str(folder), "DJANGO_SETTINGS_MODULE": "backend.settings"}
    env.pop("DATABASE_URL", None)
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    name = f"bench-compose-{args.units}-{args.tokens}"
    try:
        line, peak, wall = child(BUILD, [str(args.units), str(args.tokens), name], env, folder, "build")
        print(f"built {args.units} sources in {wall:.1f} s ({' '.join(line.split()[1:])} s writing); "
              f"load {os.getloadavg()[0]:.2f}")
        for path in args.path:
            line, peak, wall = child(COMPOSE, [path, name], env, folder, path, args.repo)
            _, seconds, base, made, gold = line.split()
            print(f"compose {path:6s} {int(made):7d} units ({gold} gold) in {float(seconds):6.1f} s  peak RSS "
                  f"{peak / 1024:6.0f} MB (after Django setup {int(base) / 1024:.0f} MB)  "
                  f"load {os.getloadavg()[0]:.2f}")
    finally:
        if not args.keep:
            cleanup = ("import django; django.setup(); from annotation_tasks.models import Project; "
                       f"Project.objects.filter(name={name!r}).delete(); print('RESULT')")
            child(cleanup, [], env, folder, "cleanup")
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
