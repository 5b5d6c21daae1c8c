"""Adaptive assignment on the released QASem dev votes: how many labels for the same agreement with the full majority?

    .venv/bin/python bench/bench_adaptive.py [/work/shared/data/qasem_consistency/dev.jsonl] [--json]

Each QA of the release has three crowd votes. The simulation (annotation_tasks/analysis/adaptive.py) draws them one
at a time and stops an item when its labels already fix the three-vote majority, or when its first label agrees
with a confident score. Scores are the embedded scorer's, computed OUT OF FOLD (5-fold cross-validation grouped by
source, with the shipped model's features and C), because the shipped model was trained on this very file; the
overlap baseline needs no training. Figures are means over 20 seeded orders of the anonymous votes.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from annotation_tasks.analysis.adaptive import (  # noqa: E402
    SHIPPED,
    cheapest_at,
    fit_posterior,
    fit_posteriors,
    fixed_budget,
    simulate,
    simulate_posterior,
    sweep,
)
from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS  # noqa: E402
from annotation_tasks.scoring.registry import get_scorer  # noqa: E402
from annotation_tasks.scoring.training import train_embedded  # noqa: E402

DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "qasem_consistency" / "dev.jsonl"
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
TARGETS = (100.0, 99.0, 98.0, 97.0, 95.0)
THRESHOLDS = (0.95, 0.96, 0.965, 0.9675, 0.97, 0.9725, 0.975, 0.98, 0.985, 0.99)


def datasets_of(path: Path) -> np.ndarray:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            rows += [record["dataset"] for qa in record["qas"] if qa.get("annotations")]
    return np.array(rows, dtype=object)


def posterior_policy(votes: np.ndarray, scores: np.ndarray, datasets: np.ndarray, sources: np.ndarray
                     ) -> dict[str, object]:
    """The posterior policy (one model per dataset, fitted on dev) over THRESHOLDS, the cheapest at each target,
    and the same cross-fitted: models fitted on four fifths of the sources, replayed on the fifth left out."""
    from sklearn.model_selection import GroupKFold

    models = fit_posteriors(votes, scores, datasets)
    results = [simulate_posterior(votes, scores, models, t, groups=datasets) for t in THRESHOLDS]
    folds = list(GroupKFold(n_splits=5).split(votes, groups=sources))
    fitted = [fit_posteriors(votes[train], scores[train], datasets[train]) for train, _ in folds]
    crossfit = []
    for t in THRESHOLDS:
        parts = [simulate_posterior(votes[test], scores[test], m, t, groups=datasets[test])
                 for (_, test), m in zip(folds, fitted, strict=True)]
        labels = sum(p["labels"] for p in parts)
        crossfit.append({"threshold": t, "labels": labels, "saved_pct": (1 - labels / votes.size) * 100.0,
                         "agreement_pct": sum(p["agreement_pct"] * p["items"] for p in parts) / len(votes)})
    return {"sweep": results, "cheapest": {str(t): cheapest_at(results, t) for t in TARGETS},
            "crossfit": crossfit, "crossfit_cheapest": {str(t): cheapest_at(crossfit, t) for t in TARGETS}}


def shipped_routing(votes: np.ndarray, scores: np.ndarray, datasets: np.ndarray) -> dict[str, object]:
    """What live routing ships (annotation_tasks/analysis/routing_posterior.json): a pooled model and one per
    dataset, fitted on dev, each with the cheapest of THRESHOLDS reaching 99% agreement in its own dev replay."""
    import dataclasses

    out: dict[str, object] = {}
    for name in ["pooled", *sorted(set(datasets.tolist()))]:
        mask = np.ones(len(votes), dtype=bool) if name == "pooled" else datasets == name
        model = fit_posterior(votes[mask], scores[mask])
        best = cheapest_at([simulate_posterior(votes[mask], scores[mask], model, t) for t in THRESHOLDS], 99.0)
        assert best is not None
        out[name] = {"model": dataclasses.asdict(model), "threshold": best["threshold"],
                     "dev_saved_pct": round(best["saved_pct"], 2), "dev_agreement_pct": round(best["agreement_pct"], 2)}
    return {"fitted_on": "shared/data/qasem_consistency/dev.jsonl, out-of-fold embedded scores "
                         "(bench/bench_adaptive.py --write)", "models": out}


def votes_of(path: Path) -> np.ndarray:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rows += [[a == 0 for a in qa["annotations"]] for qa in json.loads(line)["qas"] if qa.get("annotations")]
    return np.array(rows, dtype=bool)


def out_of_fold_embedded(rows: list[dict]) -> np.ndarray:
    spec = json.loads(DEFAULT_COEFFICIENTS.read_text())["heads"]["qa"]
    x = train_embedded.feature_matrix(rows, "qa", tuple(spec["features"]))
    y = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    return train_embedded.grouped_oof(x, y, groups, spec["C"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dev", nargs="?", type=Path, default=DEV)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", action="store_true", help=f"fit and write the shipped routing models ({SHIPPED.name})")
    args = parser.parse_args(argv)
    rows = train_embedded.load_dev(args.dev)
    votes = votes_of(args.dev)
    assert len(votes) == len(rows)
    if args.write:
        shipped = shipped_routing(votes, out_of_fold_embedded(rows), datasets_of(args.dev))
        SHIPPED.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(shipped, indent=1))
        return 0
    overlap = get_scorer("overlap")
    scores = {
        "embedded (out of fold)": out_of_fold_embedded(rows),
        "overlap": np.array([s.value for s in overlap.score_batch([(r["reference"], r["claim"]) for r in rows])]),
    }
    out = {"items": int(len(votes)), "fixed": [fixed_budget(votes, k) for k in (1, 2, 3)], "adaptive": {}}
    out["two_plus_one"] = simulate(votes, np.full(len(votes), 0.5), margin=0.5)
    out["posterior"] = posterior_policy(votes, scores["embedded (out of fold)"], datasets_of(args.dev),
                                        np.array([r["group"] for r in rows]))
    for name, s in scores.items():
        results = sweep(votes, s, MARGINS)
        out["adaptive"][name] = {"sweep": results,
                                 "cheapest": {str(t): cheapest_at(results, t) for t in TARGETS}}
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    full = 3 * len(votes)
    print(f"{len(votes)} QAs, {full} released labels (3 per QA)")
    for r in out["fixed"]:
        print(f"  fixed {r['k']} per QA: {r['labels']:.0f} labels, agreement {r['agreement_pct']:.1f}%")
    t = out["two_plus_one"]
    print(f"  two, third on disagreement: {t['labels']:.0f} labels ({t['saved_pct']:.1f}% saved), "
          f"agreement {t['agreement_pct']:.1f}%")
    for name, data in out["adaptive"].items():
        print(f"\nscore = {name}")
        print("  margin  labels  saved%  agreement%")
        for r in data["sweep"]:
            print(f"  {r['margin']:>6.2f}  {r['labels']:>6.0f}  {r['saved_pct']:>6.1f}  {r['agreement_pct']:>9.2f}")
        for target, r in data["cheapest"].items():
            if r:
                print(f"  >= {float(target):.0f}% agreement: margin {r['margin']:.2f}, {r['labels']:.0f} labels, "
                      f"{r['saved_pct']:.1f}% of the 3-per-QA labels saved")
    post = out["posterior"]
    print("\nposterior policy (embedded out of fold as the prior, one model per dataset)")
    print("  threshold  saved%  agreement%  | cross-fitted by source: saved%  agreement%")
    for r, c in zip(post["sweep"], post["crossfit"], strict=True):
        print(f"  {r['threshold']:>9.4f}  {r['saved_pct']:>6.1f}  {r['agreement_pct']:>9.2f}  |  "
              f"{c['saved_pct']:>27.1f}  {c['agreement_pct']:>9.2f}")
    for name in ("cheapest", "crossfit_cheapest"):
        r = post[name]["99.0"]
        if r:
            print(f"  {name}: >= 99% agreement at threshold {r['threshold']}: {r['saved_pct']:.1f}% saved, "
                  f"{r['agreement_pct']:.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
