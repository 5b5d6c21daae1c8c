"""Training and qualification (Roit et al. 2020's controlled crowdsourcing): a new worker's first units in a project
are its training units; after each one they see, per item, whether they matched the expert and why; once they have
done every training unit open to them, the share of items they matched against the project's pass mark admits them
to main units or not (recorded in their project standing and the decision log).

The expert's label and explanation of a training item are its GoldLabel (value, explanation), so training items
also count as gold in the worker metrics. A training unit is served to every new worker, whatever its
`assignments_wanted` (it is a lesson, not a vote to collect); main-unit queues never serve it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    GoldLabel,
    Project,
    QualityDecision,
    Unit,
    Worker,
    WorkerProjectStatus,
)
from annotation_tasks.protocols import label_levels
from annotation_tasks.services.decision_input import ValidationInputError, as_int

KEY = "training"  # WorkerProjectStatus.qualifications key of the worker's training result in the project
TARGETS: dict[str, type] = {"span": AnswerSpan, "qa": QA, "fact": AtomicFact}
_A = Assignment.Status


class TrainingError(ValueError):
    """Bad input to mark training units (a located message for a 400)."""

    def __init__(self, message: str, field_name: str = "") -> None:
        super().__init__(message)
        self.field = field_name


def allowed_values(target: str) -> tuple[str, ...]:
    """The labels an expert may give an item of `target` (the level's vocabulary, as GoldLabel stores it)."""
    for level in label_levels():
        if level.name == target:
            if level.names is not None:
                return level.names
            return tuple(str(value) for value, _ in level.model._meta.get_field(level.value_field).choices or ())
    return ()


# -- marking ----------------------------------------------------------------------------------------------------------
def mark(project: Project, unit_ids: list[int], *, training: bool = True, labels: list[dict] | None = None,
         pass_mark: float | None = None) -> dict[str, int]:
    """Mark units of `project` as training (or not), store expert labels {target, id, value, explanation} of their
    items as GoldLabels, and set the project's pass mark. All or nothing; TrainingError names the bad field."""
    try:
        ids = {as_int(u, "units") for u in unit_ids}
    except ValidationInputError:
        raise TrainingError("must be a list of unit ids", "units") from None
    found = set(Unit.objects.filter(project=project, pk__in=ids).values_list("pk", flat=True))
    if ids - found:
        raise TrainingError(f"units not in this project: {sorted(ids - found)[:10]}", "units")
    if pass_mark is not None and not (0.0 <= float(pass_mark) <= 1.0):
        raise TrainingError("pass_mark must be between 0 and 1", "pass_mark")
    clean = [_clean_label(project, i, row) for i, row in enumerate(labels or [])]
    with transaction.atomic():
        marked = Unit.objects.filter(pk__in=ids).update(is_training=training)
        for target, item, value, explanation in clean:
            GoldLabel.objects.update_or_create(**{target: item}, defaults={"value": value, "explanation": explanation})
        if pass_mark is not None:
            Project.objects.filter(pk=project.pk).update(training_pass_mark=float(pass_mark))
    return {"units": marked, "labels": len(clean)}


def _clean_label(project: Project, index: int, row: Any) -> tuple[str, Any, str, str]:
    where = f"labels[{index}]"
    if not isinstance(row, dict):
        raise TrainingError("must be an object {target, id, value, explanation}", where)
    target = row.get("target")
    if target not in TARGETS:
        raise TrainingError(f"target must be one of {sorted(TARGETS)}", f"{where}.target")
    try:
        item_id = as_int(row.get("id"), f"{where}.id")
    except ValidationInputError:
        raise TrainingError("must be an item id", f"{where}.id") from None
    item = TARGETS[target].objects.filter(pk=item_id, response__project=project).first()
    if item is None:
        raise TrainingError(f"no {target} {item_id} in this project", f"{where}.id")
    value = str(row.get("value", ""))
    allowed = allowed_values(target)
    if value not in allowed:
        raise TrainingError(f"must be one of {list(allowed)}", f"{where}.value")
    explanation = row.get("explanation", "")
    if not isinstance(explanation, str) or len(explanation) > 2000 or "\x00" in explanation:
        raise TrainingError("must be text of at most 2000 characters", f"{where}.explanation")
    return target, item, value, explanation


# -- feedback ---------------------------------------------------------------------------------------------------------
def _item_text(target: str, item: Any) -> str:
    if target == "qa":
        return f"{item.question} — {item.answer}"
    return str(item.text)


def item_feedback(assignment: Assignment, *, against: dict[tuple[str, int], tuple[str, str]] | None = None
                  ) -> list[dict[str, Any]]:
    """Per item of the assignment with an expert label: what the worker said, the expert's label, whether they
    match, and the explanation. `against` replaces the expert labels ((target, item id) -> (label, explanation)),
    e.g. by adjudicated ones."""
    rows: list[dict[str, Any]] = []
    for level in label_levels():
        if level.name not in TARGETS:
            continue
        given = dict(level.model._default_manager.filter(assignment=assignment)
                     .values_list(level.item_field, level.value_field))
        if not given:
            continue
        if against is None:
            expert = {getattr(g, f"{level.name}_id"): (g.value, g.explanation) for g in
                      GoldLabel.objects.filter(**{f"{level.name}_id__in": list(given)})}
        else:
            expert = {i: v for (t, i), v in against.items() if t == level.name and i in given}
        items = TARGETS[level.name].objects.in_bulk(list(expert))
        for item_id in sorted(expert):
            label = level.label_of(given[item_id])
            value, explanation = expert[item_id]
            rows.append({"target": level.name, "item_id": item_id, "text": _item_text(level.name, items[item_id]),
                         "label": label, "expert": value, "matched": label == value, "explanation": explanation})
    return rows


# -- the gate -----------------------------------------------------------------------------------------------------------
@dataclass
class Gate:
    """Where a worker stands with training in one scope of units: a training unit to do next, or done with it."""

    unit: Unit | None = None
    passed: bool | None = None  # None: the scope has no training (main units as before)
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.passed is False


def result_of(worker: Worker, project_id: int) -> dict[str, Any] | None:
    quals = WorkerProjectStatus.objects.filter(worker=worker, project_id=project_id).values_list(
        "qualifications", flat=True).first()
    return (quals or {}).get(KEY)


def gate(worker: Worker, project: Project, scope: QuerySet[Unit]) -> Gate:
    """The worker's next training unit in `scope` (units of the project the worker may get), else their result
    (evaluated and recorded once every training unit open to them is done)."""
    recorded = result_of(worker, project.pk)
    if recorded is not None:
        return Gate(passed=bool(recorded.get("passed")), result=recorded)
    if not scope.filter(is_training=True).exists():  # no lessons here: main units as before (one query a turn)
        return Gate()
    # a lesson that expired or was returned is offered again; one done (or held) is not
    had = Assignment.objects.filter(worker=worker, status__in=[*_A.done(), _A.ASSIGNED]).values("unit_id")
    mine = Assignment.objects.filter(worker=worker, unit__project_id=project.pk, unit__is_training=True)
    held = mine.filter(status=_A.ASSIGNED).select_related("unit").first()
    if held is not None:
        return Gate(unit=held.unit)
    todo = (scope.filter(is_training=True).exclude(status=Unit.Status.CLOSED).exclude(pk__in=had)
            .order_by("id").first())
    if todo is not None:
        return Gate(unit=todo)
    done = list(mine.filter(status__in=_A.done()))
    if not done:
        return Gate()
    return Gate(passed=bool(record(worker, project, done)["passed"]), result=result_of(worker, project.pk) or {})


def record(worker: Worker, project: Project, done: list[Assignment]) -> dict[str, Any]:
    """Score the worker's training, record it in their project standing and the decision log; a worker who failed
    has their training assignments approved (paid) and gets no main units."""
    items = [row for a in done for row in item_feedback(a)]
    matched = sum(1 for row in items if row["matched"])
    share = matched / len(items) if items else 1.0
    pass_mark = float(Project.objects.filter(pk=project.pk).values_list("training_pass_mark", flat=True)[0])
    result = {"passed": share >= pass_mark, "matched": matched, "items": len(items), "share": round(share, 4),
              "pass_mark": pass_mark, "at": timezone.now().isoformat()}
    with transaction.atomic():
        status, _ = WorkerProjectStatus.objects.select_for_update().get_or_create(worker=worker, project=project)
        if KEY in (status.qualifications or {}):
            return status.qualifications[KEY]
        status.qualifications = {**(status.qualifications or {}), KEY: result}
        status.save(update_fields=["qualifications", "updated_at"])
        verdict = "passed" if result["passed"] else "did not pass"
        QualityDecision.objects.create(
            worker=worker, project=project, action=QualityDecision.Action.TRAINING, status=QualityDecision.Status.DONE,
            reason=f"training {verdict}: {matched}/{len(items)} items matched the expert (pass mark {pass_mark:.0%})",
            metrics=result)
        if not result["passed"]:
            Assignment.objects.filter(pk__in=[a.pk for a in done], status=_A.SUBMITTED).update(status=_A.APPROVED)
    if result["passed"]:
        _allow_list(worker, project)
    return result


def qualification_name(project: Project) -> str:
    """The platform qualification of workers who passed the project's training (on Prolific an allow-list
    participant group, factcrowd-qual-<this>, usable as a filter of later studies)."""
    return f"trained-project-{project.pk}"


def _allow_list(worker: Worker, project: Project) -> None:
    """Add a worker who passed to the platform's allow-list; a platform that fails is logged, not fatal (the
    qualification in FactCrowd stands, and a researcher can grant it again from the workers page)."""
    from annotation_tasks.crowd import ProviderError, get_provider

    try:
        provider = get_provider(worker.provider)
        provider.grant_qualification(worker, qualification_name(project))
    except (ProviderError, ValueError) as exc:
        QualityDecision.objects.create(
            worker=worker, project=project, action=QualityDecision.Action.GRANT_QUALIFICATION,
            status=QualityDecision.Status.FAILED, reason=f"allow-list {qualification_name(project)}: {exc}"[:500])


def latest_feedback(worker: Worker, assignments: QuerySet[Assignment], seen: str | None) -> dict[str, Any] | None:
    """The feedback page for the worker's latest done assignment among `assignments`, when it is a training unit's
    and the page has not been shown (`seen`: the assignment id the worker clicked on from it)."""
    last = assignments.filter(worker=worker, status__in=_A.done()).order_by("-submitted_at", "-id").select_related(
        "unit").first()
    if last is None or not last.unit.is_training or (seen or "") == str(last.pk):
        return None
    items = item_feedback(last)
    return {"assignment": last.pk, "items": items, "matched": sum(1 for r in items if r["matched"]),
            "total": len(items), "result": result_of(worker, last.unit.project_id)}
