"""Compose work units: one source with its responses per unit, in a batch; mode from the project's protocol.

Units point at responses, not at QAs: which QAs a worker sees is decided when the unit is served
(annotation_tasks.protocols.qasem.crowd_qas), so QAs an expert marks invalid after composition still never
reach the crowd.

Units a worker can finish: a unit shows at most the project's `unit_caps` spans, QAs and facts (DEFAULT_CAPS).
A source over them is split: its responses go to units of their own, and a response still over them is cut
into slices of whole sentences (a sentence over the caps alone is cut between its spans); a span goes with its
QAs. The UnitResponse of a slice lists the item ids it covers (`items`); the payload shows only those, labels
stay per item, so the parts' labels join in reports as if one unit had held them. The slices of a response
partition the items it shows at composition time. A compared pair (the pairwise step) stays side by side:
see source_units.

DEFAULT_CAPS, from the QASemConsistency release (one summary per HIT; dev: median 8 QAs / 4 spans per
summary, 90th percentile 24.6 / 14.6, max 44 / 34): 20 QAs and 12 spans keep ~85% of the paper's HITs whole
and cut only its long tail. Facts: FActScore's labeled bios have a median of 27 (InstructGPT) and 36
(ChatGPT) model facts; 30 keeps a typical bio whole and halves the longest.
"""
from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from django.db import transaction

from annotation_tasks.models import Batch, GoldLabel, Project, Source, Unit, UnitResponse
from annotation_tasks.models.projects import DEFAULT_UNIT_CAPS, Protocol
from annotation_tasks.protocols import get_protocol, mode_for_steps
from annotation_tasks.protocols.base import Shown

DEFAULT_CAPS: dict[str, int] = DEFAULT_UNIT_CAPS
ITEM_KINDS = tuple(DEFAULT_CAPS)


class CapsError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def check_caps(data: Any, path: str = "unit_caps") -> dict[str, int]:
    """Caps from JSON (missing kinds take the default); CapsError names the bad field."""
    if data is None:
        return dict(DEFAULT_CAPS)
    if not isinstance(data, Mapping):
        raise CapsError(path, "must be an object")
    out = dict(DEFAULT_CAPS)
    for key, value in data.items():
        if key not in DEFAULT_CAPS:
            raise CapsError(f"{path}.{key}", f"unknown item kind (known: {', '.join(ITEM_KINDS)})")
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1000:
            raise CapsError(f"{path}.{key}", "must be an integer from 1 to 1000")
        out[key] = value
    return out


def project_caps(project: Project) -> dict[str, int]:
    try:
        return check_caps(project.unit_caps or None)
    except CapsError:  # a bad row written around the API: the defaults, rather than no units
        return dict(DEFAULT_CAPS)


def _fits(counts: Mapping[str, int], caps: Mapping[str, int]) -> bool:
    return all(counts.get(k, 0) <= caps[k] for k in ITEM_KINDS)


def _add(a: Mapping[str, int], b: Mapping[str, int]) -> dict[str, int]:
    return {k: a.get(k, 0) + b.get(k, 0) for k in ITEM_KINDS}


def _atoms(response, items: Mapping[str, list[dict]]) -> list[tuple[int, dict[str, list[int]]]]:
    """What cannot be cut, in reading order, each with its sentence: a span with its QAs, a QA of no span,
    a fact."""
    starts = [s.get("start", 0) for s in (response.sentences or [])]

    def sentence_of(token: int) -> int:
        return max(bisect.bisect_right(starts, token) - 1, 0)

    atoms: list[tuple[int, int, dict[str, list[int]]]] = []
    qa_rows = {q["id"]: q for q in items.get("qas", [])}
    placed: set[int] = set()
    for span in items.get("spans", []):
        qas = [q for q in span.get("qa_ids", []) if q in qa_rows and q not in placed]
        placed.update(qas)
        atoms.append((sentence_of(span["start"]), span["start"], {"spans": [span["id"]], "qas": qas, "facts": []}))
    for qa in items.get("qas", []):
        if qa["id"] not in placed:
            atoms.append((sentence_of(qa["answer_start"]), qa["answer_start"],
                          {"spans": [], "qas": [qa["id"]], "facts": []}))
    for i, fact in enumerate(items.get("facts", [])):
        atoms.append((fact.get("sentence_index", 0), i, {"spans": [], "qas": [], "facts": [fact["id"]]}))
    atoms.sort(key=lambda a: (a[0], a[1]))
    return [(sentence, ids) for sentence, _, ids in atoms]


