"""Ongoing personal feedback (issue 24 item 6): where a worker's labels differ from the reference (the adjudicated
label where an expert decided the item, else the expert's gold label), a message to the worker listing those items,
delivered through their provider and recorded in the decision log; and each worker's accuracy against gold and
adjudicated labels per block of units (their learning curve).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import QuerySet

from annotation_tasks.crowd import CrowdProvider, ProviderError, get_provider
from annotation_tasks.models import (
    QA,
    AdjudicatedLabel,
    AnswerSpan,
    Assignment,
    AtomicFact,
    GoldLabel,
    Project,
    QualityDecision,
    Worker,
)
from annotation_tasks.protocols import label_levels

TARGETS: dict[str, type] = {"span": AnswerSpan, "qa": QA, "fact": AtomicFact}
MAX_TEXT = 2000
MAX_ITEMS_LISTED = 50
DEFAULT_BLOCK = 10


class FeedbackError(ValueError):
    """Bad input or a provider that refused the message (a located 400)."""


def _item_text(target: str, item: Any) -> str:
    return f"{item.question} — {item.answer}" if target == "qa" else str(item.text)


def compared_labels(worker: Worker, project: Project, assignments: QuerySet[Assignment]) -> list[dict[str, Any]]:
    """Every label of the worker in `assignments` whose item has a reference label: assignment, target, item, the
    worker's label, gold (expert) and adjudicated values, in the assignments' order of submission."""
    rows: list[dict[str, Any]] = []
    ids = list(assignments.filter(worker=worker, unit__project=project).values_list("pk", flat=True))
    if not ids:
        return rows
    for level in label_levels():
        target = level.item_field.removesuffix("_id")
        if target not in TARGETS:
            continue
        given = list(level.model._default_manager.filter(assignment_id__in=ids)
                     .values_list("assignment_id", level.item_field, level.value_field))
        items = {item for _, item, _ in given}
        gold = ({getattr(g, f"{target}_id"): g.value for g in GoldLabel.objects.filter(**{f"{target}_id__in": items})}
                if level.name == target else {})
        adjudicated = {getattr(a, f"{target}_id"): (a.value, a.reason) for a in AdjudicatedLabel.objects.filter(
            project=project, level=level.name, **{f"{target}_id__in": items})}
        for assignment_id, item, value in given:
            if item in gold or item in adjudicated:
                rows.append({"assignment": assignment_id, "level": level.name, "target": target, "item_id": item,
                             "label": str(level.label_of(value)), "gold": gold.get(item),
                             "adjudicated": adjudicated.get(item, (None, ""))[0],
                             "reason": adjudicated.get(item, (None, ""))[1]})
    return rows


def differences(worker: Worker, project: Project, assignments: QuerySet[Assignment]) -> list[dict[str, Any]]:
    """The items where the worker's label differs from the reference (adjudicated, else expert), with the text."""
    out = []
    for row in compared_labels(worker, project, assignments):
        reference, source = ((row["adjudicated"], "adjudicated") if row["adjudicated"] is not None
                             else (row["gold"], "expert"))
        if row["label"] != reference:
            out.append({**row, "expert": reference, "source": source})
    texts: dict[str, dict[int, Any]] = {t: TARGETS[t].objects.in_bulk([r["item_id"] for r in out if r["target"] == t])
                                        for t in {r["target"] for r in out}}
    for row in out:
        row["text"] = _item_text(row["target"], texts[row["target"]][row["item_id"]])[:300]
    return out


def _body(text: str, items: list[dict[str, Any]]) -> str:
    lines = [text]
    if items:
        lines.append("")
        lines.append("Items where your answer differed:")
        lines += [f"- {r['text']}: you said {r['label']}, the {r['source']} label is {r['expert']}"
                  for r in items[:MAX_ITEMS_LISTED]]
    return "\n".join(lines)


