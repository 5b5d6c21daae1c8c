"""Review and adjudication per protocol: what one assignment answered, item by item, and which levels an expert
may adjudicate with which labels, and the context an adjudicator reads.

A companion of each protocol module (qasem, factscore, validation), registered by the same Unit.Mode. It reads
what the protocol wrote (its label models, the facts a worker edited or added, the raw submission of the expert
step) and lays it beside the payload the protocol builds, so the reviewer sees the worker's screen and answers
together. services/review.py and services/adjudication.py call it; nothing here knows about the API.
A protocol registered without a companion gets GenericReview (its label levels, without item context).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from functools import cache
from importlib import import_module
from typing import Any, ClassVar

from annotation_tasks.analysis.aggregation import LABEL_ORDER
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    PairwisePreference,
    Response,
    Unit,
)
from annotation_tasks.protocols.display import Display, question
from annotation_tasks.protocols.registry import UnknownProtocol, available_protocols, get_protocol

PAIRWISE_LABELS: tuple[str, ...] = ("1", "2", "3", "4", "5")
"""Pairwise scores as labels: 1 = A much better ... 3 = equal ... 5 = B much better."""


def level_labels(level: str) -> tuple[str, ...]:
    """The labels an adjudicator may give at a level, in the analysis's tie order (error label first)."""
    if level == "pairwise":
        return PAIRWISE_LABELS
    return LABEL_ORDER.get(level, ())


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


def _response_part(response: Response, display: Display) -> dict[str, Any]:
    """The response as its workers were shown it (`display`: text and token offsets, protocols/display.py),
    and its source's shown text: the adjudicator reads what the workers read."""
    source = response.source
    return {"response_id": response.pk, "response": response.external_id, "system": response.system,
            "display": display.shown(), "source_text": Display(source.text, source.tokens or []).text,
            "source_question": source.question}


def _display(response: Response) -> Display:
    return Display(response.text, response.tokens or [])


def pairwise_context(unit_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Per unit: its source, and per aspect what A and B are (two responses, or two of the source's passages
    for Ragas' context relevance), as the first judgment of that aspect recorded them (display order)."""
    out: dict[int, dict[str, Any]] = {}
    for unit in Unit.objects.filter(pk__in=unit_ids).select_related("source"):
        passages = list(unit.source.passages or [])
        compared: dict[str, dict[str, Any]] = {}
        for pref in PairwisePreference.objects.filter(unit=unit).select_related("response_a", "response_b").order_by("id"):
            if pref.aspect in compared:
                continue
            if pref.response_a_id is not None and pref.response_b_id is not None:
                sides = [{"label": label, "kind": "response", "response_id": r.pk, "response": r.external_id,
                          "system": r.system, "text": _display(r).text}
                         for label, r in (("A", pref.response_a), ("B", pref.response_b)) if r is not None]
            else:
                sides = [{"label": label, "kind": "context", "index": i,
                          "text": passages[i] if i is not None and i < len(passages) else ""}
                         for label, i in (("A", pref.context_a), ("B", pref.context_b))]
            compared[pref.aspect] = {"sides": sides}
        out[unit.pk] = {"source_text": Display(unit.source.text, unit.source.tokens or []).text,
                        "source_question": unit.source.question,
                        "comparisons": compared}
    return out


class QASemReview(ProtocolReview):
    mode = Unit.Mode.QASEM.value
    adjudication_levels = ("span", "qa", "pairwise")

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        spans = dict(assignment.span_labels.values_list("span_id", "covered"))
        qas = {q["qa_id"]: q for q in assignment.qa_labels.values("qa_id", "supported", "derived_from_span", "note")}
        rows: list[dict[str, Any]] = []
        for r in payload["responses"]:
            for s in r["spans"]:
                covered = spans.get(s["id"])
                rows.append({"level": "span", "item_id": s["id"], "response_id": r["id"], "response_label": r["label"],
                             "text": s["text"], "start": s["start"], "end": s["end"], "qa_ids": s["qa_ids"],
                             "answer": None if covered is None else ("covered" if covered else "not_covered")})
            for q in r["qas"]:
                got = qas.get(q["id"])
                rows.append({
                    "level": "qa", "item_id": q["id"], "response_id": r["id"], "response_label": r["label"],
                    "question": q["question"], "answer_text": q["answer"], "answer_start": q["answer_start"],
                    "answer_end": q["answer_end"],
                    "answer": None if got is None else ("supported" if got["supported"] else "not_supported"),
                    "derived_from_span": bool(got and got["derived_from_span"]), "note": got["note"] if got else "",
                })
        for aspect, score in assignment.preferences.order_by("aspect").values_list("aspect", "score"):
            rows.append({"level": "pairwise", "item_id": assignment.unit_id, "aspect": aspect, "response_id": None,
                         "answer": str(score)})
        return rows

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        if level == "span":
            spans = AnswerSpan.objects.filter(pk__in=item_ids).select_related("response__source")
            qa_of: dict[int, list[str]] = defaultdict(list)
            for span_id, text in AnswerSpan.qas.through.objects.filter(answerspan_id__in=item_ids).values_list(
                "answerspan_id", "qa__question"
            ):
                qa_of[span_id].append(question(text))
            out: dict[int, dict[str, Any]] = {}
            for s in spans:
                display = _display(s.response)
                out[s.pk] = {**_response_part(s.response, display), "text": display.span(s.start, s.end, s.text),
                             "start": s.start, "end": s.end, "questions": qa_of.get(s.pk, [])}
            return out
        if level == "qa":
            qas = QA.objects.filter(pk__in=item_ids).select_related("response__source", "predicate")
            out = {}
            for q in qas:
                display = _display(q.response)
                out[q.pk] = {**_response_part(q.response, display), "question": question(q.question),
                             "answer_text": display.span(q.answer_start, q.answer_end, q.answer),
                             "answer_start": q.answer_start, "answer_end": q.answer_end,
                             "predicate": q.predicate.text, "predicate_index": q.predicate.token_index}
            return out
        if level == "pairwise":
            return pairwise_context(item_ids)
        return {}


class FactScoreReview(ProtocolReview):
    mode = Unit.Mode.FACTSCORE.value
    adjudication_levels = ("fact",)

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        labels = dict(assignment.fact_labels.values_list("fact_id", "label"))
        created = list(assignment.created_facts.order_by("order", "id").prefetch_related("edited_from"))
        replaced = {f.pk: c.pk for c in created for f in c.edited_from.all()}
        rows: list[dict[str, Any]] = []
        for r in payload["responses"]:
            for f in r["facts"]:
                status = "kept" if f["id"] in labels else "edited" if f["id"] in replaced else "deleted"
                rows.append({"level": "fact", "item_id": f["id"], "response_id": r["id"], "response_label": r["label"],
                             "text": f["text"], "sentence_index": f["sentence_index"], "origin": "model",
                             "status": status, "replaced_by": replaced.get(f["id"]), "answer": labels.get(f["id"])})
        for c in created:
            rows.append({"level": "fact", "item_id": c.pk, "response_id": c.response_id, "text": c.text,
                         "sentence_index": c.sentence_index, "origin": "human",
                         "status": "edited" if c.edited_from.exists() else "added",
                         "edited_from": [{"id": f.pk, "text": f.text} for f in c.edited_from.all()],
                         "answer": labels.get(c.pk)})
        return rows

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        if level != "fact":
            return {}
        facts = (AtomicFact.objects.filter(pk__in=item_ids)
                 .select_related("response__source", "created_by_assignment__worker").prefetch_related("edited_from"))
        out: dict[int, dict[str, Any]] = {}
        for f in facts:
            sentences = f.response.sentences or []
            sentence = sentences[f.sentence_index] if f.sentence_index < len(sentences) else {}
            author = f.created_by_assignment
            display = _display(f.response)
            out[f.pk] = {
                **_response_part(f.response, display), "text": f.text, "sentence_index": f.sentence_index,
                "sentence": display.sentence(sentence) if isinstance(sentence, dict) else "",
                "origin": "human" if author is not None else f.kind,
                "edited_from": [{"id": e.pk, "text": e.text} for e in f.edited_from.all()],
                "written_by_assignment": author.pk if author is not None else None,
                "written_by_worker": author.worker_id if author is not None else None,
            }
        return out


class RagasReview(ProtocolReview):
    """Ragas' human protocol: pairwise scores per aspect (answers, or contexts for context relevance)."""

    mode = Unit.Mode.RAGAS.value
    adjudication_levels = ("pairwise",)

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"level": "pairwise", "item_id": assignment.unit_id, "aspect": aspect, "response_id": None,
                 "answer": str(score)}
                for aspect, score in assignment.preferences.order_by("aspect").values_list("aspect", "score")]

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        return pairwise_context(item_ids) if level == "pairwise" else {}


