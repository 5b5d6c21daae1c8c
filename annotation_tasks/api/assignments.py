"""Assignments: researchers see their projects' assignments and approve / reject / bonus them; an annotator
sees only their own (the worker linked to their user), never anyone else's."""
from __future__ import annotations

from django.db.models import Q, QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from annotation_tasks.api.base import (
    pay_bonus_response,
    require_feedback_to_reject,
    researcher_project_ids,
    review_assignment,
)
from annotation_tasks.api.filters import FieldFilterBackend, WorkerSearchFilter, id_param
from annotation_tasks.api.pagination import Pagination
from annotation_tasks.api.permissions import is_researcher
from annotation_tasks.api.serializers import (
    AssignmentDecisionSerializer,
    AssignmentSerializer,
    BonusAmountSerializer,
    QualityDecisionSerializer,
)
from annotation_tasks.crowd import ProviderError
from annotation_tasks.models import Assignment, Source, Unit, Worker


class AssignmentMessageSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=2000)


class AssignmentSearchFilter(WorkerSearchFilter):
    """`?search=` as SearchFilter over `search_fields` (every term must match one of them, case-insensitively),
    written so a 10^5-row list need not join workers, users and sources for every row: the matching workers and
    sources are found first, once (their ids, or a subquery where there are over `CAP`), and only feedback that is
    there is compared (SearchFilter's joined OR read 3.4·10^5 rows through four joins: over half a second, issue 25).
    """

    CAP = 5000

    def filter_queryset(self, request, queryset, view):
        terms = self.get_search_terms(request)
        if not terms or request.query_params.get(self.search_param, "").strip().lower().startswith("w-"):
            return super().filter_queryset(request, queryset, view)  # nothing, or a pseudonym
        for term in terms:
            workers = Worker.objects.filter(Q(display_name__icontains=term) | Q(external_id__icontains=term)
                                            | Q(user__username__icontains=term))
            sources = Source.objects.filter(external_id__icontains=term)
            units = Unit.objects.filter(source_id__in=self._ids(sources))
            # three index paths (worker, unit, the partial index of assignments with feedback), no join
            queryset = queryset.filter(Q(worker_id__in=self._ids(workers)) | Q(unit_id__in=self._ids(units))
                                       | (~Q(feedback="") & Q(feedback__icontains=term)))
        return queryset

    def _ids(self, queryset: QuerySet) -> list[int] | QuerySet:
        ids = list(queryset.order_by().values_list("pk", flat=True)[: self.CAP + 1])
        return ids if len(ids) <= self.CAP else queryset.order_by().values("pk")


class AssignmentViewSet(viewsets.ReadOnlyModelViewSet):
    serializer_class = AssignmentSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = Pagination
    filter_backends = [FieldFilterBackend, AssignmentSearchFilter, OrderingFilter]
    # AssignmentSearchFilter reads these five as subqueries: a new field needs its line there
    search_fields = ["worker__display_name", "worker__external_id", "worker__user__username",
                     "unit__source__external_id", "feedback"]
    pseudonym_lookup = "worker_id"
    filter_fields = {
        "project": ("project_id", int),
        "batch": ("unit__batch_id", int),
        "unit": ("unit_id", int),
        "worker": ("worker_id", int),
        "status": ("status", str),
    }
    ordering_fields = ["id", "created_at", "submitted_at", "time_on_task_ms"]

    def get_queryset(self) -> QuerySet[Assignment]:
        user = self.request.user
        projects = researcher_project_ids(user)
        asked = self.request.query_params.get("project", "")
        if (asked_id := id_param(asked)) is not None and asked_id in projects:
            # one of the caller's projects: all its assignments, so "or my own" adds none; Assignment.project
            # (kept on the row) so the count and pages, by id or by status, are index scans with no join (issue 25)
            scope = Q(project_id=asked_id)
        else:
            mine = Q(worker__user=user) if user.is_authenticated else Q(pk__in=[])
            scope = Q(project_id__in=projects) | mine
        # no DISTINCT: every join here follows a foreign key (one row each), and a DISTINCT count over every
        # column of 10^5 assignments was most of a page (issue 25)
        return Assignment.objects.filter(scope).select_related("worker__user", "unit")

    def _reviewable(self) -> Assignment:
        assignment = self.get_object()
        if not is_researcher(self.request.user, assignment.unit.project):
            raise PermissionDenied("Only the project's researchers review assignments.")
        return assignment

    def _decide(self, request: Request, verb: str) -> Response:
        assignment = self._reviewable()
        payload = AssignmentDecisionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        from annotation_tasks.services import quality

        feedback = payload.validated_data["feedback"]
        require_feedback_to_reject(verb, feedback)
        try:
            review_assignment(assignment, verb, feedback, request.user)
        except (ProviderError, quality.QualityError) as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        assignment.refresh_from_db()
        return Response(AssignmentSerializer(assignment).data)

    @extend_schema(request=AssignmentDecisionSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        return self._decide(request, "approve")

    @extend_schema(request=AssignmentDecisionSerializer, responses=AssignmentSerializer)
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        return self._decide(request, "reject")

    @extend_schema(request=AssignmentMessageSerializer, responses=QualityDecisionSerializer)
    @action(detail=True, methods=["post"])
    def message(self, request: Request, pk: str | None = None) -> Response:
        """From the assignment review: send the worker a message listing this assignment's items where they
        differed from the adjudicated or expert label (services.feedback), through their provider; logged."""
        from annotation_tasks.api.workers import send_feedback

        assignment = self._reviewable()
        payload = AssignmentMessageSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        return send_feedback(assignment.worker, assignment.unit.project, payload.validated_data["text"], assignment)

    @extend_schema(request=BonusAmountSerializer, responses=QualityDecisionSerializer)
    @action(detail=True, methods=["post"])
    def bonus(self, request: Request, pk: str | None = None) -> Response:
        """Pay a bonus for this assignment (idempotent per request token on paying platforms)."""
        assignment = self._reviewable()
        payload = BonusAmountSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        return pay_bonus_response(assignment, payload.validated_data)
