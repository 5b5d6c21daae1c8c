"""Train the embedded scorer's logistic regressions on the shared QASem dev split and write their coefficients.

    .venv/bin/python -m annotation_tasks.scoring.training.train_embedded \
        /work/shared/data/qasem_consistency/dev.jsonl [-o annotation_tasks/scoring/data/embedded.json] [--report]

Only the dev split is used (the held-out test split checks the figures elsewhere). Labels are the majority of
the three crowd votes (QA annotation 0 = supported). Model selection (the regularisation strength C, and
whether the QA head keeps the context feature) uses cross-validation grouped by the release's source_id, so
the QAs of one article are never on both sides of a fold; the chosen setting is then fitted on all of dev.
Two heads are fitted: "qa" (QA_FEATURES, for QAs) and "statement" (STATEMENT_FEATURES, for atomic facts and
statements; trained on each QA's statement form). Classes are weighted to balance, so 0.5 is a sensible
threshold for balanced accuracy without tuning one. Coefficients are written as JSON data (no pickle).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from annotation_tasks.scoring.base import Claim, Reference
from annotation_tasks.scoring.features import (
    QA_FEATURES,
    STATEMENT_FEATURES,
    IndexCache,
    head_features,
)

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "data" / "embedded.json"
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
FOLDS = 5


def load_dev(path: Path) -> list[dict[str, Any]]:
    """One row per labelled QA of a QASem release file: reference, claim, label (1 = supported), group, dataset.

    Read as annotation_tasks/importers/qasem_release.py reads it (without Django, so this package stays pure):
    the reference is the source tokens joined by spaces, the context the QA's summary sentence (a flat summary
    is one sentence), QA annotation 0 = supported, and the majority with the analysis's tie rule (a tie is not
    supported). The file is trusted here (it is the shared dev split the importer validates)."""
    rows = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            record = json.loads(line)
            reference = Reference(" ".join(record["source"]))
            summary = record["summary"]
            sentences = [" ".join(s) for s in summary] if summary and isinstance(summary[0], list) else [" ".join(summary)]
            for qa in record["qas"]:
                votes = qa.get("annotations") or []
                if not votes:
                    continue
                context = sentences[qa["sent_id"]] if len(sentences) > 1 else sentences[0]
                rows.append({
                    "reference": reference,
                    "claim": Claim.qa(qa["question"], qa["answer"], qa["predicate"], context=context),
                    "label": int(sum(votes) * 2 < len(votes)),
                    "group": str(record["source_id"]),
                    "dataset": record.get("dataset", ""),
                })
    return rows


def feature_matrix(rows: list[dict[str, Any]], head: str, names: tuple[str, ...]) -> np.ndarray:
    cache = IndexCache()
    return np.array([[head_features(head, r["claim"], cache.get(r["reference"]))[n] for n in names] for r in rows],
                    dtype=float)


def _fit(x: np.ndarray, y: np.ndarray, c: float):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit(x, y)


def grouped_oof(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float) -> np.ndarray:
    """Out-of-fold P(supported) with folds grouped by source."""
    from sklearn.model_selection import GroupKFold

    oof = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=FOLDS).split(x, y, groups):
        oof[test] = _fit(x[train], y[train], c).predict_proba(x[test])[:, 1]
    return oof


def per_dataset(y: np.ndarray, p: np.ndarray, datasets: np.ndarray) -> dict[str, dict[str, float]]:
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    out = {}
    for name in [*sorted(set(datasets)), "all"]:
        mask = np.ones(len(y), bool) if name == "all" else datasets == name
        out[name] = {
            "items": int(mask.sum()),
            "bacc": round(float(balanced_accuracy_score(y[mask], p[mask] >= 0.5)) * 100, 1),
            "auc": round(float(roc_auc_score(y[mask], p[mask])) * 100, 1),
        }
    return out


def select(rows: list[dict[str, Any]], head: str, candidates: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """The (feature set, C) with the best mean of per-dataset grouped-CV AUC and BAcc, then fitted on all rows."""
    y = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    datasets = np.array([r["dataset"] for r in rows])
    best: dict[str, Any] | None = None
    for variant, names in candidates.items():
        x = feature_matrix(rows, head, names)
        for c in C_GRID:
            figures = per_dataset(y, grouped_oof(x, y, groups, c), datasets)
            value = np.mean([figures[d]["auc"] + figures[d]["bacc"] for d in figures if d != "all"])
            if best is None or value > best["objective"]:
                best = {"variant": variant, "features": names, "C": c, "objective": value, "cv": figures, "x": x}
    assert best is not None
    model = _fit(best["x"], y, best["C"])
    return {
        "features": list(best["features"]),
        "coef": [round(float(v), 6) for v in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "C": best["C"],
        "variant": best["variant"],
        "grouped_cv": best["cv"],
    }


def train(path: Path) -> dict[str, Any]:
    rows = load_dev(path)
    qa_head = select(rows, "qa", {
        "all": QA_FEATURES,
        "no_context": tuple(f for f in QA_FEATURES if f != "context_coverage"),
        "with_statement": (*QA_FEATURES, "statement_coverage", "statement_missing", "statement_pairs"),
    })
    statement_head = select(rows, "statement", {
        "all": STATEMENT_FEATURES,
        "no_context": tuple(f for f in STATEMENT_FEATURES if f != "context_coverage"),
    })
    digest = hashlib.sha1(path.read_bytes()).hexdigest()[:12]
    return {
        "format": 1,
        "trained_on": f"{path.name} (sha1 {digest}), {len(rows)} QAs, majority of 3 votes",
        "selection": f"{FOLDS}-fold cross-validation grouped by source_id; C in {list(C_GRID)}; class_weight balanced",
        "heads": {"qa": qa_head, "statement": statement_head},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dev", type=Path, help="the QASem release dev JSONL")
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--report", action="store_true", help="print the grouped-CV figures")
    args = parser.parse_args(argv)
    model = train(args.dev)
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    if args.report:
        for head, data in model["heads"].items():
            print(head, data["variant"], "C", data["C"], json.dumps(data["grouped_cv"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
