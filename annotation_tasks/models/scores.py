"""Automatic scores of judged items, and the knowledge they were checked against.

- ItemScore: one score in [0, 1] of a QA or an atomic fact by one scorer at one version. Versions sit side
  by side (a retrained model, another prompt), so a meta-evaluation always names what it evaluated.
- KnowledgeSource, Passage: a corpus a researcher brings (JSONL of {title, text}, FActScore's format), cut into
  passages for retrieval.
- RetrievedPassage: which passages were retrieved for a fact, in rank order: the evidence the scorers saw and
  the annotators' reference panel shows (FActScore's retrieve-then-verify), kept so both can be checked later.
"""
from __future__ import annotations

from django.db import models
from django.db.models import Q

from annotation_tasks.models.content import QA, AtomicFact
from annotation_tasks.models.projects import Project


class ItemScore(models.Model):
    """Exactly one of qa / fact is set."""

    qa = models.ForeignKey(QA, null=True, blank=True, on_delete=models.CASCADE, related_name="scores")
    fact = models.ForeignKey(AtomicFact, null=True, blank=True, on_delete=models.CASCADE, related_name="scores")
    scorer = models.CharField(max_length=40)
    version = models.CharField(max_length=120, help_text="Coefficients digest, model directory, prompt digest ...")
    score = models.FloatField(help_text="Probability that the item is supported by its reference.")
    evidence = models.JSONField(default=dict, blank=True, help_text="What the score rests on (features, reply).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["scorer", "version"], name="item_score_scorer_version")]
        constraints = [
            models.CheckConstraint(
                condition=Q(qa__isnull=False, fact__isnull=True) | Q(qa__isnull=True, fact__isnull=False),
                name="item_score_exactly_one_target",
            ),
            models.CheckConstraint(condition=Q(score__gte=0.0, score__lte=1.0), name="item_score_in_unit_interval"),
            models.UniqueConstraint(
                fields=["qa", "scorer", "version"], condition=Q(qa__isnull=False), name="one_score_per_qa_version"
            ),
            models.UniqueConstraint(
                fields=["fact", "scorer", "version"], condition=Q(fact__isnull=False), name="one_score_per_fact_version"
            ),
        ]


class KnowledgeSource(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="knowledge_sources")
    name = models.CharField(max_length=200)
    file_name = models.CharField(max_length=255, blank=True)
    passage_words = models.PositiveIntegerField(default=256, help_text="Passage length the corpus was cut to.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_knowledge_source_name")]

    def __str__(self) -> str:
        return self.name


class Passage(models.Model):
    knowledge = models.ForeignKey(KnowledgeSource, on_delete=models.CASCADE, related_name="passages")
    title = models.CharField(max_length=500, db_index=True)
    text = models.TextField()
    order = models.PositiveIntegerField(default=0, help_text="Position of the passage within its document.")

    class Meta:
        ordering = ["knowledge_id", "title", "order"]


class RetrievedPassage(models.Model):
    fact = models.ForeignKey(AtomicFact, on_delete=models.CASCADE, related_name="retrieved_passages")
    passage = models.ForeignKey(Passage, on_delete=models.CASCADE, related_name="retrievals")
    rank = models.PositiveSmallIntegerField()
    score = models.FloatField(help_text="BM25 score of the passage for the fact.")
    retriever = models.CharField(max_length=60)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["fact_id", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["fact", "retriever", "rank"], name="one_passage_per_fact_rank"),
        ]