def _counts(ids: Mapping[str, list[int]]) -> dict[str, int]:
    return {k: len(ids.get(k, [])) for k in ITEM_KINDS}


def response_slices(response, items: Mapping[str, list[dict]], caps: Mapping[str, int]) -> list[dict[str, Any]]:
    """The response's items cut into slices under `caps`: whole sentences while they fit, else atoms."""
    groups: list[list[dict[str, list[int]]]] = []  # atoms per sentence, in order
    last = None
    for sentence, ids in _atoms(response, items):
        if sentence != last:
            groups.append([])
            last = sentence
        groups[-1].append(ids)
    slices: list[dict[str, list[int]]] = []
    current: dict[str, list[int]] = {k: [] for k in ITEM_KINDS}

    def take(ids: Mapping[str, list[int]]) -> None:
        nonlocal current
        if any(current.values()) and not _fits(_add(_counts(current), _counts(ids)), caps):
            slices.append(current)
            current = {k: [] for k in ITEM_KINDS}
        for k in ITEM_KINDS:
            current[k].extend(ids.get(k, []))

    for group in groups:
        merged = {k: [i for ids in group for i in ids[k]] for k in ITEM_KINDS}
        if _fits(_counts(merged), caps):
            take(merged)
        else:  # one sentence over the caps: cut between its atoms
            for ids in group:
                take(ids)
    if any(current.values()) or not slices:
        slices.append(current)
    return [{"part": i, "parts": len(slices), **ids} for i, ids in enumerate(slices)]


Piece = tuple[int, dict | None, dict[str, int]]  # (response id, slice or None for the whole response, counts)


ItemsOf = Mapping[int, Mapping[str, list[dict]]]  # response id → its items (protocol.responses_items)


def _pieces(responses: list, protocol, caps: Mapping[str, int], known: ItemsOf | None = None) -> list[list[Piece]]:
    """Per response (in the given order): the whole response when it fits `caps`, else its slices. `known`: the
    responses' items already read (a compose chunk reads them for all its responses at once)."""
    out: list[list[Piece]] = []
    for response in responses:
        items = known[response.pk] if known is not None else protocol.response_items(response, Shown())
        counts = {k: len(items.get(k, [])) for k in ITEM_KINDS}
        if _fits(counts, caps):
            out.append([(response.pk, None, counts)])
        else:
            out.append([(response.pk, s, _counts(s)) for s in response_slices(response, items, caps)])
    return out


