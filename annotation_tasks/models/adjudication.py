"""Adjudicated labels: an expert's final label of one disputed item, with its provenance.

One row per target (a span, a QA, an atomic fact, or one aspect of a unit's pairwise comparison). Deciding the
same target again replaces the row's decision and appends the replaced one to `history` (with a `version`
count): exports and the report read exactly one current decision per target through a plain unique key, and
nothing is lost for an audit. The votes the expert saw and the majority at that moment are stored with the
decision, so a later vote (a late submission) never changes what the decision rested on.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation_tasks.models.content import QA, AnswerSpan, AtomicFact
from annotation_tasks.models.projects import Project
from annotation_tasks.models.work import Unit


class AdjudicatedLabel(models.Model):
    class Level(models.TextChoices):
        SPAN = "span"
        QA = "qa"
        FACT = "fact"
        PAIRWISE = "pairwise"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="adjudicated_labels")
    level = models.CharField(max_length=10, choices=Level.choices)
    span = models.ForeignKey(AnswerSpan, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    qa = models.ForeignKey(QA, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    fact = models.ForeignKey(AtomicFact, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    unit = models.ForeignKey(
        Unit, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications",
        help_text="The compared unit (pairwise level only).",
    )
    aspect = models.CharField(max_length=20, blank=True, help_text="The pairwise aspect (pairwise level only).")
    value = models.CharField(
        max_length=20, help_text="The label in the analysis's names: covered, supported, S / NS / IR, or 1..5."
    )
    reason = models.TextField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_by_name = models.CharField(
        max_length=150, blank=True,
        help_text="Who decided, as an imported file names them (no account here): exports write it back as decided_by.",
    )
    decided_at = models.DateTimeField()
    votes = models.JSONField(default=list, help_text="The counted votes the expert saw: assignment, worker, label.")
    majority = models.CharField(max_length=20, blank=True, help_text="The majority of those votes (tie rule applied).")
    version = models.PositiveIntegerField(default=1)
    history = models.JSONField(default=list, blank=True, help_text="Earlier decisions of this target, oldest first.")

    class Meta:
        ordering = ["project_id", "level", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(level="span", span__isnull=False, qa__isnull=True, fact__isnull=True, unit__isnull=True)
                    | Q(level="qa", span__isnull=True, qa__isnull=False, fact__isnull=True, unit__isnull=True)
                    | Q(level="fact", span__isnull=True, qa__isnull=True, fact__isnull=False, unit__isnull=True)
                    | (Q(level="pairwise", span__isnull=True, qa__isnull=True, fact__isnull=True, unit__isnull=False)
                       & ~Q(aspect=""))
                ),
                name="adjudication_exactly_one_target",
            ),
            models.UniqueConstraint(fields=["span"], condition=Q(span__isnull=False), name="one_adjudication_per_span"),
            models.UniqueConstraint(fields=["qa"], condition=Q(qa__isnull=False), name="one_adjudication_per_qa"),
            models.UniqueConstraint(fields=["fact"], condition=Q(fact__isnull=False), name="one_adjudication_per_fact"),
            models.UniqueConstraint(
                fields=["unit", "aspect"], condition=Q(unit__isnull=False), name="one_adjudication_per_unit_aspect"
            ),
        ]

    @classmethod
    def of_items(cls, level: str, item_ids: list[int]) -> dict[int, AdjudicatedLabel]:
        """{item id: current decision} of these span / QA / fact ids (the exporters' read, one query)."""
        if level not in ("span", "qa", "fact") or not item_ids:
            return {}
        rows = cls.objects.filter(level=level, **{f"{level}_id__in": item_ids}).select_related("decided_by")
        return {row.item_id: row for row in rows}

    @property
    def item_id(self) -> int:
        """The target's id within its level (the unit's for pairwise)."""
        return int({"span": self.span_id, "qa": self.qa_id, "fact": self.fact_id}.get(self.level) or self.unit_id)

    def provenance(self) -> dict:
        """Who decided what, when and why, and what the decision rested on: the exports' `adjudication`."""
        return {
            "label": self.value,
            "reason": self.reason,
            "decided_by": self.decided_by.get_username() if self.decided_by_id else (self.decided_by_name or None),
            "decided_at": self.decided_at.isoformat(),
            "version": self.version,
            "majority_at_decision": self.majority or None,
            "votes_at_decision": [v.get("label") for v in self.votes or [] if isinstance(v, dict)],
        }

    def __str__(self) -> str:
        return f"{self.level} {self.item_id}{'/' + self.aspect if self.aspect else ''}: {self.value}"
