"""Shared view plumbing: every researcher resource is limited to the caller's researcher projects."""
from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from rest_framework.filters import OrderingFilter, SearchFilter

from annotation_tasks.api.filters import FieldFilterBackend
from annotation_tasks.api.pagination import Pagination
from annotation_tasks.api.permissions import IsResearcherSomewhere, researcher_projects
from annotation_tasks.models import Project


class ResearcherScopedMixin:
    """Limits `queryset` to rows whose `project_lookup` is one of the caller's researcher projects.

    Rows of other projects are simply absent, so their ids answer 404 and nothing leaks.
    """

    project_lookup: str = "project"
    permission_classes = [IsResearcherSomewhere]
    pagination_class = Pagination
    filter_backends = [FieldFilterBackend, SearchFilter, OrderingFilter]
    filter_fields: dict = {}

    def get_queryset(self) -> QuerySet:
        queryset = super().get_queryset()  # type: ignore[misc]
        return queryset.filter(**{f"{self.project_lookup}__in": researcher_projects(self.request.user)})  # type: ignore[attr-defined]


def researcher_project_or_404(request, project_id: int | str) -> Project:
    return get_object_or_404(researcher_projects(request.user), pk=project_id)
