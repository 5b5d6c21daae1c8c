"""Review and adjudication for the project's researchers: one assignment as its worker saw and answered it, one
worker's assignments, the adjudication queue, and deciding an item's final label.

Thin views over services/review.py and services/adjudication.py. A project the caller does not belong to (and
its assignments and workers) answers 404; a member who is not one of its researchers (an annotator) gets 403.
Bad input answers 400 with the offending field named ({"item_id": ["not a QA of this project"]}).
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.permissions import is_researcher, visible_projects
from annotation_tasks.models import Assignment, Project, Worker
from annotation_tasks.services import adjudication, review

OBJECT = {200: OpenApiTypes.OBJECT}


def _researcher_project(request: Request, project_id: int) -> Project:
    project = get_object_or_404(visible_projects(request.user), pk=project_id)
    if not is_researcher(request.user, project):
        raise PermissionDenied("Only the project's researchers review and adjudicate its work.")
    return project


def _refused(exc: adjudication.AdjudicationError) -> ValidationError:
    detail: dict[str, list[str]] = {}
    for error in exc.errors:
        detail.setdefault(error["field"] or "non_field_errors", []).append(error["message"])
    return ValidationError(detail)


class DecisionRequestSerializer(serializers.Serializer):
    """The body of a decision (documentation: the service checks it and names each wrong field)."""

    level = serializers.ChoiceField(choices=["span", "qa", "fact", "pairwise"])
    item_id = serializers.IntegerField(help_text="The span, QA or fact id; the unit id for pairwise.")
    aspect = serializers.CharField(required=False, help_text="Pairwise only: consistency, faithfulness, relevance.")
    label = serializers.CharField(help_text="covered / not_covered, supported / not_supported, S / NS / IR, 1..5.")
    reason = serializers.CharField(required=False, allow_blank=True, help_text="Why (optional).")


class AssignmentReviewView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OBJECT, operation_id="assignment_review")
    def get(self, request: Request, pk: int) -> Response:
        """What the worker saw (payload and `shown` record) and answered, item by item, with gold checks, the
        other workers' votes, time on task and notes."""
        assignment = get_object_or_404(
            Assignment.objects.select_related("unit__project", "unit__source", "worker"),
            pk=pk, unit__project__in=visible_projects(request.user),
        )
        _researcher_project(request, assignment.unit.project_id)
        return Response(review.assignment_review(assignment))


class WorkerReviewView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OBJECT, operation_id="project_worker_review")
    def get(self, request: Request, project_id: int, worker_id: int) -> Response:
        """The worker's assignments in the project with per-assignment agreement, gold accuracy and time."""
        project = _researcher_project(request, project_id)
        worker = get_object_or_404(Worker.objects.select_related("user").filter(assignments__unit__project=project)
                                   .distinct(), pk=worker_id)
        from annotation_tasks.services import feedback, training

        data = review.worker_review(project, worker)
        # attention checks (gold in main units) with the thresholds' verdict, the training result, and the
        # learning curve by blocks of 10 units (issue 24 items 5, 4, 6)
        data["attention_checks"] = feedback.attention_checks(project, [worker.pk]).get(worker.pk)
        data["training"] = training.result_of(worker, project.pk)
        data["learning_curve"] = feedback.learning_curve(worker, project)
        return Response(data)


class AdjudicationQueueView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OBJECT, operation_id="project_adjudication_queue", parameters=[
        OpenApiParameter("level", str, required=False, description="span, qa, fact or pairwise"),
        OpenApiParameter("include_agreed", bool, required=False, description="Also items everyone agrees on."),
        OpenApiParameter("decided", bool, required=False, description="true: adjudicated only; false: open only."),
        OpenApiParameter("limit", int, required=False), OpenApiParameter("offset", int, required=False),
        OpenApiParameter("summary", bool, required=False, description="true: counts and agreement, no rows."),
        OpenApiParameter("scorer", str, required=False, description="A scorer with scores in the project: only the "
                         "items where its verdict and the crowd's majority differ, most confident first."),
    ])
    def get(self, request: Request, project_id: int) -> Response:
        """Items most disputed first (votes against gold where gold exists, else the minority share), each
        with every vote and its worker, the majority, gold, the item's context and any decision."""
        project = _researcher_project(request, project_id)
        try:
            return Response(adjudication.queue(project, request.query_params))
        except adjudication.AdjudicationError as exc:
            raise _refused(exc) from exc


class AdjudicationsView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OBJECT, operation_id="project_adjudications_list")
    def get(self, request: Request, project_id: int) -> Response:
        """Every current decision with its provenance and history."""
        project = _researcher_project(request, project_id)
        return Response({"results": adjudication.decisions(project)})

    @extend_schema(request=DecisionRequestSerializer, responses={201: OpenApiTypes.OBJECT},
                   operation_id="project_adjudications_decide")
    def post(self, request: Request, project_id: int) -> Response:
        """Decide an item's final label with a reason; deciding it again replaces it (the old one is kept in
        `history`)."""
        project = _researcher_project(request, project_id)
        try:
            adj = adjudication.decide(project, request.data, request.user)
        except adjudication.AdjudicationError as exc:
            raise _refused(exc) from exc
        row = next(r for r in adjudication.decisions(project) if r["id"] == adj.pk)
        return Response(row, status=status.HTTP_201_CREATED)
