"""Reviewing work: one assignment as its worker saw and answered it, and one worker's assignments in a project.

What a unit showed is rebuilt by its protocol (protocols/payload.py, the same builder the worker's browser was
served from) and checked against the assignment's `shown` record; the answers, item by item, come from the
protocol's review companion (protocols/review.py). Beside each answer: the gold label when the item has one,
the other workers' counted votes and their majority, and the adjudicated label when an expert settled it.
Approve / reject stay in services/quality; here a researcher reads before deciding.
"""
from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from annotation_tasks.models import (
    AdjudicatedLabel,
    Assignment,
    Batch,
    GoldLabel,
    PairwisePreference,
    Project,
    QALabel,
    Worker,
    WorkerProjectStatus,
)
from annotation_tasks.models.adjudication import TARGET_FIELDS
from annotation_tasks.protocols import UnknownProtocol, label_levels, payload, vocabulary
from annotation_tasks.protocols.review import (
    PAIR_FIELDS,
    adjudication_levels,
    context_of,
    level_labels,
    oriented,
    review_for,
)
from annotation_tasks.services import identity
from annotation_tasks.services.work import readable_draft

Key = tuple[str, int, str]  # (level, item id, aspect): aspect is "" except for pairwise (item id = unit id)
SHOWN_KEYS = ("responses", "spans", "qas", "facts")
PAYLOAD_KEYS = {"spans": "spans", "qas": "qas", "facts": "facts"}


# -- names ------------------------------------------------------------------------------------------


def worker_names(worker_ids: Iterable[int], project_id: int | None) -> dict[int, dict[str, Any]]:
    """{worker id: {id, pseudonym, name}} in the project: the one identity every surface shows (services.identity;
    pseudonyms are per project); platform ids stay out of review screens, as everywhere unless asked for."""
    return identity.describe_many(worker_ids, project_id=project_id)


# -- votes, gold, majorities -----------------------------------------------------------------------


def tie_order(level: str) -> tuple[str, ...]:
    """Tie priority of a level: the analysis's (error label first); for pairwise scores the one nearest to
    'equal' (3), then the lower."""
    labels = level_labels(level)
    if level == "pairwise":
        return tuple(sorted(labels, key=lambda s: (abs(int(s) - 3), int(s))))
    return labels


def majority_of(level: str, counts: Counter, *, ties: bool = True) -> str | None:
    """The majority label of one item's vote counts. ties=True breaks ties by the tie order (the exports' and
    report's majority); ties=False answers None on a tie (an agreement check compares nothing then)."""
    if not counts:
        return None
    top = max(counts.values())
    winners = [label for label, n in counts.items() if n == top]
    if len(winners) > 1 and not ties:
        return None
    order = tie_order(level)
    return min(winners, key=lambda w: order.index(w) if w in order else len(order))


ID_CHUNK = 5_000  # ids per IN (...) query: SQLite refuses more than 32,766 parameters in one statement


def chunked(ids: Iterable[int], size: int | None = None) -> Iterator[list[int]]:
    """Sorted ids in lists of at most `size` (ID_CHUNK by default): one query each, whatever a worker or a
    project holds."""
    size = size or ID_CHUNK
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), size):
        yield ordered[start: start + size]


def label_rows(assignment_ids: Iterable[int]) -> list[tuple[int, Key, str]]:
    """(assignment id, key, label) of every label these assignments wrote, every level, label names applied."""
    rows: list[tuple[int, Key, str]] = []
    for ids in chunked(assignment_ids):
        for spec in label_levels():
            for a_id, item, value in spec.model._default_manager.filter(assignment_id__in=ids).values_list(
                "assignment_id", spec.item_field, spec.value_field
            ):
                rows.append((a_id, (spec.name, item, ""), spec.label_of(value)))
        for a_id, unit_id, aspect, score, *pair in PairwisePreference.objects.filter(assignment_id__in=ids).values_list(
            "assignment_id", "unit_id", "aspect", "score", *PAIR_FIELDS
        ):
            rows.append((a_id, ("pairwise", unit_id, aspect), str(oriented(score, *pair))))
    return rows


