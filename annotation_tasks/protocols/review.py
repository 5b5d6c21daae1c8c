"""Review and adjudication per protocol: what one assignment answered, item by item, and which levels an expert
may adjudicate with which labels, and the context an adjudicator reads.

The shared part: the companion's interface (ProtocolReview), its registry, and what several companions read
(response_part, pairwise_context). Each protocol's companion is protocols/<name>/review.py, named by the
protocol's `review` declaration. A companion reads what its protocol wrote (its label models, the facts a worker
edited or added, the raw submission of the expert step) and lays it beside the payload the protocol builds, so
the reviewer sees the worker's screen and answers together. services/review.py and services/adjudication.py call it; nothing here knows about the API.
A protocol registered without a companion gets GenericReview (its label levels, without item context).
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import import_module
from typing import Any, ClassVar

from annotation_tasks.models import Assignment, PairwisePreference, Response, Unit
from annotation_tasks.protocols.display import Display
from annotation_tasks.protocols.registry import UnknownProtocol, available_protocols, get_protocol, label_order


def level_labels(level: str) -> tuple[str, ...]:
    """The labels an adjudicator may give at a level, in the analysis's tie order (error label first): the
    vocabulary its protocol declares."""
    return label_order().get(level, ())


class ProtocolReview:
    """The review companion of one protocol. `adjudication_levels`: levels whose items an expert may settle."""

    mode: ClassVar[str] = ""
    adjudication_levels: ClassVar[tuple[str, ...]] = ()

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        """One row per item the worker judged or was shown, in display order: level, item_id, response_id,
        what the item is (question, answer, text ...) and `answer` (the worker's label name, None if none)."""
        rows: list[dict[str, Any]] = []
        for level in get_protocol(self.mode).label_levels:
            for item, value in level.model._default_manager.filter(assignment=assignment).order_by(
                level.item_field
            ).values_list(level.item_field, level.value_field):
                rows.append({"level": level.name, "item_id": item, "response_id": None,
                             "answer": level.label_of(value)})
        return rows

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        """What an adjudicator reads about each item of `level` (by item id); empty without a companion."""
        return {}


class GenericReview(ProtocolReview):
    """For a protocol registered without a companion: its label levels, no item context, no adjudication."""

    def __init__(self, mode: str) -> None:
        self.mode = mode  # type: ignore[misc]


def response_part(response: Response, display: Display) -> dict[str, Any]:
    """The response as its workers were shown it (`display`: text and token offsets, protocols/display.py),
    and its source's shown text: the adjudicator reads what the workers read."""
    source = response.source
    return {"response_id": response.pk, "response": response.external_id, "system": response.system,
            "display": display.shown(), "source_text": Display(source.text, source.tokens or []).text,
            "source_question": source.question}


def display_of(response: Response) -> Display:
    return Display(response.text, response.tokens or [])


PAIR_FIELDS = ("response_a_id", "response_b_id", "context_a", "context_b")


def oriented(score: int, response_a: int | None, response_b: int | None, context_a: int | None = None,
             context_b: int | None = None) -> int:
    """A pairwise score (1 = A much better) from the side of the pair's canonical A: the lower response id, or the
    lower passage index. Sides are drawn per assignment (ragas), so two workers' scores of one comparison are
    compared (majority, agreement, adjudication) only once oriented alike; review shows the pair in that order."""
    first, second = (response_a, response_b) if response_a is not None and response_b is not None \
        else (context_a, context_b)
    return 6 - score if first is not None and second is not None and first > second else score


def pairwise_context(unit_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Per unit: its source, and per aspect what A and B are (two responses, or two of the source's passages
    for Ragas' context relevance) in the canonical order every vote is oriented to (`oriented`: lower id first)."""
    out: dict[int, dict[str, Any]] = {}
    for unit in Unit.objects.filter(pk__in=unit_ids).select_related("source"):
        passages = list(unit.source.passages or [])
        compared: dict[str, dict[str, Any]] = {}
        for pref in PairwisePreference.objects.filter(unit=unit).select_related("response_a", "response_b").order_by("id"):
            if pref.aspect in compared:
                continue
            if pref.response_a is not None and pref.response_b is not None:
                pair = sorted((pref.response_a, pref.response_b), key=lambda r: r.pk)
                sides = [{"label": label, "kind": "response", "response_id": r.pk, "response": r.external_id,
                          "system": r.system, "text": display_of(r).text}
                         for label, r in zip(("A", "B"), pair, strict=True)]
            else:
                indices = sorted((pref.context_a, pref.context_b), key=lambda i: -1 if i is None else i)
                sides = [{"label": label, "kind": "context", "index": i,
                          "text": passages[i] if i is not None and i < len(passages) else ""}
                         for label, i in zip(("A", "B"), indices, strict=True)]
            compared[pref.aspect] = {"sides": sides}
        out[unit.pk] = {"source_text": Display(unit.source.text, unit.source.tokens or []).text,
                        "source_question": unit.source.question,
                        "comparisons": compared}
    return out


_REVIEWS: dict[str, str] = {}
"""Companions registered by hand (plug-ins, tests), over the protocols' own `review` declarations."""


def register_review(mode: str, path: str) -> None:
    """Set the review companion ("package.module:Class") of a protocol, over its own declaration."""
    _REVIEWS[str(mode)] = path
    _load.cache_clear()


def review_for(mode: str) -> ProtocolReview:
    """The review companion of the protocol that serves `mode`; UnknownProtocol when no protocol does."""
    get_protocol(mode)  # raises UnknownProtocol
    return _load(str(mode))


@cache
def _load(mode: str) -> ProtocolReview:
    path = _REVIEWS.get(mode) or get_protocol(mode).review
    if not path:
        return GenericReview(mode)
    module_name, class_name = path.split(":")
    review: ProtocolReview = getattr(import_module(module_name), class_name)()
    return review


def adjudication_levels() -> list[str]:
    """Every level an expert may adjudicate, over the registered protocols, in registration order."""
    out: list[str] = []
    for mode in available_protocols():
        try:
            levels: Iterable[str] = review_for(mode).adjudication_levels
        except UnknownProtocol:  # pragma: no cover - available_protocols lists registered modes only
            continue
        out += [lv for lv in levels if lv not in out]
    return out


def context_of(level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The adjudicator's context of items of `level`, from the protocol that owns the level."""
    for mode in available_protocols():
        review = review_for(mode)
        if level in review.adjudication_levels:
            return review.context(level, item_ids)
    return {}