class ValidationReview(ProtocolReview):
    """The expert pre-step: its judgments set QA.validity (no label rows), so they are read from the submission."""

    mode = Unit.Mode.VALIDATION.value

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        sent = (assignment.submission or {}).get("labels", {}).get("validation", []) or []
        judged = {i.get("qa_id"): i.get("valid") for i in sent if isinstance(i, dict) and not isinstance(
            i.get("qa_id"), list | dict)}
        rows: list[dict[str, Any]] = []
        for r in payload["responses"]:
            for q in r["qas"]:
                got = judged.get(q["id"])
                rows.append({"level": "validation", "item_id": q["id"], "response_id": r["id"],
                             "response_label": r["label"], "question": q["question"], "answer_text": q["answer"],
                             "answer_start": q["answer_start"], "answer_end": q["answer_end"],
                             "answer": None if got is None else ("valid" if got else "invalid")})
        return rows


_REVIEWS: dict[str, str] = {
    Unit.Mode.QASEM.value: "annotation_tasks.protocols.review:QASemReview",
    Unit.Mode.FACTSCORE.value: "annotation_tasks.protocols.review:FactScoreReview",
    Unit.Mode.VALIDATION.value: "annotation_tasks.protocols.review:ValidationReview",
    Unit.Mode.RAGAS.value: "annotation_tasks.protocols.review:RagasReview",
}


def register_review(mode: str, path: str) -> None:
    """Add the review companion ("package.module:Class") of a plug-in protocol."""
    _REVIEWS[str(mode)] = path
    _load.cache_clear()


def review_for(mode: str) -> ProtocolReview:
    """The review companion of the protocol that serves `mode`; UnknownProtocol when no protocol does."""
    get_protocol(mode)  # raises UnknownProtocol
    return _load(str(mode))


@cache
def _load(mode: str) -> ProtocolReview:
    if mode not in _REVIEWS:
        return GenericReview(mode)
    module_name, class_name = _REVIEWS[mode].split(":")
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