def counted_votes(keys: Iterable[Key], *, exclude_worker: int | None = None) -> dict[Key, list[tuple[int, int, str]]]:
    """{key: [(assignment id, worker id, label), ...]} of the counted labels of these items (Assignment.counted_q:
    submitted or approved, and trusted by its platform), in assignment order, optionally without one worker's."""
    by_level: dict[str, set[int]] = defaultdict(set)
    for level, item, _aspect in keys:
        by_level[level].add(item)
    counted = Assignment.counted_q("assignment__")  # the one definition of work whose labels count
    out: dict[Key, list[tuple[int, int, str]]] = defaultdict(list)
    for spec in label_levels():
        for items in chunked(by_level.get(spec.name, ())):
            qs = spec.model._default_manager.filter(counted, **{f"{spec.item_field}__in": items})
            if exclude_worker is not None:
                qs = qs.exclude(assignment__worker_id=exclude_worker)
            for item, a_id, w_id, value in qs.order_by("assignment_id").values_list(
                spec.item_field, "assignment_id", "assignment__worker_id", spec.value_field
            ):
                out[(spec.name, item, "")].append((a_id, w_id, spec.label_of(value)))
    for units in chunked(by_level.get("pairwise", ())):
        qs = PairwisePreference.objects.filter(counted, unit_id__in=units)
        if exclude_worker is not None:
            qs = qs.exclude(assignment__worker_id=exclude_worker)
        for unit_id, aspect, a_id, w_id, score, *pair in qs.order_by("assignment_id").values_list(
            "unit_id", "aspect", "assignment_id", "assignment__worker_id", "score", *PAIR_FIELDS
        ):  # every score from the pair's canonical side: workers may have seen the pair either way round
            out[("pairwise", unit_id, aspect)].append((a_id, w_id, str(oriented(score, *pair))))
    return out


def gold_of(keys: Iterable[Key]) -> dict[Key, str]:
    """Gold values of these items (spans, QAs and facts carry gold; pairwise comparisons do not)."""
    by_level: dict[str, set[int]] = defaultdict(set)
    for level, item, _aspect in keys:
        if level in ("span", "qa", "fact"):
            by_level[level].add(item)
    out: dict[Key, str] = {}
    for level, items in by_level.items():
        for ids in chunked(items):
            for item, value in GoldLabel.objects.filter(**{f"{level}_id__in": ids}).values_list(f"{level}_id", "value"):
                out[(level, item, "")] = value
    return out


def project_gold(project: Project) -> dict[Key, str]:
    """Every gold value of the project's spans, QAs and facts (one query per level, no id lists)."""
    out: dict[Key, str] = {}
    for level in ("span", "qa", "fact"):
        for item, value in GoldLabel.objects.filter(**{f"{level}__response__project": project}).values_list(
            f"{level}_id", "value"
        ):
            out[(level, item, "")] = value
    return out


def adjudicated_of(keys: Iterable[Key]) -> dict[Key, AdjudicatedLabel]:
    """Current adjudicated labels of these items."""
    by_level: dict[str, set[int]] = defaultdict(set)
    for level, item, _aspect in keys:
        by_level[level].add(item)
    out: dict[Key, AdjudicatedLabel] = {}
    adjudicable = set(adjudication_levels())
    for level, items in by_level.items():
        if level not in adjudicable:
            continue  # the expert step's judgments are not adjudicated
        field = f"{TARGET_FIELDS[vocabulary(level).item_type]}_id"  # the level's item type names the target
        for ids in chunked(items):
            for adj in AdjudicatedLabel.objects.filter(level=level, **{f"{field}__in": ids}):
                out[(level, adj.item_id, adj.aspect)] = adj
    return out


# -- per-assignment summaries ------------------------------------------------------------------------


