"""The validation pre-step's review companion: the expert's judgments, read from the raw submission."""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.protocols.review import ProtocolReview


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
