"""Fact entailment: per atomic fact of each response, is it supported by the source, contradicted by it, or is
there not enough information in it? The worker may say why (a rationale per fact).

The worker sees the model's facts of each response (as FActScore's: never human facts written in other
assignments, never imported expert facts), sentence by sentence, and labels every one; nothing is edited.
Submission: labels.entailment = [{"fact_id", "label": supported | contradicted | not_enough_info,
"rationale"?: text}], each shown fact exactly once. Labels are EntailmentLabel rows, read into the labels frame
as the level "entailment" over facts (item type "fact").
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, AtomicFact, Response, Unit
from annotation_tasks.models.content import Origin
from annotation_tasks.models.labels import EntailmentLabel
from annotation_tasks.protocols.base import AnnotationProtocol, Errors, Key, LabelLevel, Shown, Step, Submission
from annotation_tasks.protocols.fields import as_list, item_id, require_all, text_error

STEP = "fact_entailment"
"""The project step and the plan kind (one section per response with facts)."""
LABELS = tuple(v.value for v in EntailmentLabel.Value)
MAX_RATIONALE = 2000

GUIDE = """\
**Fact entailment.** Each sentence of the response is broken into short facts. Read the source and label each
fact: **Supported** (the source states it or clearly implies it), **Contradicted** (the source says otherwise) or
**Not enough info** (the source does not say either way). Add a short rationale when the call is not obvious:
quote or point to the part of the source you relied on.
"""


def _facts(response_id: int) -> list[dict[str, Any]]:
    return [dict(row) for row in
        AtomicFact.objects.filter(response_id=response_id, created_by_assignment__isnull=True)
        .exclude(origin=Origin.HUMAN)
        .exclude(validation__in=AtomicFact.Validation.hidden())  # fixed, split or dropped by the expert
        .order_by("sentence_index", "order", "id")
        .values("id", "sentence_index", "text")
    ]


class EntailmentProtocol(AnnotationProtocol):
    mode = Unit.Mode.ENTAILMENT.value
    title = "Fact entailment: supported / contradicted / not enough info"
    steps = (Step(STEP, "Fact entailment (supported / contradicted / not enough info, with a rationale)"),)
    plan_kinds = (STEP,)
    label_levels = (
        LabelLevel(
            name="entailment", item_type="fact", labels=("contradicted", "not_enough_info", "supported"),
            display={"contradicted": "Contradicted", "not_enough_info": "Not enough info", "supported": "Supported"},
            model=EntailmentLabel, item_field="fact_id", value_field="label",
            items=lambda project: AtomicFact.objects.filter(response__project=project),
            extra_fields=("rationale",),
        ),
    )
    keys = (
        Key("s", "supported", "Supported"), Key("c", "contradicted", "Contradicted"),
        Key("n", "not_enough_info", "Not enough info"), Key("r", "rationale", "Write a rationale"),
    )
    guide = GUIDE
    review = "annotation_tasks.protocols.entailment.review:EntailmentReview"

    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        facts = _facts(response.pk)
        shown.facts.extend(f["id"] for f in facts)
        return {"facts": facts}

    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """One section per response that has facts to judge."""
        return [{"kind": STEP, "response_id": r["id"]} for r in responses if r.get("facts")]

    def validate(self, submission: Submission, errors: Errors) -> dict[int, dict[str, str]]:
        shown = set(submission.shown.get("facts", []))
        if not shown:
            errors.add("labels.entailment", "this unit has no facts to judge")
            return {}
        judged: dict[int, dict[str, str]] = {}
        for i, item in enumerate(as_list(submission.labels, "entailment", errors)):
            path = f"labels.entailment[{i}]"
            fid = item_id(item, "fact_id")
            rationale = item.get("rationale", "") if isinstance(item, dict) else ""
            if not isinstance(item, dict):
                errors.add(path, "must be an object")
            elif fid not in shown:
                errors.add(f"{path}.fact_id", "not a fact of this unit")
            elif fid in judged:
                errors.add(f"{path}.fact_id", "labeled twice")
            elif item_id(item, "label") not in LABELS:
                errors.add(f"{path}.label", f"must be one of {', '.join(LABELS)}")
            elif rationale is not None and (problem := text_error(rationale)) is not None:
                errors.add(f"{path}.rationale", problem)
            elif rationale is not None and len(rationale) > MAX_RATIONALE:
                errors.add(f"{path}.rationale", f"at most {MAX_RATIONALE} characters")
            else:
                judged[fid] = {"label": item["label"], "rationale": (rationale or "").strip()}
        require_all(shown, judged, "labels.entailment", "fact {} is not labeled", errors)
        return judged

    def write(self, assignment: Assignment, submission: Submission, clean: dict[int, dict[str, str]]) -> None:
        EntailmentLabel.objects.bulk_create([
            EntailmentLabel(assignment=assignment, fact_id=fid, label=v["label"], rationale=v["rationale"])
            for fid, v in clean.items()
        ])