def summaries(assignments: list[Assignment]) -> dict[int, dict[str, Any]]:
    """Per assignment: items answered, gold checked / correct, agreement with the other workers' majority
    (ties among the others are not compared), notes written, time on task. A few queries for any number."""
    rows = label_rows(a.pk for a in assignments)
    worker_of = {a.pk: a.worker_id for a in assignments}
    keys = {key for _a, key, _label in rows}
    gold = gold_of(keys)
    votes = counted_votes(keys)
    notes: Counter = Counter()
    for ids in chunked(worker_of):
        notes.update(QALabel.objects.filter(assignment_id__in=ids).exclude(note="").values_list("assignment_id", flat=True))
    out = {a.pk: {"items": 0, "gold_total": 0, "gold_correct": 0, "gold_accuracy": None, "compared": 0,
                  "agreed": 0, "agreement": None, "notes": notes.get(a.pk, 0), "time_on_task_ms": a.time_on_task_ms}
           for a in assignments}
    for a_id, key, label in rows:
        s = out[a_id]
        s["items"] += 1
        if key in gold:
            s["gold_total"] += 1
            s["gold_correct"] += int(gold[key] == label)
        others = Counter(v[2] for v in votes.get(key, []) if v[1] != worker_of[a_id])
        majority = majority_of(key[0], others, ties=False)
        if majority is not None:
            s["compared"] += 1
            s["agreed"] += int(majority == label)
    for s in out.values():
        s["gold_accuracy"] = s["gold_correct"] / s["gold_total"] if s["gold_total"] else None
        s["agreement"] = s["agreed"] / s["compared"] if s["compared"] else None
    return out


# -- one assignment ---------------------------------------------------------------------------------


def _shown_check(shown: dict[str, list[int]], shown_now: dict[str, list[int]]) -> dict[str, Any]:
    """Compare the `shown` record with what the unit shows today (QAs an expert invalidated since drop out)."""
    if not shown:
        return {"recorded": False, "missing_now": {}, "new_now": {}}
    missing = {k: sorted(set(shown.get(k, [])) - set(shown_now.get(k, []))) for k in SHOWN_KEYS}
    new = {k: sorted(set(shown_now.get(k, [])) - set(shown.get(k, []))) for k in SHOWN_KEYS}
    return {"recorded": True, "missing_now": {k: v for k, v in missing.items() if v},
            "new_now": {k: v for k, v in new.items() if v}}


