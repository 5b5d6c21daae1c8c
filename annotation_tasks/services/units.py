"""Compose work units: one source with its responses per unit, in a batch; mode from the project's protocol.

Units point at responses, not at QAs: which QAs a worker sees is decided when the unit is served
(annotation_tasks.protocols.qasem.crowd_qas), so QAs an expert marks invalid after composition still never
reach the crowd.
"""
from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q

from annotation_tasks.models import Batch, GoldLabel, Project, Source, Unit, UnitResponse
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols import get_protocol


def crowd_mode(project: Project) -> str:
    """The element mode of a project's crowd units: FActScore facts, or the QASem two-step (+ pairwise)."""
    return Unit.Mode.FACTSCORE if project.has_step(Protocol.FACT_LABELING) else Unit.Mode.QASEM


def _has_gold(response_ids: list[int]) -> bool:
    return GoldLabel.objects.filter(
        Q(span__response_id__in=response_ids) | Q(qa__response_id__in=response_ids) | Q(fact__response_id__in=response_ids)
    ).exists()


@transaction.atomic
def compose_units(
    batch: Batch,
    *,
    sources: Iterable[Source] | None = None,
    mode: str | None = None,
    assignments_wanted: int | None = None,
) -> list[Unit]:
    """Create one unit per source (with all its responses, in id order) in `batch`.

    Idempotent: a source that already has a unit of this mode in the batch is skipped, so re-running after
    importing more items only adds the new ones. Returns the units created.
    """
    project = batch.project
    mode = mode or crowd_mode(project)
    protocol = get_protocol(mode)
    wanted = assignments_wanted or protocol.assignments_wanted(project)
    qs = Source.objects.filter(project=project) if sources is None else Source.objects.filter(
        pk__in=[s.pk for s in sources], project=project
    )
    done = set(Unit.objects.filter(batch=batch, mode=mode).values_list("source_id", flat=True))
    created: list[Unit] = []
    for source in qs.order_by("id").prefetch_related("responses"):
        if source.pk in done:
            continue
        response_ids = [r.pk for r in sorted(source.responses.all(), key=lambda r: r.pk)]
        if not response_ids:
            continue
        unit = Unit.objects.create(
            project=project,
            batch=batch,
            source=source,
            mode=mode,
            assignments_wanted=wanted,
            is_gold=not protocol.expert_step and _has_gold(response_ids),
        )
        UnitResponse.objects.bulk_create(
            [UnitResponse(unit=unit, response_id=rid, position=i) for i, rid in enumerate(response_ids)]
        )
        created.append(unit)
    return created


def compose_validation_units(batch: Batch, *, sources: Iterable[Source] | None = None, assignments_wanted: int = 1):
    """Units for the expert QA-validation pre-step (every QA shown, each judged valid / invalid)."""
    return compose_units(batch, sources=sources, mode=Unit.Mode.VALIDATION, assignments_wanted=assignments_wanted)
