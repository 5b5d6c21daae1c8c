"""Ragas' review companion: one pairwise score per aspect, and what each aspect compared (protocols/review.py)."""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.protocols.review import ProtocolReview, pairwise_context


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