def _answered_elsewhere(assignment: Assignment, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Labels of the assignment on items today's payload no longer shows (a QA an expert invalidated after the
    worker saw it, and its span): kept in the review with their context, flagged in_payload_now False."""
    listed = {(r["level"], r["item_id"], r.get("aspect", "")) for r in items}
    missing = [(key, label) for _a, key, label in label_rows([assignment.pk]) if key not in listed]
    by_level: dict[str, list[int]] = defaultdict(list)
    for (level, item, _aspect), _label in missing:
        by_level[level].append(item)
    contexts = {level: context_of(level, ids) for level, ids in by_level.items()}
    rows = []
    for (level, item, aspect), label in missing:
        context = contexts.get(level, {}).get(item, {})
        rows.append({**{k: v for k, v in context.items() if k not in ("display", "source_text", "source_question")},
                     "level": level, "item_id": item, **({"aspect": aspect} if aspect else {}),
                     "answer": label, "in_payload_now": False})
    return rows


def assignment_review(assignment: Assignment) -> dict[str, Any]:
    """Everything a reviewer needs about one assignment: the payload its worker was served (rebuilt by the
    protocol), the `shown` record and how today's unit differs from it, and per item the worker's answer, its
    gold check, the other workers' votes and majority, and any adjudicated label; plus the summary."""
    unit = assignment.unit
    data, shown_now = payload.build(
        unit, {"id": assignment.pk, "status": assignment.status, "mode": unit.mode, "preview": False},
        assignment.shown,  # what was drawn for the worker (ragas' sides) stays as they saw it
    )
    data["draft"] = readable_draft(assignment.draft)  # a draft stored before drafts were checked: no 500
    data["draft_version"] = assignment.draft_version
    try:
        items = review_for(unit.mode).answers(assignment, data)
    except UnknownProtocol:
        items = []
    for row in items:
        row["in_payload_now"] = True
    items += _answered_elsewhere(assignment, items)
    keys = [(r["level"], r["item_id"], r.get("aspect", "")) for r in items]
    gold = gold_of(keys)
    others = counted_votes(keys, exclude_worker=assignment.worker_id)
    adjudicated = adjudicated_of(keys)
    names = worker_names({w for votes in others.values() for _a, w, _l in votes}, unit.project_id)
    for row, key in zip(items, keys, strict=True):
        votes = others.get(key, [])
        counts = Counter(v[2] for v in votes)
        majority = majority_of(key[0], counts, ties=False)
        row["gold"] = gold.get(key)
        row["gold_ok"] = None if key not in gold or row["answer"] is None else gold[key] == row["answer"]
        row["others"] = [{"assignment_id": a, "worker": names.get(w, {"id": w, "pseudonym": None, "name": str(w)}), "label": lab}
                         for a, w, lab in votes]
        row["others_majority"] = majority
        row["agrees"] = None if majority is None or row["answer"] is None else majority == row["answer"]
        adj = adjudicated.get(key)
        row["adjudicated"] = None if adj is None else {"label": adj.value, "reason": adj.reason}
    summary = summaries([assignment])[assignment.pk]
    worker = worker_names([assignment.worker_id], unit.project_id).get(assignment.worker_id)
    return {
        "assignment": {
            "id": assignment.pk, "status": assignment.status, "unit": unit.pk, "mode": unit.mode,
            "project": unit.project_id, "batch": unit.batch_id, "is_gold_unit": unit.is_gold, "worker": worker,
            "imported": bool(unit.batch_id and unit.batch.status == Batch.Status.IMPORTED),
            "created_at": assignment.created_at, "started_at": assignment.started_at,
            "submitted_at": assignment.submitted_at, "reviewed_at": assignment.reviewed_at,
            "time_on_task_ms": assignment.time_on_task_ms, "feedback": assignment.feedback,
        },
        "shown": assignment.shown or {},
        "shown_check": _shown_check(assignment.shown or {}, shown_now.as_dict()),
        "payload": data,
        "submission": assignment.submission,
        "items": items,
        "summary": summary,
    }


# -- one worker in one project ------------------------------------------------------------------------


def worker_review(project: Project, worker: Worker) -> dict[str, Any]:
    """The worker's assignments in the project, newest first, each with its summary, and the totals."""
    assignments = list(
        Assignment.objects.filter(unit__project=project, worker=worker).select_related("unit").order_by("-id")
    )
    per = summaries(assignments)
    counts = set(Assignment.objects.filter(Assignment.counted_q(), unit__project=project, worker=worker)
                 .values_list("pk", flat=True))
    rows = [{
        "id": a.pk, "unit": a.unit_id, "mode": a.unit.mode, "status": a.status, "is_gold_unit": a.unit.is_gold,
        "counted": a.pk in counts, "started_at": a.started_at, "submitted_at": a.submitted_at, **per[a.pk],
    } for a in assignments]
    counted = [r for r in rows if r["counted"]]
    gold_total = sum(r["gold_total"] for r in rows)
    compared = sum(r["compared"] for r in rows)
    times = [r["time_on_task_ms"] for r in counted if r["time_on_task_ms"]]
    totals = {
        "assignments": len(rows), "counted": len(counted),
        "gold_total": gold_total, "gold_correct": sum(r["gold_correct"] for r in rows),
        "gold_accuracy": sum(r["gold_correct"] for r in rows) / gold_total if gold_total else None,
        "compared": compared, "agreement": sum(r["agreed"] for r in rows) / compared if compared else None,
        "median_time_on_task_ms": statistics.median(times) if times else None,
        "notes": sum(r["notes"] for r in rows),
    }
    here = WorkerProjectStatus.objects.filter(worker=worker, project=project).values_list("status", flat=True).first()
    return {"project": project.pk, "worker": {**identity.describe(worker, project_id=project.pk), "status": here or Worker.Status.ACTIVE},
            "totals": totals, "assignments": rows}