def source_units(source: Source, protocol, caps: Mapping[str, int], pairwise: bool,
                 known: ItemsOf | None = None) -> list[list[tuple[int, dict | None]]]:
    """The units of one source: [(response id, slice or None), ...] each.

    A pair compared side by side (the pairwise step, two responses) that is over the caps together is cut
    under half the caps each, and unit k holds part k of both: the first unit has the beginning of both texts
    and the comparison (qasem.pairwise_section asks it only there)."""
    responses = sorted(source.responses.all(), key=lambda r: r.pk)
    if pairwise and len(responses) == 2:
        whole = _pieces(responses, protocol, caps, known)
        if all(len(p) == 1 and p[0][1] is None for p in whole) and _fits(_add(whole[0][0][2], whole[1][0][2]), caps):
            return [[(rid, None) for rid, _, _ in (whole[0][0], whole[1][0])]]
        half = {k: max(1, v // 2) for k, v in caps.items()}
        a, b = _pieces(responses, protocol, half, known)
        return [[(rid, piece) for rid, piece, _ in pair if rid is not None]
                for pair in zip_longest(a, b, fillvalue=(None, None, {}))]
    return pack_units([p for pieces in _pieces(responses, protocol, caps, known) for p in pieces], caps)


def pack_units(pieces: list[Piece], caps: Mapping[str, int]) -> list[list[tuple[int, dict | None]]]:
    """Consecutive pieces share a unit while their totals fit and no response repeats (a source that fits is
    one unit, as before caps existed)."""
    units: list[list[tuple[int, dict | None]]] = []
    totals: dict[str, int] = {}
    for rid, piece, counts in pieces:
        if units and _fits(_add(totals, counts), caps) and all(r != rid for r, _ in units[-1]):
            units[-1].append((rid, piece))
            totals = _add(totals, counts)
        else:
            units.append([(rid, piece)])
            totals = dict(counts)
    return units


def crowd_mode(project: Project) -> str:
    """The mode of a project's crowd units, picked by the protocols from the steps they declare
    (protocols.registry.mode_for_steps): the one whose step comes first, else the QASem two-step."""
    return mode_for_steps(project.protocol or [])


def _gold_flags(units: list[list[tuple[int, dict | None]]]) -> list[bool]:
    """Whether each unit shows an item with a gold label (a slice: only its own items), for a chunk of units at
    once: six indexed lookups per chunk, not three per unit (and not one OR over three outer joins: PostgreSQL
    answered that by reading every gold label of every project, 30-40 ms a unit with 20,000 labels)."""
    whole = {rid for members in units for rid, piece in members if piece is None}
    gold_responses: set[int] = set()
    if whole:
        for kind in ("span", "qa", "fact"):
            gold_responses.update(GoldLabel.objects.filter(**{f"{kind}__response_id__in": whole})
                                  .values_list(f"{kind}__response_id", flat=True))
    gold_items: dict[str, set[int]] = {}
    for field, kind in (("span_id", "spans"), ("qa_id", "qas"), ("fact_id", "facts")):
        ids = {i for members in units for _, piece in members if piece is not None for i in piece.get(kind, [])}
        gold_items[kind] = set(GoldLabel.objects.filter(**{f"{field}__in": ids}).values_list(field, flat=True)) \
            if ids else set()

    def shows_gold(members: list[tuple[int, dict | None]]) -> bool:
        return any(rid in gold_responses if piece is None
                   else any(i in gold_items[kind] for kind in gold_items for i in piece.get(kind, []))
                   for rid, piece in members)

    return [shows_gold(members) for members in units]


def _has_gold(members: list[tuple[int, dict | None]]) -> bool:
    """Whether any item the unit shows has a gold label (a slice: only its own items)."""
    return _gold_flags([members])[0]


COMPOSE_CHUNK = 200
"""Sources composed per transaction: one chunk's sources, responses (with their tokens) and new rows are all a
composition holds in memory, and a chunk is the step a compose Job commits and resumes from."""


@dataclass(frozen=True)
class Chunk:
    """One committed step of a composition: how many sources it went through (composed or skipped) and the
    units it created."""

    sources: int
    units: list[Unit]


def compose_chunks(
    batch: Batch,
    *,
    sources: Iterable[Source] | None = None,
    mode: str | None = None,
    assignments_wanted: int | None = None,
    chunk: int | None = None,
) -> Iterator[Chunk]:
    """Compose the batch's units `chunk` sources at a time, each chunk in its own transaction (see compose_units
    for what a unit is). A source's units are written together, so a composition that stops between chunks
    (a killed worker) leaves whole sources only, and running it again skips them: the resume point is the data.

    Memory stays flat with the project: sources are read by id pages, and each chunk's rows are dropped once
    written (the caller keeps the units only if it wants them)."""
    project = batch.project
    mode = mode or crowd_mode(project)
    protocol = get_protocol(mode)
    wanted = assignments_wanted or protocol.assignments_wanted(project)
    qs = Source.objects.filter(project=project)
    if sources is not None:
        qs = qs.filter(pk__in=[s.pk for s in sources])
    caps = project_caps(project)
    pairwise = mode == Unit.Mode.QASEM and project.has_step(Protocol.PAIRWISE)
    gold = not protocol.expert_step
    chunk = chunk or COMPOSE_CHUNK
    last = 0
    while True:
        page = list(qs.filter(pk__gt=last).order_by("id").prefetch_related("responses")[:chunk])
        if not page:
            return
        last = page[-1].pk
        with transaction.atomic():
            done = set(Unit.objects.filter(batch=batch, mode=mode, source_id__in=[s.pk for s in page])
                       .values_list("source_id", flat=True))
            todo = [source for source in page if source.pk not in done and source.responses.all()]
            responses = [r for source in todo for r in source.responses.all()]
            # every response's items in a few queries for the chunk, not a few per response
            known = protocol.responses_items(responses, {r.pk: Shown() for r in responses})
            plans: list[tuple[int, list[tuple[int, dict | None]]]] = []
            for source in todo:
                plans.extend((source.pk, members)
                             for members in source_units(source, protocol, caps, pairwise, known))
            flags = _gold_flags([members for _, members in plans]) if gold else [False] * len(plans)
            # source_id, not source: the units must not keep every source with its prefetched responses and
            # tokens alive (45-55 KB a unit; 2 GB for 30k units, issue 25)
            units = Unit.objects.bulk_create([
                Unit(project=project, batch=batch, source_id=source_id, mode=mode, assignments_wanted=wanted,
                     is_gold=flag)
                for (source_id, _), flag in zip(plans, flags, strict=True)
            ])
            UnitResponse.objects.bulk_create(
                [UnitResponse(unit=unit, response_id=rid, position=i, items=piece)
                 for unit, (_, members) in zip(units, plans, strict=True) for i, (rid, piece) in enumerate(members)],
                batch_size=1000,
            )
        seen = len(page)
        del page, todo, responses, known, plans
        yield Chunk(sources=seen, units=units)


@transaction.atomic
def compose_units(
    batch: Batch,
    *,
    sources: Iterable[Source] | None = None,
    mode: str | None = None,
    assignments_wanted: int | None = None,
) -> list[Unit]:
    """Create one unit per source (with all its responses, in id order) in `batch`, or several when the
    source is over the project's unit caps (see the module docstring), in one transaction.

    Idempotent: a source that already has a unit of this mode in the batch is skipped, so re-running after
    importing more items only adds the new ones. Returns the units created (a large batch is composed by a
    compose Job instead, services.batch_jobs, which keeps only counts).
    """
    return [unit for step in compose_chunks(batch, sources=sources, mode=mode, assignments_wanted=assignments_wanted)
            for unit in step.units]


def sources_for_units(project: Project, candidates: list[int], n: int) -> list[int]:
    """Whole sources, in the candidates' order, that compose_units makes into exactly `n` units together when the
    sources allow it (a source over the caps makes several: `publish --units 5` made 12). A source that would
    overshoot is passed over for a later, smaller one; fewer than `n` only when no choice reaches it."""
    mode = crowd_mode(project)
    protocol = get_protocol(mode)
    caps = project_caps(project)
    pairwise = mode == Unit.Mode.QASEM and project.has_step(Protocol.PAIRWISE)
    by_id = {s.pk: s for s in Source.objects.filter(project=project, pk__in=candidates).prefetch_related("responses")}
    chosen: list[int] = []
    total = 0
    for source_id in candidates:
        source = by_id.get(source_id)
        if total >= n:
            break
        if source is None or not source.responses.all():
            continue
        count = len(source_units(source, protocol, caps, pairwise))
        if total + count <= n:
            chosen.append(source_id)
            total += count
    return chosen


def compose_validation_units(batch: Batch, *, sources: Iterable[Source] | None = None, assignments_wanted: int = 1):
    """Units for the expert QA-validation pre-step (every QA shown, each judged valid / invalid)."""
    return compose_units(batch, sources=sources, mode=Unit.Mode.VALIDATION, assignments_wanted=assignments_wanted)
