"""Adjudicated labels: an expert's final label of one disputed item, with its provenance.

One row per target and level. The target is an item of one type (a span, a QA, an atomic fact, or one aspect of
a unit's comparison: exactly one of span / qa / fact / unit is set), and the level is any label level a protocol
declares over that item type (protocols.registry.vocabulary: "fact" and "entailment" both label facts), so a new
level over an existing item type needs no migration. Deciding the
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

TARGET_FIELDS: dict[str, str] = {"span": "span", "qa": "qa", "fact": "fact", "unit": "unit"}
"""Item type (protocols' LabelLevel.item_type) -> the target's foreign key."""


class AdjudicatedLabel(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="adjudicated_labels")
    level = models.CharField(max_length=30, help_text="A label level of the protocols (protocols.registry.vocabulary).")
    span = models.ForeignKey(AnswerSpan, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    qa = models.ForeignKey(QA, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    fact = models.ForeignKey(AtomicFact, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications")
    unit = models.ForeignKey(
        Unit, null=True, blank=True, on_delete=models.CASCADE, related_name="adjudications",
        help_text="The compared unit (a level over units: pairwise).",
    )
    aspect = models.CharField(max_length=20, blank=True, help_text="The compared aspect (a level over units only).")
    value = models.CharField(
        max_length=20, help_text="The label in the level's names (its protocol's vocabulary: covered, S / NS / IR, 1..5 ...)."
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
                    Q(span__isnull=False, qa__isnull=True, fact__isnull=True, unit__isnull=True)
                    | Q(span__isnull=True, qa__isnull=False, fact__isnull=True, unit__isnull=True)
                    | Q(span__isnull=True, qa__isnull=True, fact__isnull=False, unit__isnull=True)
                    | (Q(span__isnull=True, qa__isnull=True, fact__isnull=True, unit__isnull=False) & ~Q(aspect=""))
                ),
                name="adjudication_exactly_one_target",
            ),
            models.UniqueConstraint(fields=["level", "span"], condition=Q(span__isnull=False),
                                    name="one_adjudication_per_level_span"),
            models.UniqueConstraint(fields=["level", "qa"], condition=Q(qa__isnull=False),
                                    name="one_adjudication_per_level_qa"),
            models.UniqueConstraint(fields=["level", "fact"], condition=Q(fact__isnull=False),
                                    name="one_adjudication_per_level_fact"),
            models.UniqueConstraint(fields=["level", "unit", "aspect"], condition=Q(unit__isnull=False),
                                    name="one_adjudication_per_level_unit_aspect"),
        ]

    @classmethod
    def of_items(cls, level: str, item_ids: list[int], item_type: str | None = None) -> dict[int, AdjudicatedLabel]:
        """{item id: current decision} of these items of `level` (the exporters' read, one query). `item_type`
        names the target (span, qa, fact, unit); by default the level's own name when it is one."""
        field = TARGET_FIELDS.get(item_type or level)
        if field is None or not item_ids:
            return {}
        rows = cls.objects.filter(level=level, **{f"{field}_id__in": item_ids}).select_related("decided_by")
        return {row.item_id: row for row in rows}

    @property
    def item_id(self) -> int:
        """The target's id (the unit's for a comparison): whichever of span / qa / fact / unit is set."""
        return int(next(i for i in (self.span_id, self.qa_id, self.fact_id, self.unit_id) if i is not None))

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