def send(worker: Worker, project: Project, text: str, *, assignment: Assignment | None = None,
         provider: CrowdProvider | None = None) -> QualityDecision:
    """Send `text` with the items where the worker differed (in `assignment`, else in all their work in the
    project) through the worker's provider; the local provider's workers read it on their queue page. Logged as a
    'message' decision (failed, with the platform's answer, when the platform refused it)."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT or "\x00" in text:
        raise FeedbackError(f"text: give the message, at most {MAX_TEXT} characters")
    scope = Assignment.objects.filter(status__in=Assignment.Status.counted())
    scope = scope.filter(pk=assignment.pk) if assignment is not None else scope
    items = differences(worker, project, scope)
    body = _body(text.strip(), items)
    decision = QualityDecision.objects.create(
        worker=worker, project=project, assignment=assignment, action=QualityDecision.Action.MESSAGE,
        reason=text.strip()[:500], status=QualityDecision.Status.PENDING,
        metrics={"text": text.strip(), "items": items[:MAX_ITEMS_LISTED], "differed": len(items)})
    study = _study_of(worker, project, assignment)
    try:
        provider = provider or get_provider(worker.provider)
        delivered = provider.send_message(worker, f"Feedback on {project.name}", body, study_id=study)
    except (ProviderError, ValueError) as exc:  # ValueError: a provider this installation does not know
        decision.status = QualityDecision.Status.FAILED
        decision.metrics = {**decision.metrics, "error": str(exc)}
        decision.save(update_fields=["status", "metrics"])
        raise FeedbackError(f"the platform refused the message: {exc}") from exc
    decision.status = QualityDecision.Status.DONE
    decision.metrics = {**decision.metrics, "delivered_by": provider.name if delivered else "queue page"}
    decision.save(update_fields=["status", "metrics"])
    return decision


def _study_of(worker: Worker, project: Project, assignment: Assignment | None) -> str:
    """The platform study the message is about (Prolific requires one): the assignment's, else the worker's latest."""
    latest = assignment or Assignment.objects.filter(worker=worker, unit__project=project).order_by("-id").first()
    if latest is None:
        return ""
    unit = latest.unit
    return (unit.batch.provider_ref if unit.batch_id and unit.batch.provider_ref else unit.provider_ref) or ""


def learning_curve(worker: Worker, project: Project, block: int = DEFAULT_BLOCK) -> list[dict[str, Any]]:
    """The worker's accuracy against gold and against adjudicated labels per block of `block` units, in the order
    they submitted them: who is learning."""
    block = max(1, int(block))
    order = list(Assignment.objects.filter(worker=worker, unit__project=project,
                                           status__in=Assignment.Status.counted())
                 .order_by("submitted_at", "id").values_list("pk", flat=True))
    position = {pk: i // block for i, pk in enumerate(order)}
    tally: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in compared_labels(worker, project, Assignment.objects.filter(pk__in=order)):
        t = tally[position[row["assignment"]]]
        for kind in ("gold", "adjudicated"):
            if row[kind] is not None:
                t[f"{kind}_total"] += 1
                t[f"{kind}_correct"] += int(row["label"] == row[kind])
    curve = []
    for b in range((len(order) + block - 1) // block):
        t = tally[b]
        point: dict[str, Any] = {"block": b + 1, "units": min(block, len(order) - b * block),
                                 "first_unit": b * block + 1}
        for kind in ("gold", "adjudicated"):
            total, correct = t[f"{kind}_total"], t[f"{kind}_correct"]
            point.update({f"{kind}_total": total, f"{kind}_correct": correct,
                          f"{kind}_accuracy": correct / total if total else None})
        curve.append(point)
    return curve


def attention_checks(project: Project, worker_ids: list[int] | None = None) -> dict[int, dict[str, Any]]:
    """Per worker: their labels on gold items of main units (attention checks; training units left out, they are
    lessons) against the gold, and what the quality policy's thresholds say of that accuracy (ok / warn /
    soft_block, or too_few before min_gold_items). One query per level, over gold-labelled items only."""
    from annotation_tasks.services.quality.policy import policy_for

    tally: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for level in label_levels():
        target = level.item_field.removesuffix("_id")
        if level.name != target or target not in TARGETS:
            continue
        rows = (level.counted_labels(project).filter(assignment__unit__is_training=False,
                                                     **{f"{target}__gold__isnull": False}))
        if worker_ids is not None:
            rows = rows.filter(assignment__worker_id__in=worker_ids)
        for worker_id, value, gold in rows.values_list("assignment__worker_id", level.value_field,
                                                       f"{target}__gold__value"):
            tally[worker_id][0] += 1
            tally[worker_id][1] += int(str(level.label_of(value)) == gold)
    policy = policy_for(project)
    out = {}
    for worker_id, (total, correct) in tally.items():
        accuracy = correct / total if total else None
        if total < int(policy["min_gold_items"]) or accuracy is None:
            verdict = "too_few"
        elif accuracy < float(policy["soft_block_accuracy"]):
            verdict = "soft_block"
        elif accuracy < float(policy["warn_accuracy"]):
            verdict = "warn"
        else:
            verdict = "ok"
        out[worker_id] = {"gold_total": total, "gold_correct": correct, "gold_accuracy": accuracy, "verdict": verdict}
    return out
