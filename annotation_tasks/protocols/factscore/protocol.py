"""FActScore protocol: label each atomic fact of each sentence S / NS / IR, and fix the decomposition.

The worker sees the model's facts (never human facts written in other assignments) and sends the final fact
list: unchanged model facts by id, and edited, split, merged or added facts as new human facts linked to the
model facts they came from. A model fact neither kept nor edited was deleted (a wrong decomposition).
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, AtomicFact, FactLabel, Response, Unit
from annotation_tasks.models.content import Origin
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols.base import AnnotationProtocol, Errors, Export, Key, LabelLevel, Shown, Step, Submission
from annotation_tasks.protocols.factscore.evidence import fact_evidence
from annotation_tasks.protocols.fields import as_list, check_fields, item_id, text_error

FACT_VALUES = {v.value for v in FactLabel.Value}
HUMAN_ORDER = 1000  # human facts sort after the model's within a sentence


def _new_fact(item: dict, path: str, shown_facts: set, fact_response: dict, sentence_counts: dict,
              errors: Errors) -> dict | None:
    """A new human fact's clean record, or None after adding what is wrong with it."""
    text, rid, sidx = item.get("text"), item_id(item, "response_id"), item.get("sentence_index")
    edited_from = item.get("edited_from") or []
    if not isinstance(text, str) or not text.strip():
        errors.add(f"{path}.text", "a new fact needs its text")
    elif (fact_error := text_error(text)) is not None:
        errors.add(f"{path}.text", fact_error)
    elif rid not in sentence_counts:
        errors.add(f"{path}.response_id", "not a response of this unit")
    elif not isinstance(sidx, int) or isinstance(sidx, bool) or not 0 <= sidx < max(sentence_counts[rid], 1):
        errors.add(f"{path}.sentence_index", "not a sentence of that response")
    elif not isinstance(edited_from, list) or any(
        isinstance(f, list | dict | bool | float) or f not in shown_facts or fact_response.get(f) != rid for f in edited_from
    ):
        errors.add(f"{path}.edited_from", "must list facts of the same response shown in this unit")
    else:
        return {"text": text.strip(), "response_id": rid, "sentence_index": sidx,
                "edited_from": list(dict.fromkeys(edited_from)), "label": item["label"]}
    return None


GUIDE = """\
**Atomic facts.** Each sentence of the response is broken into short facts. Label each fact Supported (the
reference states it), Not supported (it contradicts or is absent from the reference) or Irrelevant (not a claim
about the topic, e.g. “I hope this helps”). Fix bad facts first: edit, split (two claims in one), merge (one claim
in two), add (a claim was missed) or delete.
"""


LABEL_FIELDS = {"facts": ("fact_id", "label", "text", "sentence_index", "response_id", "edited_from")}

class FactScoreProtocol(AnnotationProtocol):
    mode = Unit.Mode.FACTSCORE.value
    title = "FActScore: atomic-fact labeling"
    steps = (Step(Protocol.FACT_LABELING.value, Protocol.FACT_LABELING.label),)
    plan_kinds = (Protocol.FACT_LABELING.value,)
    label_levels = (
        LabelLevel(
            name="fact", item_type="fact", labels=("NS", "IR", "S"),
            display={"NS": "Not supported", "IR": "Irrelevant", "S": "Supported"},
            model=FactLabel, item_field="fact_id", value_field="label",
            items=lambda project: AtomicFact.objects.filter(response__project=project).exclude(
                validation__in=AtomicFact.Validation.hidden()),
        ),
    )
    keys = (
        Key("s", "S", "Supported"), Key("n", "NS", "Not supported"), Key("i", "IR", "Irrelevant"),
        Key("e", "edit", "Edit the fact"), Key("p", "split", "Split"), Key("m", "merge", "Merge with next"),
        Key("a", "add", "Add a fact"), Key("d", "delete", "Delete the fact"),
    )
    guide = GUIDE
    exports = (Export("factscore", "FActScore", "One line per response: sentences with their atomic facts and labels."),)
    review = "annotation_tasks.protocols.factscore.review:FactScoreReview"

    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        facts = list(
            # only the model's facts: imported expert (human) facts are the reference (origin "imported", kind
            # "human": excluded by kind), and human facts written in other assignments are other workers' answers
            AtomicFact.objects.filter(response=response, created_by_assignment__isnull=True, kind="model")
            .exclude(origin=Origin.HUMAN)
            .exclude(validation__in=AtomicFact.Validation.hidden())  # fixed, split or dropped by the expert
            .order_by("sentence_index", "order", "id")
            .values("id", "sentence_index", "text")
        )
        shown.facts.extend(f["id"] for f in facts)
        with_passages, knowledge = fact_evidence(facts, shown)  # knowledge passages per fact, when a source is imported
        return {"facts": with_passages, "knowledge": knowledge}

    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """One fact-labeling section per response (its facts sentence by sentence)."""
        return [{"kind": Protocol.FACT_LABELING.value, "response_id": r["id"]} for r in responses]

    def validate(self, submission: Submission, errors: Errors) -> dict[str, Any]:
        check_fields(submission.labels, LABEL_FIELDS, errors)
        shown_facts = set(submission.shown.get("facts", []))
        fact_response = dict(AtomicFact.objects.filter(pk__in=shown_facts).values_list("id", "response_id"))
        sentence_counts = {r.pk: len(r.sentences or []) for r in submission.responses}
        kept: dict[int, str] = {}
        new: list[dict] = []
        for i, item in enumerate(as_list(submission.labels, "facts", errors)):
            path = f"labels.facts[{i}]"
            if not isinstance(item, dict):
                errors.add(path, "must be an object")
            elif item_id(item, "label") not in FACT_VALUES:
                errors.add(f"{path}.label", "must be S, NS or IR")
            elif item.get("fact_id") is not None:
                fid = item_id(item, "fact_id")
                if fid not in shown_facts:
                    errors.add(f"{path}.fact_id", "not a fact of this unit")
                elif fid in kept:
                    errors.add(f"{path}.fact_id", "labeled twice")
                else:
                    kept[fid] = item["label"]
            else:
                fact = _new_fact(item, path, shown_facts, fact_response, sentence_counts, errors)
                if fact is not None:
                    new.append(fact)
        if not kept and not new and shown_facts:
            errors.add("labels.facts", "the fact list is empty")
        replaced = {f for fact in new for f in fact["edited_from"]}
        return {"kept": kept, "new": new, "deleted": sorted(shown_facts - set(kept) - replaced)}

    def write(self, assignment: Assignment, submission: Submission, clean: dict[str, Any]) -> None:
        labels = [FactLabel(assignment=assignment, fact_id=fid, label=lab) for fid, lab in clean["kept"].items()]
        for order, item in enumerate(clean["new"]):
            fact = AtomicFact.objects.create(
                response_id=item["response_id"], sentence_index=item["sentence_index"], text=item["text"],
                origin=Origin.HUMAN, kind="human", created_by_assignment=assignment, order=HUMAN_ORDER + order,
            )
            if item["edited_from"]:
                fact.edited_from.set(item["edited_from"])
            labels.append(FactLabel(assignment=assignment, fact=fact, label=item["label"]))
        FactLabel.objects.bulk_create(labels)
