"""Benchmark: the full report analysis over 1,000,000 labels on one core.

333,334 items × 3 workers (workers drawn from a pool of 300, three distinct per item), two categories,
~80% agreement with a latent truth. Runs exactly what services.reports runs on a labels frame:
Fleiss' kappa, Krippendorff's alpha, unanimity, majority labels and per-worker agreement.
Target: < 3 s and < 1 GB peak RSS. Run:  OMP_NUM_THREADS=1 .venv/bin/python bench/bench_report.py
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=333_334)
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
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
    print(f"analysis seconds: {seconds:.3f}  (target < 3)")
    print(f"majority with vote lists (exporter path, not in the report): {votes_seconds:.3f} s, {len(with_votes):,} items")
    print(f"peak RSS MiB: {peak_mib:.0f}  (target < 1024, includes building the input frame)")


if __name__ == "__main__":
    main()
