"""Aggregation beyond the majority: Dawid-Skene, GLAD and MACE (crowd-kit) beside our majority vote.

Each model estimates a true label per item and a competence per worker from the same labels frame (columns
level, item_id, worker_id, label), one level at a time:

- majority: analysis.aggregation.majority_labels with its tie rule; competence = agreement with the others'
  majority (analysis.agreement.worker_agreement).
- dawid_skene: a confusion matrix per worker (Dawid & Skene 1979); competence = the worker's expected accuracy,
  sum over true labels c of prior(c) * P(worker says c | true c).
- glad: a worker expertise alpha and an item difficulty (Whitehill et al. 2009); competence = alpha (0 = chance,
  higher = better, negative = adversarial).
- mace: a spamming probability per worker (Hovy et al. 2013); competence = P(the worker is not spamming).

crowd-kit returns its predictions indexed by task in its own order: everything here aligns on the item id. Fits
are deterministic (MACE is seeded). Pure: frames in, frames and dicts out.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from annotation_tasks.analysis.aggregation import majority_labels
from annotation_tasks.analysis.agreement import worker_agreement

MODELS = ("majority", "dawid_skene", "glad", "mace")
MODEL_NOTES = {
    "majority": "agreement with the other workers' majority",
    "dawid_skene": "expected accuracy from the worker's confusion matrix",
    "glad": "expertise alpha (0 = chance, higher = better)",
    "mace": "probability that the worker is not spamming",
}


@dataclass(frozen=True)
class Fit:
    """One model fitted on one level: a label per item and a competence per worker."""

    model: str
    level: str
    labels: pd.Series  # index item_id (sorted), values: label
    competence: pd.Series  # index worker_id (sorted), values: float


def _task_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """crowd-kit's input: task, worker, label as plain objects (categoricals confuse its groupbys), sorted by
    task and worker: MACE's random start follows the order workers appear in, so the fit must not depend on the
    order the database returned the rows in."""
    frame = pd.DataFrame(
        {
            "task": labels["item_id"].to_numpy(dtype=object),
            "worker": labels["worker_id"].to_numpy(dtype=object),
            "label": labels["label"].astype(str).to_numpy(dtype=object),
        }
    )
    return frame.sort_values(["task", "worker", "label"], kind="stable", ignore_index=True)


def _majority(labels: pd.DataFrame, level: str) -> Fit:
    out = majority_labels(labels.assign(level=level), with_votes=False)
    table = worker_agreement(labels.assign(level=level))
    competence = pd.Series(
        [np.nan if a is None else float(a) for a in table["agreement"]], index=table["worker_id"].to_numpy(), dtype=float
    )
    return Fit("majority", level, pd.Series(out["majority"].to_numpy(), index=out["item_id"].to_numpy()),
               competence.sort_index())


def _dawid_skene(data: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    from crowdkit.aggregation import DawidSkene

    model = DawidSkene(n_iter=100)
    predicted = model.fit_predict(data)
    errors, priors = model.errors_, model.priors_
    assert errors is not None and priors is not None  # set by fit
    accuracy = {}
    for worker, matrix in errors.groupby(level="worker"):
        diagonal = matrix.droplevel("worker")
        accuracy[worker] = float(sum(priors[c] * diagonal.loc[c, c] for c in priors.index if c in diagonal.index))
    return predicted, pd.Series(accuracy, dtype=float)


def _glad(data: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    from crowdkit.aggregation import GLAD

    model = GLAD()
    predicted = model.fit_predict(data)
    return predicted, model.alphas_.astype(float)


def _mace(data: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    from crowdkit.aggregation import MACE

    model = MACE(random_state=0)
    predicted = model.fit_predict(data)
    workers = pd.factorize(data["worker"])[1]  # MACE's own worker order (first appearance)
    return predicted, pd.Series(model.spamming_[:, 1], index=np.asarray(workers), dtype=float)


FITTERS: dict[str, Callable[[pd.DataFrame], tuple[pd.Series, pd.Series]]] = {
    "dawid_skene": _dawid_skene,
    "glad": _glad,
    "mace": _mace,
}


def fit(labels: pd.DataFrame, model: str, level: str | None = None) -> Fit:
    """Fit one model on ONE level's labels (`level` names it; defaults to the frame's level column)."""
    if model not in MODELS:
        raise ValueError(f"unknown aggregation {model!r} (expected one of {', '.join(MODELS)})")
    if level is None:
        levels = pd.unique(labels["level"]) if "level" in labels and len(labels) else ["label"]
        if len(levels) > 1:
            raise ValueError(f"fit expects one level, got {list(levels)}")
        level = str(levels[0])
    if labels.empty:
        empty = pd.Series(dtype=object)
        return Fit(model, level, empty, pd.Series(dtype=float))
    if model == "majority":
        return _majority(labels, level)
    data = _task_frame(labels)
    if data["label"].nunique() < 2:  # nothing to model: every model would return the one label
        only = data["label"].iloc[0]
        items = np.sort(pd.unique(data["task"]))
        workers = np.sort(pd.unique(data["worker"]))
        return Fit(model, level, pd.Series(only, index=items, dtype=object), pd.Series(1.0, index=workers))
    with warnings.catch_warnings():
        # crowd-kit 1.4.2 still passes inplace= / copy= that pandas 3 deprecates (thousands per fit); the
        # results are unchanged, and our own code's warnings stay visible.
        warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"crowdkit\.")
        warnings.filterwarnings("ignore", category=FutureWarning, module=r"crowdkit\.")
        predicted, competence = FITTERS[model](data)
    # Back to the frame's item type and a sorted index: crowd-kit orders tasks its own way.
    predicted = predicted.sort_index()
    return Fit(model, level, predicted.astype(object), competence.sort_index())


def fit_levels(labels: pd.DataFrame, model: str) -> list[Fit]:
    """One Fit per level of the frame, levels in sorted order."""
    if labels.empty:
        return []
    return [fit(group, model, str(level)) for level, group in labels.groupby("level", sort=True, observed=True)]


def aggregated_labels(labels: pd.DataFrame, model: str) -> dict[tuple[str, object], object]:
    """{(level, item_id): label} of a model over every level (what an export writes as the label)."""
    out: dict[tuple[str, object], object] = {}
    for f in fit_levels(labels, model):
        out.update({(f.level, item): label for item, label in f.labels.items()})
    return out


def compare_with_majority(labels: pd.DataFrame, models: Iterable[str]) -> dict[str, list[dict]]:
    """Where each model's labels differ from the majority, and every worker's competence under each model.

    Returns {"differences": rows (level, model, n_items, n_differ, pct_differ), "competence": rows (level,
    worker_id, n_labels, then one column per model, majority first)}.
    """
    wanted = [m for m in dict.fromkeys(models) if m != "majority"]
    for m in wanted:
        if m not in MODELS:
            raise ValueError(f"unknown aggregation {m!r} (expected one of {', '.join(MODELS)})")
    differences: list[dict] = []
    competence: list[dict] = []
    if labels.empty:
        return {"differences": differences, "competence": competence}
    for level, group in labels.groupby("level", sort=True, observed=True):
        level = str(level)
        base = fit(group, "majority", level)
        fits = {m: fit(group, m, level) for m in wanted}
        for m, f in fits.items():
            other = f.labels.reindex(base.labels.index)
            differ = int((other.astype(str) != base.labels.astype(str)).sum())
            n = int(len(base.labels))
            differences.append({"level": level, "model": m, "n_items": n, "n_differ": differ,
                                "pct_differ": differ / n * 100.0 if n else None})
        n_labels = group["worker_id"].value_counts()
        for worker in base.competence.index:
            row = {"level": level, "worker_id": worker, "n_labels": int(n_labels.get(worker, 0))}
            for m, f in {"majority": base, **fits}.items():
                value = f.competence.get(worker)
                row[m] = None if value is None or not np.isfinite(value) else float(value)
            competence.append(row)
    return {"differences": differences, "competence": competence}
