"""Expert QA validation: decisions by filter, corrections with provenance, and the publish gate's count.

Why it is shaped this way:
- Bulk decisions apply to a filter (every nominal QA under a confidence, every undecided QA of a batch), never
  to the page a screen happens to show: one `filter_qas` reads the filter for the list and for the bulk
  decision, so what an expert sees listed is what the decision touches.
- A correction changes the QA row (what workers are shown from then on) and writes a QAEdit with the fields
  before and after, who and when: the first edit's `before` is the original. An answer moved to other tokens
  moves the QA to the answer span of those tokens (made when none exists); a parser span left with no QA
  and no label goes. A QA workers already labeled is not corrected: their labels judged the old text.
- The publish gate (services.batches.qas_are_validated) counts undecided QAs in a batch's units here.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import Max, Q, QuerySet

from annotation_tasks.models import QA, AnswerSpan, Batch, Predicate, QAEdit, Unit, UnitResponse
from annotation_tasks.models.content import Origin
from annotation_tasks.services.decision_input import (
    Filter,
    ValidationInputError,
    apply_filters,
    as_choice,
    as_flag,
    as_fraction,
    as_int,
    held_items,
)

log = logging.getLogger(__name__)


def _choice(value: Any, choices: Any, path: str) -> str:
    return as_choice(value, [c.value for c in choices], path)


def held_qas(unit_responses: QuerySet) -> Q:
    """QAs these UnitResponse rows hold (a slice: only its own QAs)."""
    return held_items(unit_responses, "qas")


def batch_qas(batch_id: int) -> Q:
    """QAs the units of a batch hold."""
    return held_items(UnitResponse.objects.filter(unit__batch_id=batch_id), "qas")


_FILTERS: dict[str, Filter] = {
    "project": lambda qs, v, at: qs.filter(response__project_id=as_int(v, at)),
    "response": lambda qs, v, at: qs.filter(response_id=as_int(v, at)),
    "batch": lambda qs, v, at: qs.filter(batch_qas(as_int(v, at))),
    "kind": lambda qs, v, at: qs.filter(predicate__kind=_choice(v, Predicate.Kind, at)),
    "validity": lambda qs, v, at: qs.filter(validity=_choice(v, QA.Validity, at)),
    "origin": lambda qs, v, at: qs.filter(origin=_choice(v, Origin, at)),
    # QAs without a confidence (imported, human) are never "under" one
    "confidence_lt": lambda qs, v, at: qs.filter(confidence__lt=as_fraction(v, at)),
    "confidence_gte": lambda qs, v, at: qs.filter(confidence__gte=as_fraction(v, at)),
    "edited": lambda qs, v, at: qs.filter(edited=as_flag(v, at)),
}
FILTER_KEYS = tuple(_FILTERS)


def filter_qas(queryset: QuerySet, spec: Mapping[str, Any], path: str = "filter") -> QuerySet:
    """QAs matching `spec` ({key: value} over FILTER_KEYS; values as JSON or query strings)."""
    return apply_filters(queryset, spec, _FILTERS, path)


@transaction.atomic
def bulk_validate(queryset: QuerySet, spec: Mapping[str, Any], validity: str, user: Any = None) -> int:
    """Set `validity` on every QA of `queryset` matching `spec`; the filter must name a project or a batch."""
    if not isinstance(spec, Mapping) or not (spec.get("project") or spec.get("batch")):
        raise ValidationInputError("filter", "name a project or a batch: a decision never spans every project")
    validity = _choice(validity, QA.Validity, "validity")
    updated = filter_qas(queryset, spec).update(validity=validity)
    log.info("bulk validation by %s: %d QAs set %s (filter %s)", getattr(user, "username", "?"), updated, validity,
             dict(spec))
    return updated


def _snapshot(qa: QA) -> dict[str, Any]:
    return {"question": qa.question, "answer": qa.answer, "answer_start": qa.answer_start, "answer_end": qa.answer_end}


def _token_text(qa: QA, start: int, end: int) -> str:
    tokens = qa.response.tokens or []
    rows = [t for t in tokens[start:end]]
    if rows and all(isinstance(t, list | tuple) and len(t) >= 3 for t in rows):
        return qa.response.text[rows[0][1] : rows[-1][2]]
    return " ".join(str(t[0] if isinstance(t, list | tuple) else t) for t in rows)


@transaction.atomic
def correct_qa(qa: QA, changes: Mapping[str, Any], user: Any = None) -> QA:
    """Correct a QA's question and/or answer span (token indices [start, end)); see the module docstring."""
    if not isinstance(changes, Mapping):
        raise ValidationInputError("body", "must be an object")
    unknown = sorted(set(changes) - {"question", "answer_start", "answer_end", "reason", "validity"})
    if unknown:
        raise ValidationInputError(unknown[0], "cannot be corrected (question, answer_start, answer_end)")
    qa = QA.objects.select_for_update().select_related("response").get(pk=qa.pk)
    if qa.labels.exists():
        raise ValidationInputError("qa", "workers have labeled this QA: their labels judged its current text")
    before = _snapshot(qa)
    if "question" in changes:
        question = changes["question"]
        if not isinstance(question, str) or not question.strip():
            raise ValidationInputError("question", "must be a non-empty text")
        if len(question.strip()) > 500:
            raise ValidationInputError("question", "at most 500 characters")
        qa.question = " ".join(question.split())
    start = as_int(changes.get("answer_start", qa.answer_start), "answer_start")
    end = as_int(changes.get("answer_end", qa.answer_end), "answer_end")
    n_tokens = len(qa.response.tokens or [])
    if not 0 <= start < end <= n_tokens:
        raise ValidationInputError("answer_end" if start >= 0 and end <= start else "answer_start",
                                   f"the answer must be a token span 0 <= start < end <= {n_tokens}")
    reason = changes.get("reason", "")
    if not isinstance(reason, str):
        raise ValidationInputError("reason", "must be text")
    moved = (start, end) != (qa.answer_start, qa.answer_end)
    if moved:
        qa.answer_start, qa.answer_end = start, end
        qa.answer = _token_text(qa, start, end)[:1000]
    after = _snapshot(qa)
    if after == before:
        raise ValidationInputError("body", "nothing changes")
    qa.edited = True
    qa.validity = _choice(changes.get("validity", QA.Validity.VALID), QA.Validity, "validity")
    qa.save(update_fields=["question", "answer", "answer_start", "answer_end", "edited", "validity"])
    if moved:
        _move_to_span(qa)
    QAEdit.objects.create(qa=qa, editor=user if getattr(user, "pk", None) else None, before=before, after=after,
                          reason=reason[:500])
    return qa


