"""Shared view plumbing: every researcher resource is limited to the caller's researcher projects."""
from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.response import Response

from annotation_tasks.api.filters import FieldFilterBackend
from annotation_tasks.api.pagination import Pagination
from annotation_tasks.api.permissions import IsResearcherSomewhere, researcher_projects
from annotation_tasks.api.serializers import QualityDecisionSerializer
from annotation_tasks.crowd import ProviderError
from annotation_tasks.models import Assignment, Project


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
        return queryset.filter(**{f"{self.project_lookup}__in": researcher_project_ids(self.request.user)})  # type: ignore[attr-defined]


def researcher_project_ids(user) -> list[int]:
    """The ids of `researcher_projects(user)`, read once: a list filtered by these values lets the planner see the
    project, where `IN (subquery)` was a semi join checked again for every row of a 10^5-row count (issue 25)."""
    return list(researcher_projects(user).order_by().values_list("pk", flat=True))


def researcher_project_or_404(request, project_id: int | str) -> Project:
    return get_object_or_404(researcher_projects(request.user), pk=project_id)


def require_feedback_to_reject(verb: str, feedback: str) -> None:
    if verb == "reject" and not feedback:
        raise ValidationError({"feedback": "Say why: the worker sees this message."})


def review_assignment(assignment: Assignment, verb: str, feedback: str, user) -> None:
    """Approve or reject one assignment on the caller's behalf; provider and quality errors propagate."""
    from annotation_tasks.services import quality

    if verb == "approve":
        quality.approve(assignment, feedback=feedback, reason=f"approved by {user.get_username()}")
    else:
        quality.reject(assignment, feedback, reason=f"rejected by {user.get_username()}: {feedback}")


def pay_bonus_response(assignment: Assignment, data: dict) -> Response:
    """Pay a bonus (`amount`, `reason`, `key` of a validated payload) for `assignment`: the decision, or 400."""
    from annotation_tasks.services import quality

    try:
        decision = quality.pay_bonus(assignment, data["amount"], data["reason"], key=data["key"])
    except (ProviderError, quality.QualityError) as exc:
        raise ValidationError({"detail": str(exc)}) from exc
    return Response(QualityDecisionSerializer(decision).data)
