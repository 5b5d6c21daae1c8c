"""Expert fact validation (the fact_validation step): keep, fix, split or drop each model fact before workers see it.

Why it is shaped this way:
- Splitters make bad facts (about a quarter on unseen biographies: "Kick was a hit comedy film."); a fact
  project with the step gets the QA projects' pre-step: an expert decides each model fact, one key each, and
  the publish gate (services.batches.facts_are_validated) refuses units that hold undecided facts unless a
  researcher overrides it with a reason (the same override as QAs: services.validation.override_validation).
- The original fact is never edited: a fix writes one new fact, a split two or more, each WRITTEN with
  `edited_from` naming the original (who and when on both); the original keeps its text and says FIXED / SPLIT.
  Workers see the written facts in its place (protocols hide AtomicFact.Validation.hidden()); a dropped fact
  reaches no worker, the analysis or the exports' labels.
- Units composed before the decision list the original's id in their slices: the written facts are added next
  to it there, so a unit shows the fix whenever it was composed.
- A decision can change (undo) until workers have labelled what it wrote: their labels judged that text.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from annotation_tasks.models import AtomicFact, Unit, UnitResponse
from annotation_tasks.protocols.fields import text_error
from annotation_tasks.services.decision_input import (
    Filter,
    ValidationInputError,
    apply_filters,
    as_choice,
    as_fraction,
    as_int,
    held_items,
)

V = AtomicFact.Validation
DECISIONS = {"keep": V.KEPT, "fix": V.FIXED, "split": V.SPLIT, "drop": V.DROPPED, "undecided": V.UNKNOWN}
"""The request's decision word -> the stored decision (undecided: undo back to no decision)."""
MAX_TEXT = 1000
MAX_PARTS = 10


def decided_facts() -> QuerySet:
    """The facts the step decides: the model's (a splitter's or an imported file's), not people's facts nor the
    ones written in validation."""
    return AtomicFact.objects.filter(kind="model", created_by_assignment__isnull=True).exclude(validation=V.WRITTEN)


def held_facts(unit_responses: QuerySet) -> Q:
    """Facts these UnitResponse rows hold (a slice: only its own facts)."""
    return held_items(unit_responses, "facts")


def undecided_in_units(units: QuerySet) -> QuerySet:
    """Model facts still undecided that these units hold."""
    return decided_facts().filter(held_facts(UnitResponse.objects.filter(unit__in=units)), validation=V.UNKNOWN)


def undecided_in_batch(batch: Any) -> int:
    """Undecided facts in the batch's crowd units still to publish (the gate's count)."""
    pending = batch.units.filter(provider_ref="").exclude(mode=Unit.Mode.VALIDATION)
    return undecided_in_units(pending).count()


_FILTERS: dict[str, Filter] = {
    "project": lambda qs, v, at: qs.filter(response__project_id=as_int(v, at)),
    "response": lambda qs, v, at: qs.filter(response_id=as_int(v, at)),
    "batch": lambda qs, v, at: qs.filter(held_facts(UnitResponse.objects.filter(unit__batch_id=as_int(v, at)))),
    "validation": lambda qs, v, at: qs.filter(validation=as_choice(v, [c for c in V.values if c != V.WRITTEN], at)),
    "confidence_lt": lambda qs, v, at: qs.filter(confidence__lt=as_fraction(v, at)),
}


def filter_facts(queryset: QuerySet, spec: Mapping[str, Any], path: str = "") -> QuerySet:
    """Facts matching `spec` ({key: value} over FILTER_KEYS, values as query strings or JSON)."""
    return apply_filters(queryset, spec, _FILTERS, path)


FILTER_KEYS = tuple(_FILTERS)


def counts(queryset: QuerySet) -> dict[str, int]:
    """{decision: how many} over the facts the step decides in `queryset` (every decision named, zeros too)."""
    found = dict(queryset.values_list("validation").annotate(n=Count("id")).order_by())
    return {v: int(found.get(v, 0)) for v in V.values if v != V.WRITTEN}


def fact_row(fact: AtomicFact, written: Iterable[AtomicFact] = ()) -> dict[str, Any]:
    """A fact as the screen shows it: the original text, the decision and what workers see instead."""
    return {"id": fact.pk, "response": fact.response_id, "sentence_index": fact.sentence_index, "text": fact.text,
            "confidence": fact.confidence, "origin": fact.origin, "validation": fact.validation,
            "written": [{"id": w.pk, "text": w.text} for w in written],
            "validated_by": getattr(fact.validated_by, "username", None) if fact.validated_by_id else None,
            "validated_at": fact.validated_at.isoformat() if fact.validated_at else None}


