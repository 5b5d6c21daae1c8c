"""API routes. Each concern registers its views here."""
from django.urls import include, path  # noqa: F401
from rest_framework.routers import DefaultRouter

from annotation_tasks.api.assignments import AssignmentViewSet
from annotation_tasks.api.auth import ObtainExpiringToken
from annotation_tasks.api.batches import BatchViewSet, UnitViewSet
from annotation_tasks.api.content import (
    AnswerSpanViewSet,
    AtomicFactViewSet,
    PredicateViewSet,
    QAViewSet,
    ResponseViewSet,
    SourceViewSet,
)
from annotation_tasks.api.design import DesignView
from annotation_tasks.api.fact_validation import FactDecisionView, FactValidationView
from annotation_tasks.api.jobs import JobViewSet
from annotation_tasks.api.projects import ProjectViewSet
from annotation_tasks.api.protocols import ProtocolsView
from annotation_tasks.api.review import (
    AdjudicationQueueView,
    AdjudicationsView,
    AssignmentReviewView,
    WorkerReviewView,
)
from annotation_tasks.api.scoring import ScoringView
from annotation_tasks.api.training import TrainingView
from annotation_tasks.api.work_views import DraftView, NextUnitView, SubmitView, UnitView
from annotation_tasks.api.workers import WorkerViewSet

# Researcher API (dashboard): one router; list endpoints filter with ?project= and friends.
router = DefaultRouter()
router.register("projects", ProjectViewSet, basename="project")
router.register("sources", SourceViewSet, basename="source")
router.register("responses", ResponseViewSet, basename="response")
router.register("predicates", PredicateViewSet, basename="predicate")
router.register("qas", QAViewSet, basename="qa")
router.register("spans", AnswerSpanViewSet, basename="span")
router.register("facts", AtomicFactViewSet, basename="fact")
router.register("batches", BatchViewSet, basename="batch")
router.register("units", UnitViewSet, basename="unit")
router.register("assignments", AssignmentViewSet, basename="assignment")
router.register("workers", WorkerViewSet, basename="worker")
router.register("jobs", JobViewSet, basename="job")

urlpatterns: list = [
    # The annotator element's API (docs/annotator-api.md), authorized by the per-assignment token.
    path("work/next", NextUnitView.as_view(), name="work-next"),
    path("work/<str:token>/unit", UnitView.as_view(), name="work-unit"),
    path("work/<str:token>/draft", DraftView.as_view(), name="work-draft"),
    path("work/<str:token>/submit", SubmitView.as_view(), name="work-submit"),
    # Researchers' scripts: POST {username, password} → {token, expires_at}; send "Authorization: Token <token>".
    path("auth/token/", ObtainExpiringToken.as_view(), name="api-token"),
    # Review and adjudication (api/review.py): researchers of the project only.
    path("assignments/<int:pk>/review/", AssignmentReviewView.as_view(), name="assignment-review"),
    path("projects/<int:project_id>/workers/<int:worker_id>/review/", WorkerReviewView.as_view(), name="worker-review"),
    path("projects/<int:project_id>/adjudication/queue/", AdjudicationQueueView.as_view(), name="adjudication-queue"),
    path("projects/<int:project_id>/adjudications/", AdjudicationsView.as_view(), name="adjudications"),
    # Study design to a target interval width (api/design.py), for the batch screen before publishing.
    path("projects/<int:project_id>/design", DesignView.as_view(), name="project-design"),
    # Expert fact validation (api/fact_validation.py): the model facts to keep / fix / split / drop.
    path("projects/<int:project_id>/fact-validation/", FactValidationView.as_view(), name="fact-validation"),
    path("projects/<int:project_id>/fact-validation/<int:fact_id>/", FactDecisionView.as_view(),
         name="fact-validation-decide"),
    # Automatic scoring from the dashboard (api/scoring.py): scorers, scores present, start a score Job.
    path("projects/<int:project_id>/scoring/", ScoringView.as_view(), name="project-scoring"),
    # Training units, expert labels and the pass mark (api/training.py); who passed.
    path("projects/<int:project_id>/training/", TrainingView.as_view(), name="project-training"),
    # The protocols' manifest (api/protocols.py): what the dashboard offers per protocol.
    path("protocols/", ProtocolsView.as_view(), name="protocols"),
    path("", include(router.urls)),
]
