"""Gold mixing: how often a worker gets a gold unit (more while new), and gold in platform batches."""
from __future__ import annotations

import random
from collections.abc import Iterable

from annotation_tasks.models import Assignment, GoldLabel, Project, Worker
from annotation_tasks.services.quality.policy import policy_for


def units_done(worker: Worker, project: Project) -> int:
    return Assignment.objects.filter(
        worker=worker, unit__project=project, status__in=Assignment.Status.counted()
    ).count()


def gold_rate(worker: Worker, project: Project, policy: dict | None = None) -> float:
    """The probability that the worker's next unit is a gold unit: higher during the first units."""
    policy = policy or policy_for(project)
    if units_done(worker, project) < int(policy["gold_initial_units"]):
        return float(policy["gold_rate_initial"])
    return float(policy["gold_rate"])


def should_serve_gold(worker: Worker, project: Project, rng: random.Random | None = None,
                      policy: dict | None = None) -> bool:
    """Whether the queue should hand this worker a gold unit next (the queue picks which one)."""
    return (rng or random).random() < gold_rate(worker, project, policy)


def gold_first(worker: Worker, project: Project, candidates: Iterable[tuple[int, bool]],
               rng: random.Random | None = None, policy: dict | None = None) -> list[int]:
    """Order queue candidates (unit id, is_gold) for this worker: gold units first when the draw says the next
    unit should be gold, otherwise ordinary units first (gold stays available as a fallback). Order is kept
    within each group, so the queue's own priority (oldest first) still holds."""
    items = list(candidates)
    serve_gold = should_serve_gold(worker, project, rng, policy)
    return [uid for uid, gold in items if gold == serve_gold] + [uid for uid, gold in items if gold != serve_gold]


def gold_source_ids(project: Project) -> set[int]:
    """Sources with at least one gold label (their units test the worker)."""
    ids: set[int] = set()
    for target in ("span", "qa", "fact"):
        ids |= set(
            GoldLabel.objects.filter(**{f"{target}__response__project": project}).values_list(
                f"{target}__response__source_id", flat=True
            )
        )
    return ids


def mix_gold(source_ids: list[int], gold_ids: set[int], n: int, rate: float) -> list[int]:
    """Pick n sources with about `rate` of them gold (a platform batch: HITs are shared, so one batch rate)."""
    gold = [s for s in source_ids if s in gold_ids]
    plain = [s for s in source_ids if s not in gold_ids]
    n_gold = min(len(gold), round(n * rate))
    chosen = gold[:n_gold] + plain[: n - n_gold]
    if len(chosen) < n:  # not enough ordinary sources: fill with more gold
        chosen += gold[n_gold : n_gold + n - len(chosen)]
    return sorted(chosen, key=source_ids.index)
