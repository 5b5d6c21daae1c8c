"""Ragas' review companion: one pairwise score per aspect, and what each aspect compared (protocols/review.py)."""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.protocols.review import PAIR_FIELDS, ProtocolReview, oriented, pairwise_context


class RagasReview(ProtocolReview):
    """Ragas' human protocol: pairwise scores per aspect (answers, or contexts for context relevance)."""

    mode = Unit.Mode.RAGAS.value
    adjudication_levels = ("pairwise",)

    def answers(self, assignment: Assignment, payload: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"level": "pairwise", "item_id": assignment.unit_id, "aspect": aspect, "response_id": None,
                 "answer": str(oriented(score, *pair))}  # as every vote of the comparison is oriented
                for aspect, score, *pair in assignment.preferences.order_by("aspect").values_list(
                    "aspect", "score", *PAIR_FIELDS)]

    def context(self, level: str, item_ids: list[int]) -> dict[int, dict[str, Any]]:
        return pairwise_context(item_ids) if level == "pairwise" else {}
