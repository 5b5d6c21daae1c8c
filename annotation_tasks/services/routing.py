"""Routing by information for a batch: `Batch.settings["routing"] = {"policy": "posterior", "threshold": t}`.

Each QA of a unit has a posterior probability that the majority of all its `assignments_wanted` labels will be
"supported" (annotation_tasks/analysis/adaptive.py: the crowd labels counted so far plus the embedded scorer's
score as a calibrated prior; the model shipped in analysis/routing_posterior.json, fitted on the QASem dev votes).
- A unit stops (status complete, its remaining assignments not needed) once every labelled item's posterior, or
  its complement, reaches the threshold (services/work.py, on submit).
- The queue offers a worker the routing batch's open units whose items gain most from one more label first
  (services/queue.py: the largest expected reduction of an item's final-majority entropy in the unit: one unsure
  item is what a further assignment of a unit buys; a unit without labels: a first label's gain on the prior).
- The monitor shows labels saved so far against fixed N: for stopped units, N x items minus the labels collected.

A live unit is bought whole (a worker labels all its items), so a unit stops only when all its items are
confident: the replay's per-item saving (bench/bench_adaptive.py) is an upper bound of the live one.
Optional settings: "model" (one of the shipped models: "pooled", the default, or a QASem dataset) and "scorer"
(ItemScore.scorer used as the prior, default "embedded"; an item without a score gets an uninformative 0.5).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np
from django.db.models import Count

from annotation_tasks.analysis.adaptive import PosteriorModel, shipped_models
from annotation_tasks.models import Assignment, Batch, ItemScore, QALabel, Unit

KEY = "routing"  # Batch.settings key
POLICY = "posterior"


class RoutingError(ValueError):
    """A bad routing setting, located by its field path (the batch API answers 400 with it)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.message = field, message


@dataclass(frozen=True)
class Routing:
    threshold: float
    model: str = "pooled"
    scorer: str = "embedded"

    def posterior(self, cap: int) -> PosteriorModel:
        """The shipped model for `cap` labels per item (the unit's assignments_wanted)."""
        return replace(_models()[self.model][0], cap=int(cap))


@cache
def _models() -> dict[str, tuple[PosteriorModel, float]]:
    return shipped_models()


def parse(settings: Mapping[str, Any] | None) -> Routing | None:
    """The batch's routing, None when it has none; RoutingError (located) when the setting is malformed."""
    value = (settings or {}).get(KEY)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RoutingError(KEY, "must be an object")
    unknown = set(value) - {"policy", "threshold", "model", "scorer"}
    if unknown:
        raise RoutingError(f"{KEY}.{sorted(unknown)[0]}", "unknown key (known: policy, threshold, model, scorer)")
    if value.get("policy") != POLICY:
        raise RoutingError(f"{KEY}.policy", f'must be "{POLICY}"')
    model = value.get("model", "pooled")
    if model not in _models():
        raise RoutingError(f"{KEY}.model", f"unknown model (known: {', '.join(sorted(_models()))})")
    threshold = value.get("threshold", _models()[model][1])
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.5 < float(threshold) < 1.0:
        raise RoutingError(f"{KEY}.threshold", "must be a number between 0.5 and 1 (exclusive)")
    scorer = value.get("scorer", "embedded")
    if not isinstance(scorer, str) or not scorer:
        raise RoutingError(f"{KEY}.scorer", "must be a scorer name")
    return Routing(float(threshold), model, scorer)


@dataclass
class UnitState:
    """What routing knows of one unit: its labelled items, labels collected, certainty and the value of a label."""

    unit_id: int
    wanted: int
    assignments: int = 0  # counted data assignments
    items: int = 0
    labels: int = 0
    confident: bool = False
    gain: float = 0.0  # the largest expected entropy reduction (bits) of one more label on one of its items


def _labels(unit_ids: list[int]) -> dict[int, dict[int, list[int]]]:
    """{unit: {qa: [supported labels, labels]}} of work that counts as data."""
    out: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rows = QALabel.objects.filter(Assignment.data_q("assignment__"), assignment__unit_id__in=unit_ids) \
        .values_list("assignment__unit_id", "qa_id", "supported")
    for unit_id, qa_id, supported in rows:
        cell = out[unit_id][qa_id]
        cell[0] += int(supported)
        cell[1] += 1
    return out


def _shown_qas(unit_ids: list[int]) -> dict[int, list[int]]:
    """{unit: the QA ids it shows}: a slice's own QAs (UnitResponse.items), else all its responses' QAs."""
    from annotation_tasks.models import QA, UnitResponse

    out: dict[int, list[int]] = defaultdict(list)
    whole: dict[int, list[int]] = defaultdict(list)  # response -> units showing all its QAs
    for unit_id, response_id, items in UnitResponse.objects.filter(unit_id__in=unit_ids).values_list(
            "unit_id", "response_id", "items"):
        if items and "qas" in items:
            out[unit_id] += [int(q) for q in items["qas"]]
        else:
            whole[response_id].append(unit_id)
    if whole:
        for response_id, qa_id in QA.objects.filter(response_id__in=list(whole)).values_list("response_id", "pk"):
            for unit_id in whole[response_id]:
                out[unit_id].append(qa_id)
    return out


def _scores(qa_ids: Iterable[int], scorer: str) -> dict[int, float]:
    """The latest score of each QA by `scorer` (any version: the newest row wins)."""
    return dict(ItemScore.objects.filter(qa_id__in=list(qa_ids), scorer=scorer).order_by("id")
                .values_list("qa_id", "score"))


