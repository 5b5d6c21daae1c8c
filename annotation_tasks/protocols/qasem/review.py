"""QASem's review companion: span, QA and pairwise answers beside the payload; span and QA context for the
adjudicator (protocols/review.py)."""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from annotation_tasks.models import QA, AnswerSpan, Assignment, Unit
from annotation_tasks.protocols.display import question
from annotation_tasks.protocols.review import (
    PAIR_FIELDS,
    ProtocolReview,
    display_of,
    oriented,
    pairwise_context,
    response_part,
)


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
        for aspect, score, *pair in assignment.preferences.order_by("aspect").values_list("aspect", "score",
                                                                                         *PAIR_FIELDS):
            rows.append({"level": "pairwise", "item_id": assignment.unit_id, "aspect": aspect, "response_id": None,
                         "answer": str(oriented(score, *pair))})
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
                display = display_of(s.response)
                out[s.pk] = {**response_part(s.response, display), "text": display.span(s.start, s.end, s.text),
                             "start": s.start, "end": s.end, "questions": qa_of.get(s.pk, [])}
            return out
        if level == "qa":
            qas = QA.objects.filter(pk__in=item_ids).select_related("response__source", "predicate")
            out = {}
            for q in qas:
                display = display_of(q.response)
                out[q.pk] = {**response_part(q.response, display), "question": question(q.question),
                             "answer_text": display.span(q.answer_start, q.answer_end, q.answer),
                             "answer_start": q.answer_start, "answer_end": q.answer_end,
                             "predicate": q.predicate.text, "predicate_index": q.predicate.token_index}
            return out
        if level == "pairwise":
            return pairwise_context(item_ids)
        return {}
