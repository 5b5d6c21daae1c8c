"""The workers table: who worked on the caller's projects, with per-project quality numbers, and the
quality-control actions taken from it (approve / reject submitted work, bonus, block / unblock)."""
from __future__ import annotations

from decimal import Decimal

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.request import Request
from rest_framework.response import Response

from annotation_tasks.api.base import (
    ResearcherScopedMixin,
    pay_bonus_response,
    require_feedback_to_reject,
    researcher_project_or_404,
    review_assignment,
)
from annotation_tasks.api.filters import FieldFilterBackend, WorkerSearchFilter, id_param
from annotation_tasks.api.permissions import researcher_projects
from annotation_tasks.api.serializers import (
    BlockSerializer,
    QualityDecisionSerializer,
    WorkerSerializer,
)
from annotation_tasks.crowd import ProviderError
from annotation_tasks.models import Assignment, QualityDecision, Worker, WorkerProjectStatus


class WorkerActionSerializer(serializers.Serializer):
    project = serializers.IntegerField(help_text="The project whose submitted work is reviewed.")
    feedback = serializers.CharField(required=False, allow_blank=True, default="")


class WorkerBonusSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField()
    key = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                help_text="Makes a second bonus of the same amount a new one (else a retry).")


class WorkerMessageSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    text = serializers.CharField(max_length=2000, help_text="Your message; the items where the worker differed from "
                                                             "the adjudicated or expert label are listed after it.")
    assignment = serializers.IntegerField(required=False, allow_null=True, default=None,
                                          help_text="Only this assignment's items (else all their counted work).")


def send_feedback(worker: Worker, project, text: str, assignment: Assignment | None) -> Response:
    """services.feedback.send as an API answer: the logged decision, or a located 400."""
    from annotation_tasks.services import feedback

    try:
        decision = feedback.send(worker, project, text, assignment=assignment)
    except feedback.FeedbackError as exc:
        raise ValidationError({"text" if str(exc).startswith("text") else "detail": str(exc)}) from exc
    return Response(QualityDecisionSerializer(decision).data)