def states(units: Iterable[tuple[int, int]], routing: Routing) -> dict[int, UnitState]:
    """{unit: UnitState} for (unit id, assignments_wanted) pairs of one routing batch. A unit is confident when it
    has counted work and every item labelled in it passed the threshold; a unit with no labels yet is as open as
    it gets (its gain is that of a first label on an item with the scorer's prior only)."""
    units = list(units)
    ids = [u for u, _ in units]
    labels = _labels(ids)
    counted = dict(Assignment.objects.filter(Assignment.data_q(), unit_id__in=ids).order_by()
                   .values("unit_id").annotate(n=Count("pk")).values_list("unit_id", "n"))
    shown = _shown_qas([u for u in ids if u not in labels])
    scores = _scores({qa for items in [*labels.values(), *shown.values()] for qa in items}, routing.scorer)
    out = {}
    for unit_id, wanted in units:
        state = UnitState(unit_id, wanted, assignments=counted.get(unit_id, 0))
        items = labels.get(unit_id, {})
        model = routing.posterior(wanted)
        if not items:  # no labels yet: a first label's value on the items it shows, under their scores
            prior = model.prior(np.array([scores.get(q, 0.5) for q in shown.get(unit_id, [])] or [0.5]))
            state.gain = float(np.max(model.information_gain(np.zeros(len(prior)), 0, prior)))
            out[unit_id] = state
            continue
        qa_ids = sorted(items)
        k = np.array([items[q][0] for q in qa_ids])
        j = np.array([items[q][1] for q in qa_ids])
        prior = model.prior(np.array([scores.get(q, 0.5) for q in qa_ids]))
        p = model.final_majority(k, j, prior)
        state.items, state.labels = len(qa_ids), int(j.sum())
        state.confident = bool(np.all((np.maximum(p, 1 - p) >= routing.threshold) | (j >= wanted)))
        state.gain = float(np.max(model.information_gain(k, j, prior)))
        out[unit_id] = state
    return out


def stops(unit: Unit) -> bool:
    """Whether the unit's batch routes by posterior and all the unit's items are now confident: its remaining
    assignments are not needed (work.py marks it complete; the caller holds the unit's lock)."""
    if not unit.batch_id:
        return False
    routing = parse(Batch.objects.filter(pk=unit.batch_id).values_list("settings", flat=True).first())
    if routing is None:
        return False
    return states([(unit.pk, unit.assignments_wanted)], routing)[unit.pk].confident


def prefer_uncertain(ids: list[int]) -> list[int]:
    """The queue's candidates (in queue order) with the units of posterior-routing batches ordered by the value of
    one more label (most first) among themselves; other units keep their places. Confident units drop out (a unit
    becomes confident on submit and is completed there; this covers a setting turned on mid-batch)."""
    rows = Unit.objects.filter(pk__in=ids).values_list("pk", "assignments_wanted", "batch_id", "batch__settings")
    by_batch: dict[int, list[tuple[int, int]]] = defaultdict(list)
    settings: dict[int, Routing] = {}
    for pk, wanted, batch_id, batch_settings in rows:
        try:
            routing = parse(batch_settings) if batch_id else None
        except RoutingError:
            routing = None  # a malformed setting (written before validation) routes nothing
        if routing is not None:
            settings[batch_id] = routing
            by_batch[batch_id].append((pk, wanted))
    if not by_batch:
        return ids
    known: dict[int, UnitState] = {}
    for batch_id, units in by_batch.items():
        known.update(states(units, settings[batch_id]))
    routed = sorted((u for u in ids if u in known and not known[u].confident), key=lambda u: -known[u].gain)
    slots = iter(routed)
    return [next(slots) if u in known else u for u in ids if u not in known or not known[u].confident]


def savings(batches: Iterable[Batch]) -> dict[str, Any]:
    """Labels saved so far against fixed N by the posterior-routing batches among `batches`: for each stopped unit
    (complete with fewer counted assignments than wanted), N x its items minus the QA labels collected; and the
    projection: the saved share of the units decided so far (stopped or fully labelled) applied to the fixed-N
    labels of all the batches' units (a unit not labelled yet counted as large as the mean labelled one)."""
    out: dict[str, Any] = {"batches": 0, "units": 0, "units_decided": 0, "units_stopped": 0, "labels_collected": 0,
                           "labels_fixed_n": 0, "labels_saved": 0, "saved_pct": None, "projected_labels_saved": None}
    sizes: list[tuple[int, int]] = []  # (wanted, items) of every unit
    for batch in batches:
        try:
            routing = parse(batch.settings)
        except RoutingError:
            routing = None
        if routing is None:
            continue
        out["batches"] += 1
        units = list(batch.units.filter(is_training=False).values_list("pk", "assignments_wanted", "status"))
        out["units"] += len(units)
        status = {pk: s for pk, _, s in units}
        for state in states([(pk, w) for pk, w, _ in units], routing).values():
            sizes.append((state.wanted, state.items))
            full = state.assignments >= state.wanted
            stopped = status[state.unit_id] == Unit.Status.COMPLETE and not full
            if not (stopped or full):
                continue
            out["units_decided"] += 1
            out["labels_collected"] += state.labels
            out["labels_fixed_n"] += state.wanted * state.items
            if stopped:
                out["units_stopped"] += 1
                out["labels_saved"] += state.wanted * state.items - state.labels
    if out["labels_fixed_n"]:
        share = out["labels_saved"] / out["labels_fixed_n"]
        out["saved_pct"] = round(share * 100.0, 1)
        labelled = [n for _, n in sizes if n]
        mean_items = sum(labelled) / len(labelled)
        total = sum(w * (n if n else mean_items) for w, n in sizes)
        out["projected_labels_saved"] = int(round(share * total))
    return out
