"""The data model of the whole annotation process, split by concern.

- projects: Project, ProjectMembership, Job (background import/parse/export with progress)
- content:  Source, Response, Predicate, QA, AnswerSpan, AtomicFact (what is judged)
- work:     Worker, Batch, Unit, UnitResponse, Assignment, QualityDecision, WorkerProjectStatus (who judges what)
- labels:   SpanLabel, QALabel, FactLabel, PairwisePreference, GoldLabel (the judgements)
- scores:   ItemScore (automatic scores), KnowledgeSource, Passage, RetrievedPassage (evidence for facts)
- campaigns: Campaign, CampaignLabel (past campaigns' free-form labels, analysis only)
- crowd:    PlaceSession (a participant's place in a batch study), WebhookEvent, WebhookSecret (platform events)
- adjudication: AdjudicatedLabel (an expert's final label of a disputed item, with provenance)
"""
from annotation_tasks.models.adjudication import AdjudicatedLabel
from annotation_tasks.models.campaigns import Campaign, CampaignLabel
from annotation_tasks.models.content import QA, AnswerSpan, AtomicFact, Predicate, QAEdit, Response, Source
from annotation_tasks.models.crowd import PlaceSession, WebhookEvent, WebhookSecret
from annotation_tasks.models.labels import FactLabel, GoldLabel, PairwisePreference, QALabel, SpanLabel
from annotation_tasks.models.metrics import WorkerMetricsSnapshot
from annotation_tasks.models.projects import Job, Project, ProjectMembership
from annotation_tasks.models.scores import ItemScore, KnowledgeSource, Passage, RetrievedPassage
from annotation_tasks.models.work import (
    Assignment,
    Batch,
    QualityDecision,
    Unit,
    UnitResponse,
    Worker,
    WorkerProjectStatus,
)

__all__ = [
    "AdjudicatedLabel",
    "AnswerSpan",
    "Assignment",
    "AtomicFact",
    "Batch",
    "Campaign",
    "CampaignLabel",
    "FactLabel",
    "GoldLabel",
    "ItemScore",
    "Job",
    "KnowledgeSource",
    "PairwisePreference",
    "Passage",
    "PlaceSession",
    "Predicate",
    "Project",
    "ProjectMembership",
    "QA",
    "QAEdit",
    "QALabel",
    "QualityDecision",
    "Response",
    "RetrievedPassage",
    "Source",
    "SpanLabel",
    "Unit",
    "UnitResponse",
    "WebhookEvent",
    "WebhookSecret",
    "Worker",
    "WorkerMetricsSnapshot",
    "WorkerProjectStatus",
]
