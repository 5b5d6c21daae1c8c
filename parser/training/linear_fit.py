"""Cross-validated logistic regression over feature strings, written as the JSON the parser reads (linear.py).

Shared by the training scripts: C and the decision threshold are chosen by 5-fold cross-validation grouped by
document (a document's sentences never straddle folds), maximising the caller's objective on the out-of-fold
probabilities; the final model is fitted on everything. Only features seen in `min_count` examples are kept.
"""
from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from typing import Any

C_GRID = (0.05, 0.1, 0.2, 0.5, 1.0)
THRESHOLDS = tuple(round(0.1 + 0.01 * i, 2) for i in range(71))
Objective = Callable[[Any, Any], float]  # (labels, kept mask) -> score


def document_of(sid: str) -> str:
    """The article a QA-SRL / QANom sentence id belongs to (Wiki1k:wikinews:1767148:1:1 -> Wiki1k:wikinews:1767148)."""
    return ":".join(sid.split(":")[:3])


def f1_of(labels: Any, kept: Any, gold_total: int | None = None) -> float:
    """F1 of the kept examples; with `gold_total`, recall is over that many gold items rather than the positives."""
    tp = int((kept & (labels == 1)).sum())
    fp = int((kept & (labels == 0)).sum())
    fn = (gold_total if gold_total is not None else int((labels == 1).sum())) - tp
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def fit(examples: list[dict], objective: Objective, min_count: int = 3, seed: int = 0,
        c_grid: tuple[float, ...] = C_GRID, thresholds: tuple[float, ...] = THRESHOLDS) -> dict:
    """Fit on examples ({"sid", "features", "label"}); returns the artefact's model fields and CV figures."""
    import numpy as np
    import sklearn
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    counts = Counter(f for e in examples for f in set(e["features"]))
    rows = [{f: 1.0 for f in e["features"] if counts[f] >= min_count} for e in examples]
    y = np.array([e["label"] for e in examples], dtype=int)
    groups = [document_of(e["sid"]) for e in examples]
    vec = DictVectorizer()
    x = vec.fit_transform(rows)
    folds = list(GroupKFold(n_splits=5).split(x, y, groups))
    best = (-1.0, c_grid[0], 0.5)
    cv: dict[str, dict[str, float]] = {}
    for c in c_grid:
        oof = np.zeros(len(y))
        for fit_idx, held_idx in folds:
            model = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x[fit_idx], y[fit_idx])
            oof[held_idx] = model.predict_proba(x[held_idx])[:, 1]
        scores = {t: objective(y, oof >= t) for t in thresholds}
        threshold = max(scores, key=lambda t: (scores[t], -abs(t - 0.5)))
        cv[str(c)] = {"threshold": threshold, "objective": round(scores[threshold], 4)}
        print(f"C={c}: CV objective {scores[threshold]:.4f} at threshold {threshold}", file=sys.stderr)
        if scores[threshold] > best[0]:
            best = (scores[threshold], c, threshold)
    score, c, threshold = best
    model = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x, y)
    weights = {name: round(float(w), 4) for name, w in zip(vec.get_feature_names_out(), model.coef_[0], strict=True)
               if abs(w) >= 5e-4}
    return {
        "examples": len(y),
        "positives": int(y.sum()),
        "C": c,
        "threshold": threshold,
        "cv_objective": round(score, 4),
        "cv": cv,
        "sklearn": sklearn.__version__,
        "intercept": round(float(model.intercept_[0]), 4),
        "weights": dict(sorted(weights.items())),
    }
