"""The judgements: one label per item per assignment, and gold labels for quality control.

Polarity is explicit in field names (covered, supported) so that formats with other polarities
(the QASemConsistency release: QA 1 = not supported, span 1 = covered) convert only at the edges.
"""
from __future__ import annotations

from django.db import models
from django.db.models import Q

from annotation_tasks.models.content import QA, AnswerSpan, AtomicFact, Response
from annotation_tasks.models.work import Assignment, Unit


class SpanLabel(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="span_labels")
    span = models.ForeignKey(AnswerSpan, on_delete=models.CASCADE, related_name="labels")
    covered = models.BooleanField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "span"], name="one_span_label_per_assignment")]


class QALabel(models.Model):
    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="qa_labels")
    qa = models.ForeignKey(QA, on_delete=models.CASCADE, related_name="labels")
    supported = models.BooleanField()
    derived_from_span = models.BooleanField(
        default=False, help_text="Not asked: the QA's answer span was marked not covered."
    )
    note = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "qa"], name="one_qa_label_per_assignment")]


class FactLabel(models.Model):
    class Value(models.TextChoices):
        SUPPORTED = "S", "Supported"
        NOT_SUPPORTED = "NS", "Not supported"
        IRRELEVANT = "IR", "Irrelevant"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="fact_labels")
    fact = models.ForeignKey(AtomicFact, on_delete=models.CASCADE, related_name="labels")
    label = models.CharField(max_length=2, choices=Value.choices)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "fact"], name="one_fact_label_per_assignment"),
            models.CheckConstraint(condition=Q(label__in=["S", "NS", "IR"]), name="fact_label_known_value"),
        ]


class EntailmentLabel(models.Model):
    """A 3-way entailment judgement of one atomic fact against the source (protocols/entailment), with the
    worker's optional rationale."""

    class Value(models.TextChoices):
        SUPPORTED = "supported", "Supported"
        CONTRADICTED = "contradicted", "Contradicted"
        NOT_ENOUGH_INFO = "not_enough_info", "Not enough info"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="entailment_labels")
    fact = models.ForeignKey(AtomicFact, on_delete=models.CASCADE, related_name="entailment_labels")
    label = models.CharField(max_length=20, choices=Value.choices)
    rationale = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "fact"], name="one_entailment_label_per_assignment"),
            models.CheckConstraint(condition=Q(label__in=["supported", "contradicted", "not_enough_info"]),
                                   name="entailment_label_known_value"),
        ]


class PairwisePreference(models.Model):
    """1 = A much better on the aspect ... 5 = B much better (3 = equal).

    A and B are two responses (consistency, faithfulness, relevance, answer_relevance), or for Ragas' context
    relevance two retrieved contexts of the unit's source, named by their index in `Source.passages`
    (context_a, context_b; the responses are then null). Indices rather than a JSON blob: the database checks
    that a row compares exactly one kind of pair, and frames read them as plain columns.
    """

    class Aspect(models.TextChoices):
        CONSISTENCY = "consistency"
        FAITHFULNESS = "faithfulness"
        RELEVANCE = "relevance"
        ANSWER_RELEVANCE = "answer_relevance"
        CONTEXT_RELEVANCE = "context_relevance"

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="preferences")
    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="preferences")
    response_a = models.ForeignKey(Response, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    response_b = models.ForeignKey(Response, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    context_a = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Index in the source's passages.")
    context_b = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Index in the source's passages.")
    aspect = models.CharField(max_length=20, choices=Aspect.choices, default=Aspect.CONSISTENCY)
    score = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "aspect"], name="one_preference_per_aspect"),
            models.CheckConstraint(condition=Q(score__gte=1, score__lte=5), name="preference_score_1_to_5"),
            models.CheckConstraint(
                condition=(
                    Q(response_a__isnull=False, response_b__isnull=False, context_a__isnull=True,
                      context_b__isnull=True)
                    | Q(response_a__isnull=True, response_b__isnull=True, context_a__isnull=False,
                        context_b__isnull=False)
                ),
                name="preference_two_responses_or_two_contexts",
            ),
        ]


class GoldLabel(models.Model):
    """A known answer for quality control: exactly one of span / qa / fact is set."""

    span = models.OneToOneField(AnswerSpan, null=True, blank=True, on_delete=models.CASCADE, related_name="gold")
    qa = models.OneToOneField(QA, null=True, blank=True, on_delete=models.CASCADE, related_name="gold")
    fact = models.OneToOneField(AtomicFact, null=True, blank=True, on_delete=models.CASCADE, related_name="gold")
    value = models.CharField(max_length=20, help_text="covered / not_covered, supported / not_supported, S / NS / IR")
    explanation = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(span__isnull=False, qa__isnull=True, fact__isnull=True)
                    | Q(span__isnull=True, qa__isnull=False, fact__isnull=True)
                    | Q(span__isnull=True, qa__isnull=True, fact__isnull=False)
                ),
                name="gold_label_exactly_one_target",
            )
        ]
