"""Projects: CRUD, memberships, the monitor overview. Operations on a project's data (upload, parse, report,
export) live in operations.py; they are routed under /api/projects/<id>/ too."""
from __future__ import annotations

from django.db import IntegrityError, transaction
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.request import Request
from rest_framework.response import Response

from annotation_tasks.api.filters import FieldFilterBackend
from annotation_tasks.api.operations import ProjectOperationsMixin
from annotation_tasks.api.pagination import Pagination
from annotation_tasks.api.permissions import ProjectAccess, is_researcher, visible_projects
from annotation_tasks.api.serializers import (
    AnnotatorProjectSerializer,
    MembershipSerializer,
    ProjectSerializer,
)
from annotation_tasks.models import Project, ProjectMembership
from annotation_tasks.services import monitoring, projects
from annotation_tasks.services.tokens import INVITE_MAX_AGE_S, invite_token


def _name_taken_message() -> str:
    """The message of the serializer's own unique check on `name` (DRF's UniqueValidator), word for word."""
    field = Project._meta.get_field("name")
    return str(field.error_messages["unique"] % {
        "model_name": Project._meta.verbose_name, "field_label": field.verbose_name})


class ProjectViewSet(ProjectOperationsMixin, viewsets.ModelViewSet):
    """Projects the caller belongs to. Annotators see the task (name, protocol, instructions) only."""

    serializer_class = ProjectSerializer
    permission_classes = [ProjectAccess]
    pagination_class = Pagination
    filter_backends = [FieldFilterBackend, SearchFilter, OrderingFilter]
    filter_fields = {"role": ("memberships__role", str)}
    search_fields = ["name", "description"]
    ordering_fields = ["name", "created_at"]

    def get_queryset(self):
        return visible_projects(self.request.user).prefetch_related("memberships")

    def get_serializer_class(self):
        if self.action in ("list", "retrieve") and not self._is_researcher_view():
            return AnnotatorProjectSerializer
        return super().get_serializer_class()

    def _is_researcher_view(self) -> bool:
        """List: researcher fields only for superusers; detail: when the caller researches that project."""
        user = self.request.user
        if getattr(self, "swagger_fake_view", False) or user.is_superuser:
            return True
        if self.action == "retrieve":
            return is_researcher(user, self.get_object())
        return False

    def list(self, request: Request, *args, **kwargs) -> Response:
        """Each project is serialized for the caller's role in it (researcher or annotator)."""
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        rows = page if page is not None else list(queryset)
        data = []
        for project in rows:
            role = next((m.role for m in project.memberships.all() if m.user_id == request.user.id), "")
            cls = ProjectSerializer if (request.user.is_superuser or role == ProjectMembership.Role.RESEARCHER) else AnnotatorProjectSerializer
            data.append(cls(project, context=self.get_serializer_context()).data)
        return self.get_paginated_response(data) if page is not None else Response(data)

    def perform_create(self, serializer: ProjectSerializer) -> None:
        """The creator becomes the project's first researcher.

        The serializer's "already exists" check and the insert are not one step: two requests with the same name
        (a double click) can both pass the check, and the second insert then breaks the unique constraint. That
        is the same 400 on `name` as the check's, not a 500. The savepoint (atomic) is left before the error is
        handled, so the request's transaction stays usable."""
        try:
            with transaction.atomic():
                project = serializer.save()
                ProjectMembership.objects.create(
                    project=project, user=self.request.user, role=ProjectMembership.Role.RESEARCHER
                )
        except IntegrityError as exc:
            if not Project.objects.filter(name=serializer.validated_data.get("name")).exists():
                raise  # another constraint: not a name taken meanwhile
            raise serializers.ValidationError({"name": [_name_taken_message()]}) from exc

    @extend_schema(request=MembershipSerializer, responses=MembershipSerializer(many=True))
    @action(detail=True, methods=["get", "post"], serializer_class=MembershipSerializer, pagination_class=None)
    def members(self, request: Request, pk: str | None = None) -> Response:
        """List members, or add / change one (POST {username, role}); a change that would leave the project without
        a researcher is a 400 on `role` (services.projects.add_member)."""
        project = self.get_object()
        if request.method == "POST":
            serializer = MembershipSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            try:
                projects.add_member(project, serializer.validated_data["user"], serializer.validated_data["role"])
            except projects.LastResearcher as exc:
                raise serializers.ValidationError({exc.field: [exc.message]}) from exc
        memberships = project.memberships.select_related("user").order_by("user__username")
        code = status.HTTP_201_CREATED if request.method == "POST" else status.HTTP_200_OK
        return Response(MembershipSerializer(memberships, many=True).data, status=code)

    @extend_schema(responses={200: {"type": "object", "additionalProperties": True}})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def overview(self, request: Request, pk: str | None = None) -> Response:
        """Counts by status, time on task and running jobs: the monitor screen's header."""
        return Response(monitoring.project_overview(self.get_object()))

    @extend_schema(responses=inline_serializer("ExportFormats", {
        "unavailable": serializers.DictField(child=serializers.CharField())}))
    @action(detail=True, methods=["get"], url_path="export-formats", pagination_class=None, filter_backends=[])
    def export_formats(self, request: Request, pk: str | None = None) -> Response:
        """The export formats that have nothing to export in this project, each with why (the Exports tab shows
        the reason instead of a button that answers 400)."""
        from annotation_tasks.services import exports

        return Response({"unavailable": exports.unavailable_formats(self.get_object())})

    @extend_schema(
        request=None,
        responses=inline_serializer("InviteLink", {"url": serializers.URLField(), "expires_in_days": serializers.IntegerField()}),
    )
    @action(detail=True, methods=["post"], url_path="invite-link", pagination_class=None, filter_backends=[])
    def invite_link(self, request: Request, pk: str | None = None) -> Response:
        """A signed invite link: whoever opens it joins the project as an annotator (an account is made for them
        if they have none) and lands on the next-unit page. Researchers only; it expires after 30 days."""
        project = self.get_object()
        url = request.build_absolute_uri(reverse("invite", kwargs={"token": invite_token(project)}))
        return Response({"url": url, "expires_in_days": INVITE_MAX_AGE_S // 86400})
