"""QA validation protocol (expert pre-step): every QA of the response, each judged valid or invalid.

Its judgments are not worker labels: they set QA.validity, and QAs marked invalid leave the crowd's units,
the analysis frames and the exports (see qasem.crowd_qas and the qa label level's items). Validity is shared
state, so judgments of work its platform has not vouched for (made-up platform ids) wait in the assignment's
stored submission and are applied only when sync verifies it (on_verified).
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import QA, Assignment, Response, Unit
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols.base import AnnotationProtocol, Errors, Key, Shown, Step, Submission, Vocabulary
from annotation_tasks.protocols.fields import check_fields, flags, require_all
from annotation_tasks.protocols.qasem.protocol import qa_items

GUIDE = """\
**QA validation.** Each question–answer pair was produced by a parser. Mark it valid if the question is
grammatical, is about the highlighted predicate, and the answer answers it as stated in the response; otherwise
invalid.
"""


LABEL_FIELDS = {"validation": ("qa_id", "valid")}

class ValidationProtocol(AnnotationProtocol):
    mode = Unit.Mode.VALIDATION.value
    title = "Expert QA validation"
    steps = (Step(Protocol.QA_VALIDATION.value, Protocol.QA_VALIDATION.label),
             # served by the dashboard's fact-validation screen (services/fact_validation.py), not by units
             Step(Protocol.FACT_VALIDATION.value, Protocol.FACT_VALIDATION.label))
    default_steps = (Protocol.QA_VALIDATION.value,)
    plan_kinds = (Protocol.QA_VALIDATION.value,)
    expert_step = True
    review_levels = (Vocabulary(name="validation", item_type="qa", labels=("invalid", "valid"),
                                display={"invalid": "Invalid", "valid": "Valid"}),)
    keys = (Key("v", "valid", "Valid"), Key("x", "invalid", "Invalid"))
    guide = GUIDE
    review = "annotation_tasks.protocols.validation.review:ValidationReview"

    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        return qa_items(response, QA.objects.filter(response=response), shown)

    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """One section per response: its QAs, each valid or invalid."""
        return [{"kind": Protocol.QA_VALIDATION.value, "response_id": r["id"]} for r in responses]

    def validate(self, submission: Submission, errors: Errors) -> dict[str, Any]:
        check_fields(submission.labels, LABEL_FIELDS, errors)
        shown_qas = set(submission.shown.get("qas", []))
        judged = flags(submission.labels, "validation", "qa_id", "valid", shown_qas, errors,
                       unknown="not a QA of this unit", twice="judged twice")
        require_all(shown_qas, judged, "labels.validation", "QA {} is not judged", errors)
        return {"validation": judged}

    def write(self, assignment: Assignment, submission: Submission, clean: dict[str, Any]) -> None:
        if assignment.verification in Assignment.Verification.trusted():
            _apply(clean["validation"])

    def on_verified(self, assignment: Assignment) -> None:
        """The held-back judgments of a submission sync has now verified (read from its stored submission, which
        validate checked at submit); nothing for work that no longer counts (rejected, returned)."""
        if assignment.status not in Assignment.Status.counted():
            return
        items = ((assignment.submission or {}).get("labels") or {}).get("validation") or []
        _apply({int(x["qa_id"]): bool(x["valid"]) for x in items if isinstance(x, dict) and "qa_id" in x})


def _apply(judged: dict[int, bool]) -> None:
    QA.objects.filter(pk__in=[q for q, ok in judged.items() if ok]).update(validity=QA.Validity.VALID)
    QA.objects.filter(pk__in=[q for q, ok in judged.items() if not ok]).update(validity=QA.Validity.INVALID)