@extend_schema_view(list=extend_schema(parameters=[
    OpenApiParameter("project", int, required=False, description="Workers of this project, with its metrics."),
    OpenApiParameter("status", str, required=False, description="The worker's status in the project(s)."),
]))
class WorkerViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Workers with an assignment in one of the caller's projects; `?project=` adds that project's metrics, read
    for the page's workers from the kept figures (services.worker_metrics), with `metrics_state` saying how current."""

    queryset = Worker.objects.select_related("user").order_by("id")
    serializer_class = WorkerSerializer
    filter_fields = {"provider": ("provider", str)}
    filter_backends = [FieldFilterBackend, WorkerSearchFilter, OrderingFilter]
    search_fields = ["display_name", "external_id", "user__username"]
    pseudonym_lookup = "pk"
    ordering_fields = ["id", "external_id", "status"]

    def get_queryset(self) -> QuerySet[Worker]:
        # workers with an assignment in the caller's projects (or in ?project=): a semi-join on assignments,
        # not a join and DISTINCT over every assignment of a 10^5-unit project
        projects = researcher_projects(self.request.user)
        project_id = self.request.query_params.get("project", "")
        if project_id:
            if id_param(project_id) is None:
                raise ValidationError({"project": f"not a valid integer: {project_id!r}"})
            projects = projects.filter(pk=id_param(project_id))
        worked = Assignment.objects.filter(unit__project__in=projects).order_by().values("worker_id")
        queryset = Worker.objects.select_related("user").order_by("id").filter(pk__in=worked)
        status = self.request.query_params.get("status")
        if status and self.action == "list":
            # a status is a project's (WorkerProjectStatus): ?project= names it, else any of the caller's projects
            if status not in Worker.Status.values:
                raise ValidationError({"status": f"one of {', '.join(Worker.Status.values)}"})
            projects = researcher_projects(self.request.user)
            project_id = self.request.query_params.get("project", "")
            if id_param(project_id) is not None:
                projects = projects.filter(pk=id_param(project_id))
            decided = WorkerProjectStatus.objects.filter(project__in=projects).exclude(status=Worker.Status.ACTIVE)
            if status == Worker.Status.ACTIVE:
                queryset = queryset.exclude(pk__in=decided.values("worker_id"))
            else:
                queryset = queryset.filter(pk__in=decided.filter(status=status).values("worker_id"))
        return queryset

    def paginate_queryset(self, queryset):  # type: ignore[override]
        """The page, remembered: its workers' metrics are computed for them only (get_serializer_context)."""
        self._page = super().paginate_queryset(queryset)
        return self._page

    def _shown_workers(self) -> list[int] | None:
        page = getattr(self, "_page", None)
        if page is not None:
            return [w.pk for w in page]
        pk = self.kwargs.get("pk")
        shown = id_param(str(pk)) if pk else None
        return [shown] if shown is not None else None

    def get_paginated_response(self, data):
        """The page, and with ?project= how current its figures are ({computed_at, stale, pending})."""
        response = super().get_paginated_response(data)
        state = getattr(self, "_metrics_state", None)
        if state is not None and isinstance(response.data, dict):
            response.data["metrics_state"] = state
        return response

    def get_serializer_context(self) -> dict:
        context = super().get_serializer_context()
        project_id = self.request.query_params.get("project")
        if id_param(project_id) is not None:
            project = researcher_projects(self.request.user).filter(pk=id_param(project_id)).first()
            if project is not None:
                from annotation_tasks.services import worker_metrics

                context["project_id"] = project.pk  # workers are named by their pseudonym in this project
                shown = self._shown_workers() or []
                context["standing"] = {
                    w: (s, q or {}) for w, s, q in WorkerProjectStatus.objects.filter(
                        project=project, worker_id__in=shown).values_list("worker_id", "status", "qualifications")
                }
                # the page's kept figures (services.worker_metrics: an indexed read; a large project's are
                # recomputed in the background when its data changed); the status in them is today's
                kept = worker_metrics.page(project, shown)
                self._metrics_state = kept.describe()
                context["metrics"] = {
                    w: {**figures, "status": context["standing"].get(w, (Worker.Status.ACTIVE, {}))[0]}
                    for w, figures in kept.metrics.items()
                }
        return context

    def _submitted(self, worker: Worker, project_id: int) -> QuerySet[Assignment]:
        project = researcher_project_or_404(self.request, project_id)
        return worker.assignments.filter(unit__project=project, status=Assignment.Status.SUBMITTED)

    def _review_all(self, request: Request, verb: str) -> Response:
        worker = self.get_object()
        payload = WorkerActionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        feedback = payload.validated_data["feedback"]
        require_feedback_to_reject(verb, feedback)
        from annotation_tasks.services import quality

        done = 0
        for assignment in self._submitted(worker, payload.validated_data["project"]):
            try:
                review_assignment(assignment, verb, feedback, request.user)
            except (ProviderError, quality.QualityError) as exc:
                raise ValidationError({"detail": f"assignment {assignment.pk}: {exc}", "done": done}) from exc
            done += 1
        return Response({"worker": worker.pk, "action": verb, "assignments": done})

    @extend_schema(request=WorkerActionSerializer, responses={200: {"type": "object", "additionalProperties": True}})
    @action(detail=True, methods=["post"])
    def approve(self, request: Request, pk: str | None = None) -> Response:
        """Approve all of the worker's submitted assignments in the project."""
        return self._review_all(request, QualityDecision.Action.APPROVE)

    @extend_schema(request=WorkerActionSerializer, responses={200: {"type": "object", "additionalProperties": True}})
    @action(detail=True, methods=["post"])
    def reject(self, request: Request, pk: str | None = None) -> Response:
        """Reject all of the worker's submitted assignments in the project (feedback required)."""
        return self._review_all(request, QualityDecision.Action.REJECT)

    @extend_schema(request=WorkerBonusSerializer, responses=QualityDecisionSerializer)
    @action(detail=True, methods=["post"])
    def bonus(self, request: Request, pk: str | None = None) -> Response:
        """Bonus the worker for their latest finished assignment in the project."""
        worker = self.get_object()
        payload = WorkerBonusSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        project = researcher_project_or_404(request, payload.validated_data["project"])
        assignment = (
            worker.assignments.filter(unit__project=project, status__in=Assignment.Status.done())
            .order_by("-submitted_at", "-id")
            .first()
        )
        if assignment is None:
            raise ValidationError({"detail": "The worker has no finished assignment in this project."})
        return pay_bonus_response(assignment, payload.validated_data)

    def _block(self, request: Request, verb: str) -> Response:
        worker = self.get_object()
        payload = BlockSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        project = researcher_project_or_404(request, payload.validated_data["project"])
        if not worker.assignments.filter(unit__project=project).exists():
            raise NotFound("This worker has not worked on that project.")
        from annotation_tasks.services import quality

        try:  # the block applies in this project only: the worker row is shared with other researchers
            options = {"platform": payload.validated_data["platform"]} if verb == QualityDecision.Action.BLOCK else {}
            getattr(quality, verb)(worker, payload.validated_data["reason"], project=project, **options)
        except (ProviderError, quality.QualityError) as exc:
            raise ValidationError({"detail": str(exc)}) from exc
        worker.refresh_from_db()
        standing = quality.standing(worker, project)
        context = {**self.get_serializer_context(), "standing": {worker.pk: (standing.status, standing.qualifications)}}
        return Response(WorkerSerializer(worker, context=context).data)

    @extend_schema(request=BlockSerializer, responses=WorkerSerializer)
    @action(detail=True, methods=["post"])
    def block(self, request: Request, pk: str | None = None) -> Response:
        return self._block(request, QualityDecision.Action.BLOCK)

    @extend_schema(request=BlockSerializer, responses=WorkerSerializer)
    @action(detail=True, methods=["post"])
    def unblock(self, request: Request, pk: str | None = None) -> Response:
        return self._block(request, QualityDecision.Action.UNBLOCK)

    @extend_schema(request=WorkerMessageSerializer, responses=QualityDecisionSerializer)
    @action(detail=True, methods=["post"])
    def message(self, request: Request, pk: str | None = None) -> Response:
        """Send the worker personal feedback through their provider (Prolific Messages, MTurk NotifyWorkers; local
        workers read it on their queue page), listing the items where they differed; logged as a decision."""
        worker = self.get_object()
        payload = WorkerMessageSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        project = researcher_project_or_404(request, payload.validated_data["project"])
        if not worker.assignments.filter(unit__project=project).exists():
            raise NotFound("This worker has not worked on that project.")
        assignment = None
        if payload.validated_data["assignment"] is not None:
            assignment = worker.assignments.filter(unit__project=project, pk=payload.validated_data["assignment"]).first()
            if assignment is None:
                raise ValidationError({"assignment": "not this worker's assignment in this project"})
        return send_feedback(worker, project, payload.validated_data["text"], assignment)

    @extend_schema(responses={200: {"type": "object", "additionalProperties": True}}, parameters=[
        OpenApiParameter("project", int, required=True),
        OpenApiParameter("block", int, required=False, description="Units per block (default 10)."),
    ])
    @action(detail=True, methods=["get"], filter_backends=[], url_path="learning-curve", url_name="learning-curve")
    def learning_curve(self, request: Request, pk: str | None = None) -> Response:
        """The worker's accuracy against gold and adjudicated labels per block of units, in submission order."""
        from annotation_tasks.services import feedback

        worker = self.get_object()
        project_id, block = request.query_params.get("project", ""), request.query_params.get("block", "10")
        if id_param(project_id) is None:
            raise ValidationError({"project": "must be a project id"})
        if id_param(block) is None or not 1 <= int(block) <= 1000:
            raise ValidationError({"block": "must be a whole number from 1 to 1000"})
        project = researcher_project_or_404(request, project_id)
        return Response({"worker": worker.pk, "project": project.pk, "block": int(block),
                         "curve": feedback.learning_curve(worker, project, int(block))})

    @extend_schema(responses=QualityDecisionSerializer(many=True), parameters=[
        OpenApiParameter("action", str, required=False, description="Filter by action (approve, block...)."),
        OpenApiParameter("project", int, required=False, description="Only this project's decisions."),
    ])
    @action(detail=True, methods=["get"], filter_backends=[], url_path="decisions", url_name="decisions")
    def decisions(self, request: Request, pk: str | None = None) -> Response:
        """The worker's logged quality decisions in the caller's projects, newest first (paginated; ?action= and
        ?project= filter). Decisions other researchers took about the same worker are theirs alone."""
        worker = self.get_object()
        rows = QualityDecision.objects.filter(worker=worker, project__in=researcher_projects(request.user))
        rows = rows.order_by("-created_at", "-id")
        if request.query_params.get("project"):
            if id_param(request.query_params["project"]) is None:
                raise ValidationError({"project": "must be a project id"})
            rows = rows.filter(project=researcher_project_or_404(request, request.query_params["project"]))
        if request.query_params.get("action"):
            rows = rows.filter(action=request.query_params["action"])
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(QualityDecisionSerializer(page, many=True).data)