def written_of(fact_ids: Iterable[int]) -> dict[int, list[AtomicFact]]:
    """{original id: the facts written from it in validation, in order}."""
    out: dict[int, list[AtomicFact]] = {}
    through = AtomicFact.edited_from.through
    pairs = through.objects.filter(to_atomicfact_id__in=list(fact_ids),
                                   from_atomicfact__validation=V.WRITTEN).order_by("from_atomicfact_id")
    for pair in pairs.select_related("from_atomicfact"):
        out.setdefault(pair.to_atomicfact_id, []).append(pair.from_atomicfact)
    return out


def _texts(decision: str, body: Mapping[str, Any]) -> list[str]:
    """The new facts' texts a fix (`text`) or a split (`texts`, two or more) gives; located errors."""
    if decision == V.FIXED:
        raw, path = [body.get("text")], "text"
    elif decision == V.SPLIT:
        raw = body.get("texts")
        if not isinstance(raw, list) or not 2 <= len(raw) <= MAX_PARTS:
            raise ValidationInputError("texts", f"a split gives 2 to {MAX_PARTS} facts")
        path = "texts"
    else:
        return []
    out: list[str] = []
    for i, text in enumerate(raw):
        where = path if decision == V.FIXED else f"{path}[{i}]"
        problem = text_error(text)
        if problem is None and not str(text).strip():
            problem = "must be a non-empty text"
        if problem is None and len(str(text).strip()) > MAX_TEXT:
            problem = f"at most {MAX_TEXT} characters"
        if problem is not None:
            raise ValidationInputError(where, problem)
        out.append(" ".join(str(text).split()))
    return out


def _slices_with(fact_id: int) -> QuerySet:
    """Unit slices that list the fact (JSON containment is not portable: filter in Python over the response)."""
    return UnitResponse.objects.filter(response__atomic_facts__pk=fact_id, items__isnull=False).distinct()


def _replace_in_slices(original: AtomicFact, old: list[int], new: list[int]) -> None:
    """Slices listing the original: the old written facts out, the new ones in after the original."""
    for row in _slices_with(original.pk):
        facts = [f for f in (row.items or {}).get("facts") or [] if f not in old]
        if original.pk not in facts:
            continue
        at = facts.index(original.pk) + 1
        row.items = {**row.items, "facts": facts[:at] + new + facts[at:]}
        row.save(update_fields=["items"])


@transaction.atomic
def decide(fact: AtomicFact, body: Mapping[str, Any], user: Any = None) -> dict[str, Any]:
    """Record an expert's decision on a model fact: {"decision": keep | fix | split | drop | undecided, "text"
    (fix), "texts" (split)}; see the module docstring. Returns the fact's row as the screen shows it."""
    if not isinstance(body, Mapping):
        raise ValidationInputError("body", "must be an object")
    word = body.get("decision")
    if word not in DECISIONS:
        raise ValidationInputError("decision", f"must be one of {', '.join(DECISIONS)}")
    decision = DECISIONS[word]
    fact = AtomicFact.objects.select_for_update().get(pk=fact.pk)
    if not decided_facts().filter(pk=fact.pk).exists():
        raise ValidationInputError("fact", "only a model fact is validated (not a person's fact nor a fix)")
    texts = _texts(decision, body)
    previous = written_of([fact.pk]).get(fact.pk, [])
    if any(w.labels.exists() for w in previous):
        raise ValidationInputError("fact", "workers have labelled the facts written from it: their labels judged that text")
    if texts and fact.labels.exists():
        raise ValidationInputError("fact", "workers have labelled this fact: their labels judged its text (keep or drop it)")
    now = timezone.now()
    by = user if getattr(user, "pk", None) else None
    written: list[AtomicFact] = []
    for text in texts:
        w = AtomicFact.objects.create(
            response_id=fact.response_id, sentence_index=fact.sentence_index, text=text, origin=fact.origin,
            kind="model", order=fact.order, validation=V.WRITTEN, validated_by=by, validated_at=now,
        )
        w.edited_from.set([fact])
        written.append(w)
    old_ids = [w.pk for w in previous]
    _replace_in_slices(fact, old_ids, [w.pk for w in written])
    AtomicFact.objects.filter(pk__in=old_ids).delete()
    fact.validation = decision
    fact.validated_by, fact.validated_at = (None, None) if decision == V.UNKNOWN else (by, now)
    fact.save(update_fields=["validation", "validated_by", "validated_at"])
    return fact_row(fact, written)