def _move_to_span(qa: QA) -> None:
    old = list(qa.answer_spans.all())
    qa.answer_spans.clear()
    span = AnswerSpan.objects.filter(response=qa.response, start=qa.answer_start, end=qa.answer_end).first()
    if span is None:
        order = (AnswerSpan.objects.filter(response=qa.response).aggregate(m=Max("order"))["m"] or 0) + 1
        span = AnswerSpan.objects.create(response=qa.response, start=qa.answer_start, end=qa.answer_end,
                                         text=qa.answer, origin=Origin.HUMAN, order=order)
    span.qas.add(qa)
    for s in old:
        if s.pk != span.pk and s.origin == Origin.PARSER and not s.qas.exists() and not s.labels.exists():
            s.delete()


def undecided_in_units(units: QuerySet) -> QuerySet:
    """QAs still undecided (validity unknown) that these units hold."""
    return QA.objects.filter(held_qas(UnitResponse.objects.filter(unit__in=units)), validity=QA.Validity.UNKNOWN)


def _undecided_facts(batch: Batch) -> int:
    """Undecided model facts the override lets through (the fact_validation step's gate), 0 without the step."""
    from annotation_tasks.services.fact_validation import undecided_in_batch

    return undecided_in_batch(batch) if batch.project.has_step("fact_validation") else 0


def override_validation(batch: Batch, reason: str, user: Any = None) -> dict[str, Any]:
    """Let `batch` publish units that hold undecided QAs: the reason, who, when and the count are kept in
    batch.settings["validation_override"] and logged."""
    from django.utils import timezone

    if not isinstance(reason, str) or len(reason.strip()) < 5:
        raise ValidationInputError("override_validation_reason", "give a reason (at least 5 characters)")
    pending = batch.units.filter(provider_ref="").exclude(mode=Unit.Mode.VALIDATION)
    record = {
        "reason": reason.strip()[:1000],
        "by": getattr(user, "username", "") or "",
        "at": timezone.now().isoformat(),
        "undecided": undecided_in_units(pending).count(),
        "undecided_facts": _undecided_facts(batch),
    }
    history = list((batch.settings or {}).get("validation_overrides", []))
    batch.settings = {**(batch.settings or {}), "validation_override": record,
                      "validation_overrides": [*history, record]}
    batch.save(update_fields=["settings"])
    log.warning("batch %s published with %d undecided QAs by %s: %s", batch.pk, record["undecided"], record["by"],
                record["reason"])
    return record
