"""FActScore's review companion: each model fact kept, edited or deleted and each human fact, with the
sentence and author an adjudicator reads (protocols/review.py)."""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Assignment, AtomicFact, Unit
from annotation_tasks.protocols.review import ProtocolReview, display_of, response_part


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
            display = display_of(f.response)
            out[f.pk] = {
                **response_part(f.response, display), "text": f.text, "sentence_index": f.sentence_index,
                "sentence": display.sentence(sentence) if isinstance(sentence, dict) else "",
                "origin": "human" if author is not None else f.kind,
                "edited_from": [{"id": e.pk, "text": e.text} for e in f.edited_from.all()],
                "written_by_assignment": author.pk if author is not None else None,
                "written_by_worker": author.worker_id if author is not None else None,
            }
        return out
