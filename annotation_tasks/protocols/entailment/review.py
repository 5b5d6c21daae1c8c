"""Fact entailment's review companion: each fact's label and rationale beside the payload; the fact in its
sentence and response for the adjudicator (protocols/review.py)."""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, AtomicFact, Unit
from annotation_tasks.protocols.review import ProtocolReview, display_of, response_part


class EntailmentReview(ProtocolReview):
    mode = Unit.Mode.ENTAILMENT.value
    adjudication_levels = ("entailment",)

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        given = {fid: (label, rationale) for fid, label, rationale in
                 assignment.entailment_labels.values_list("fact_id", "label", "rationale")}
        rows: list[dict[str, Any]] = []
        for r in payload["responses"]:
            for f in r["facts"]:
                label, rationale = given.get(f["id"], (None, ""))
                rows.append({"level": "entailment", "item_id": f["id"], "response_id": r["id"],
                             "response_label": r["label"], "text": f["text"], "sentence_index": f["sentence_index"],
                             "answer": label, "note": rationale})
        return rows

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        if level != "entailment":
            return {}
        out: dict[int, dict[str, Any]] = {}
        for f in AtomicFact.objects.filter(pk__in=item_ids).select_related("response__source"):
            sentences = f.response.sentences or []
            sentence = sentences[f.sentence_index] if 0 <= f.sentence_index < len(sentences) else {}
            display = display_of(f.response)
            out[f.pk] = {**response_part(f.response, display), "text": f.text, "sentence_index": f.sentence_index,
                         "sentence": display.sentence(sentence) if isinstance(sentence, dict) else ""}
        return out
