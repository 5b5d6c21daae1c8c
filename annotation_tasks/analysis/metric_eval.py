"""Meta-evaluation of automatic scores against human labels: how far can a metric stand in for the crowd?

Pure functions over pandas frames (no Django). The inputs:
- items: one row per judged item that has both a human label and a score: item_id, response_id, supported
  (bool, the human majority or the adjudicated gold), score (P(supported) in [0, 1]), and grouping columns
  (dataset, system, ...). services/scoring.evaluation_items builds it.
- preferences: pairwise judgments as in services.frames (unit_id, aspect, worker_id, response_a_id,
  response_b_id, score 1 = A much better ... 5 = B much better).

Figures, with the papers they follow:
- item level (QASemConsistency Table 4): balanced accuracy at the fixed threshold 0.5 (no tuning) and ROC AUC;
  plus ROC points and calibration bins for plots.
- response level: the share of supported items per response by the humans and by the metric (items with score
  >= 0.5: Ragas' faithfulness = supported statements / statements), Pearson, Spearman and mean absolute error.
- systems (FActScore's estimator): mean share per system, human vs metric, the error (metric - human, in
  points) and whether ordering the systems by the metric keeps their human order.
- pairs (QASemConsistency 4.3.1, Ragas' WikiEval): the Spearman between the metric's difference of two
  responses and the humans' mean preference, and the share of pairs (humans not tied) where the metric prefers
  the same response; a metric tie counts as not preferring it.
Every figure is None where it is undefined (one class only, fewer than two responses, constant values).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.agreement import cohen_kappa

THRESHOLD = 0.5


def jsonable(value: Any) -> Any:
    """Numpy scalars to Python, non-finite floats to None, recursively: what json.dumps(allow_nan=False) takes."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _finite(value: float) -> float | None:
    return float(value) if value is not None and math.isfinite(value) else None


def _pct(value: float | None) -> float | None:
    return None if value is None else value * 100.0


def item_metrics(supported: np.ndarray | pd.Series, score: np.ndarray | pd.Series) -> dict[str, Any]:
    """items, share supported (humans, %), BAcc at 0.5 (%) and ROC AUC (%) of one set of items."""
    from sklearn.metrics import roc_auc_score

    y = np.asarray(supported, dtype=bool)
    s = np.asarray(score, dtype=float)
    out: dict[str, Any] = {"items": int(len(y)), "supported_pct": _pct(float(y.mean())) if len(y) else None,
                           "bacc": None, "auc": None}
    if len(y) == 0 or y.all() or not y.any():
        return out
    predicted = s >= THRESHOLD
    recall_pos = (predicted & y).sum() / y.sum()
    recall_neg = (~predicted & ~y).sum() / (~y).sum()
    out["bacc"] = float((recall_pos + recall_neg) / 2 * 100.0)
    out["auc"] = float(roc_auc_score(y, s) * 100.0)
    return out


def grouped_item_metrics(items: pd.DataFrame, by: str | None = None) -> dict[str, Any]:
    """{"by_group": {group: item_metrics}, "all": item_metrics} (by_group empty without a grouping)."""
    out: dict[str, Any] = {"by_group": {}, "all": item_metrics(items["supported"], items["score"])}
    if by is not None:
        for key, group in items.groupby(items[by].fillna("").astype(str), sort=True):
            out["by_group"][str(key)] = item_metrics(group["supported"], group["score"])
    return out


def roc_points(supported: np.ndarray | pd.Series, score: np.ndarray | pd.Series, max_points: int = 101) -> list[dict]:
    """ROC curve as [{"fpr", "tpr", "threshold"}], thinned to at most max_points (first and last kept)."""
    from sklearn.metrics import roc_curve

    y = np.asarray(supported, dtype=bool)
    if len(y) == 0 or y.all() or not y.any():
        return []
    fpr, tpr, thresholds = roc_curve(y, np.asarray(score, dtype=float))
    keep = np.unique(np.linspace(0, len(fpr) - 1, min(max_points, len(fpr))).round().astype(int))
    return [{"fpr": float(fpr[i]), "tpr": float(tpr[i]), "threshold": _finite(min(float(thresholds[i]), 1.0))}
            for i in keep]


def calibration_bins(supported: np.ndarray | pd.Series, score: np.ndarray | pd.Series, n_bins: int = 10) -> list[dict]:
    """Equal-width score bins: [{"lower", "upper", "items", "mean_score", "supported_share"}] (empty bins left out)."""
    y = np.asarray(supported, dtype=float)
    s = np.asarray(score, dtype=float)
    which = np.minimum((s * n_bins).astype(int), n_bins - 1)
    out = []
    for b in range(n_bins):
        mask = which == b
        if mask.any():
            out.append({"lower": b / n_bins, "upper": (b + 1) / n_bins, "items": int(mask.sum()),
                        "mean_score": float(s[mask].mean()), "supported_share": float(y[mask].mean())})
    return out


