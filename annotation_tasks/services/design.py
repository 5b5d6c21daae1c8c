"""Study design for a project: its labels so far as the pilot of analysis.design.plan (thin: read, then plan).

The pilot of a metric is one label level: kappa / alpha the `level` asked for (default qa, else the first level
with labels), consistency the QA level, factscore the fact level; a vote is positive when it is the level's
supported label (supported, covered, S). Seconds per label: the median over the project's counted assignments
with a time on task of their time over their labels; 15 s when none has one. Without labels, stated priors
(share supported, kappa) plan agreement metrics.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from annotation_tasks.analysis.design import METRICS, DesignError, Pilot, Priors, plan
from annotation_tasks.models import Assignment, Project
from annotation_tasks.services import frames

POSITIVE = {"qa": "supported", "span": "covered", "fact": "S"}
DEFAULT_SECONDS_PER_LABEL = 15.0
DEFAULT_PAY_PER_HOUR = 12.0

__all__ = ["DesignError", "design", "design_from_params"]


def _level(labels: pd.DataFrame, metric: str, level: str | None) -> str:
    if metric == "consistency":
        return "qa"
    if metric == "factscore":
        return "fact"
    if level is not None:
        if level not in POSITIVE:
            raise DesignError("level", f"must be one of {', '.join(POSITIVE)}")
        return level
    present = [str(v) for v in pd.unique(labels["level"].astype(str))] if len(labels) else []
    return "qa" if "qa" in present or not present else present[0]


def _seconds_per_label(project: Project, labels: pd.DataFrame) -> float:
    per_assignment = labels.groupby("assignment_id", observed=True).size() if len(labels) else pd.Series(dtype=int)
    timed = Assignment.objects.filter(Assignment.counted_q(), unit__project=project, time_on_task_ms__isnull=False,
                                      pk__in=[int(a) for a in per_assignment.index[:50_000]])
    rates = [ms / 1000 / per_assignment[a] for a, ms in timed.values_list("pk", "time_on_task_ms") if per_assignment[a]]
    return float(np.median(rates)) if rates else DEFAULT_SECONDS_PER_LABEL


def pilot_of(labels: pd.DataFrame, level: str) -> Pilot | None:
    """Per item: positive votes and votes, items grouped by response, each response's system."""
    rows = labels[labels["level"].astype(str) == level]
    if rows.empty:
        return None
    positive = (rows["label"].astype(str) == POSITIVE[level]).to_numpy()
    items = pd.DataFrame({"item_id": rows["item_id"].to_numpy(), "response_id": rows["response_id"].to_numpy(),
                          "system": rows["system"].astype(str).to_numpy(), "yes": positive.astype(np.int64)})
    per_item = items.groupby("item_id", sort=True).agg(yes=("yes", "sum"), votes=("yes", "size"),
                                                      response_id=("response_id", "first"), system=("system", "first"))
    per_item = per_item.sort_values(["response_id"], kind="stable")
    codes, responses = pd.factorize(per_item["response_id"].to_numpy(), sort=True)
    systems = per_item.groupby("response_id", sort=True)["system"].first().reindex(responses).to_numpy(dtype=object)
    return Pilot(per_item["yes"].to_numpy(np.int64), per_item["votes"].to_numpy(np.int64), codes.astype(np.int64),
                 np.asarray(systems, dtype=object))


def design(project: Project, *, target_ci: float, metric: str = "kappa", budget: float | None = None,
           level: str | None = None, seconds_per_label: float | None = None,
           pay_per_hour: float = DEFAULT_PAY_PER_HOUR, priors: Priors | None = None, **options: Any) -> dict[str, Any]:
    """analysis.design.plan on the project's labels (raises DesignError naming the argument)."""
    if metric not in METRICS:
        raise DesignError("metric", f"must be one of {', '.join(METRICS)}")
    labels = frames.labels_frame(project)
    chosen = _level(labels, metric, level)
    pilot = pilot_of(labels, chosen)
    if pilot is None and priors is None:
        raise DesignError("project", f"no {chosen} labels yet: run a pilot, or state priors (prior_supported, "
                                     "prior_kappa)")
    seconds = seconds_per_label if seconds_per_label is not None else _seconds_per_label(project, labels)
    out = plan(metric, target_ci, pilot=pilot, priors=None if pilot is not None else priors,
               seconds_per_label=seconds, pay_per_hour=pay_per_hour, budget=budget, **options)
    return {"project": project.name, "level": chosen, **out}


def _number(params: Mapping[str, Any], name: str, required: bool = False) -> float | None:
    value = params.get(name)
    if value in (None, ""):
        if required:
            raise DesignError(name, "is required")
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise DesignError(name, "must be a number") from None
    if not np.isfinite(number):
        raise DesignError(name, "must be a finite number")
    return number


def design_from_params(project: Project, params: Mapping[str, Any]) -> dict[str, Any]:
    """design() from query parameters (the batch screen's GET): target_ci, metric, budget, level,
    seconds_per_label, pay_per_hour, prior_supported, prior_kappa; each bad one named."""
    target = _number(params, "target_ci", required=True)
    prior_s, prior_k = _number(params, "prior_supported"), _number(params, "prior_kappa")
    priors = None
    if prior_s is not None or prior_k is not None:
        if prior_s is None or prior_k is None or not 0 < prior_s < 1 or not 0 < prior_k < 1:
            raise DesignError("prior_supported", "give prior_supported and prior_kappa, each between 0 and 1")
        priors = Priors(prior_s, prior_k)
    pay = _number(params, "pay_per_hour")
    return design(project, target_ci=float(target or 0), metric=str(params.get("metric") or "kappa"),
                  budget=_number(params, "budget"), level=params.get("level") or None,
                  seconds_per_label=_number(params, "seconds_per_label"),
                  pay_per_hour=DEFAULT_PAY_PER_HOUR if pay is None else pay, priors=priors)