def expected_calibration_error(bins: list[dict]) -> float | None:
    total = sum(b["items"] for b in bins)
    if not total:
        return None
    return float(sum(b["items"] * abs(b["mean_score"] - b["supported_share"]) for b in bins) / total)


def response_shares(items: pd.DataFrame, keys: tuple[str, ...] = (), threshold: float = THRESHOLD) -> pd.DataFrame:
    """Per response: items, human share supported, the metric's share (faithfulness: items with score >= 0.5, or
    the given threshold) and its mean score; keys are extra columns carried along (system, dataset)."""
    frame = items.assign(predicted=items["score"] >= threshold, supported=items["supported"].astype(bool))
    columns = ["response_id", *[k for k in keys if k != "response_id"]]
    return (
        frame.groupby(columns, sort=True, dropna=False)
        .agg(items=("supported", "size"), human=("supported", "mean"), faithfulness=("predicted", "mean"),
             mean_score=("score", "mean"))
        .reset_index()
    )


def _correlations(x: np.ndarray, y: np.ndarray) -> dict[str, float | None]:
    from scipy.stats import pearsonr, spearmanr

    if len(x) < 2 or np.all(x == x[0]) or np.all(y == y[0]):
        return {"pearson": None, "spearman": None}
    return {"pearson": _finite(pearsonr(x, y).statistic), "spearman": _finite(spearmanr(x, y).statistic)}


def response_level(items: pd.DataFrame) -> dict[str, Any]:
    """Human vs metric share supported per response: responses, Pearson, Spearman, mean absolute error (points)."""
    shares = response_shares(items)
    human, metric = shares["human"].to_numpy(float), shares["faithfulness"].to_numpy(float)
    return {
        "responses": int(len(shares)),
        **_correlations(metric, human),
        "mae": float(np.abs(metric - human).mean() * 100.0) if len(shares) else None,
    }


def system_estimates(items: pd.DataFrame, responding: pd.Series | None = None,
                     threshold: float = THRESHOLD) -> dict[str, Any]:
    """FActScore's estimator check: per system the human and the metric score (mean share over responses, 0-100),
    error (metric - human) and whether ranking the systems by the metric keeps the human ranking.

    `responding` (bool per response_id) limits the responses to those that respond, as FActScore does."""
    shares = response_shares(items, ("system",), threshold)
    if responding is not None:
        shares = shares[shares["response_id"].map(responding).fillna(True).astype(bool)]
    per_system = shares.groupby("system", sort=True).agg(responses=("response_id", "size"), human=("human", "mean"),
                                                         metric=("faithfulness", "mean"))
    rows: list[dict[str, Any]] = [
        {"system": str(system), "responses": int(r.responses), "human": float(r.human * 100.0),
         "metric": float(r.metric * 100.0), "error": float((r.metric - r.human) * 100.0)}
        for system, r in per_system.iterrows()
    ]
    human_order = [r["system"] for r in sorted(rows, key=lambda r: (-r["human"], r["system"]))]
    metric_order = [r["system"] for r in sorted(rows, key=lambda r: (-r["metric"], r["system"]))]
    return {
        "systems": rows,
        "mean_abs_error": float(np.mean([abs(r["error"]) for r in rows])) if rows else None,
        "ranking_kept": (human_order == metric_order) if len(rows) > 1 else None,
        "human_order": human_order,
        "metric_order": metric_order,
        "threshold": threshold,
    }


def pairwise_agreement(preferences: pd.DataFrame, metric_by_response: pd.Series) -> dict[str, Any]:
    """Per (aspect) the pairs of responses judged by humans against the metric's preference.

    human preference of a pair = 3 - mean score (> 0: A better); metric difference = metric(A) - metric(B).
    Pairs with a response the metric did not score are left out."""
    if preferences.empty:
        return {}
    out: dict[str, Any] = {}
    pairs = preferences.groupby(["aspect", "unit_id", "response_a_id", "response_b_id"], sort=True)["score"].mean()
    pairs = pairs.reset_index()
    pairs["human"] = 3.0 - pairs["score"]
    pairs["metric"] = pairs["response_a_id"].map(metric_by_response) - pairs["response_b_id"].map(metric_by_response)
    pairs = pairs[pairs["metric"].notna()]
    for aspect, group in pairs.groupby("aspect", sort=True):
        decided = group[group["human"] != 0]
        same = np.sign(decided["metric"].to_numpy()) == np.sign(decided["human"].to_numpy())
        out[str(aspect)] = {
            "pairs": int(len(group)),
            "spearman": _correlations(group["metric"].to_numpy(float), group["human"].to_numpy(float))["spearman"],
            "decided_pairs": int(len(decided)),
            "agreement_pct": float(same.mean() * 100.0) if len(decided) else None,
        }
    return out


RAGAS_ASPECTS = ("faithfulness", "answer_relevance", "context_relevance")
RAGAS_WIKIEVAL = {"faithfulness": 0.95, "answer_relevance": 0.78, "context_relevance": 0.70}
"""Ragas' own metrics on WikiEval: the share of pairs where the metric prefers the answer (context) the humans
preferred (Es et al. 2024, Table 1), beside which a scorer's figure reads."""


def metric_faithfulness(scores: pd.DataFrame) -> pd.Series:
    """Per response id, the metric's faithfulness from scores alone (no human item labels needed): the share of
    its scored items (QAs, facts or statements) with score >= 0.5, Ragas' supported statements / statements."""
    if scores.empty:
        return pd.Series(dtype=float)
    return (scores["score"].astype(float) >= THRESHOLD).groupby(scores["response_id"]).mean()


def ragas_agreement(preferences: pd.DataFrame, metric_by_response: pd.Series) -> dict[str, Any]:
    """Per Ragas aspect judged in the project: the pairs, those the humans did not tie, and the share of those
    where the metric prefers the same one (a fraction, as Ragas reports it), with Ragas' WikiEval figure.

    The metric scores answers, so context relevance (pairs of contexts) gets its pair counts and no agreement."""
    if preferences.empty:
        return {}
    ragas = preferences[preferences["aspect"].isin(RAGAS_ASPECTS)]
    answers = ragas[ragas["response_a_id"].notna() & ragas["response_b_id"].notna()]
    agreement = pairwise_agreement(answers.astype({"response_a_id": "int64", "response_b_id": "int64"}),
                                   metric_by_response) if len(answers) else {}
    out: dict[str, Any] = {}
    for aspect in RAGAS_ASPECTS:
        judged = ragas[ragas["aspect"] == aspect]
        if judged.empty:
            continue
        got = agreement.get(aspect)
        share = got["agreement_pct"] / 100.0 if got and got["agreement_pct"] is not None else None
        out[aspect] = {
            "pairs": int(got["pairs"]) if got else 0,
            "decided_pairs": int(got["decided_pairs"]) if got else 0,
            "agreement": share,
            "ragas_wikieval": RAGAS_WIKIEVAL[aspect],
            "compares": "answers" if judged["response_a_id"].notna().all() else "contexts",
        }
    return out


def agreement_at(supported: pd.Series | np.ndarray, score: pd.Series | np.ndarray,
                 threshold: float = THRESHOLD) -> dict[str, Any]:
    """items, Cohen's kappa of (score >= threshold) with the human verdict, ECE and the reliability bins."""
    y = np.asarray(supported, dtype=bool)
    s = np.asarray(score, dtype=float)
    bins = calibration_bins(y, s)
    kappa = cohen_kappa(y.tolist(), (s >= threshold).tolist(), labels=[False, True]) if len(y) else None
    return {"items": int(len(y)), "threshold": threshold, "kappa": kappa, "ece": expected_calibration_error(bins),
            "bins": bins}


def human_agreement(items: pd.DataFrame, by: str | None = None, threshold: float = THRESHOLD) -> dict[str, Any]:
    """{"all": agreement_at, "by_group": {group: agreement_at}} (by_group empty without a grouping)."""
    out: dict[str, Any] = {"all": agreement_at(items["supported"], items["score"], threshold), "by_group": {}}
    if by is not None and by in items:
        for key, group in items.groupby(items[by].fillna("").astype(str), sort=True):
            out["by_group"][str(key)] = agreement_at(group["supported"], group["score"], threshold)
    return out


def evaluate(items: pd.DataFrame, by: str | None = None, preferences: pd.DataFrame | None = None,
             responding: pd.Series | None = None, curves: bool = True,
             estimator_threshold: float | None = None) -> dict[str, Any]:
    """Everything above for one scorer on one level: by_group, all, responses, systems, pairwise, curves; with
    estimator_threshold (a calibrated one, analysis.factscore_calibration) also systems_calibrated."""
    out = grouped_item_metrics(items, by)
    out["responses"] = response_level(items) if len(items) else None
    out["systems"] = system_estimates(items, responding) if len(items) and "system" in items else None
    out["systems_calibrated"] = (system_estimates(items, responding, estimator_threshold)
                                 if estimator_threshold is not None and out["systems"] is not None else None)
    out["human_agreement"] = human_agreement(items, by) if len(items) else None  # kappa, ECE, bins per group
    if preferences is not None and len(preferences) and len(items):
        shares = response_shares(items).set_index("response_id")["faithfulness"]
        out["pairwise"] = pairwise_agreement(preferences, shares)
    else:
        out["pairwise"] = {}
    if curves:
        out["roc"] = roc_points(items["supported"], items["score"])
        bins = calibration_bins(items["supported"], items["score"])
        out["calibration"] = {"bins": bins, "ece": expected_calibration_error(bins)}
    return out
