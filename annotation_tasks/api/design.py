"""GET /api/projects/<id>/design?target_ci=W[&metric=&budget=&level=&...]: the study design the batch screen shows
before publishing (services/design.py; researchers of the project only, bad parameters answer 400 by name)."""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.permissions import is_researcher, visible_projects
from annotation_tasks.services.design import DesignError, design_from_params


class DesignView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="project_design", parameters=[
        OpenApiParameter("target_ci", float, required=True, description="95% interval width to reach"),
        OpenApiParameter("metric", str, required=False, description="kappa (default), alpha, consistency, factscore"),
        OpenApiParameter("budget", float, required=False), OpenApiParameter("level", str, required=False),
        OpenApiParameter("seconds_per_label", float, required=False),
        OpenApiParameter("pay_per_hour", float, required=False),
        OpenApiParameter("prior_supported", float, required=False),
        OpenApiParameter("prior_kappa", float, required=False),
    ])
    def get(self, request: Request, project_id: int) -> Response:
        """annotators_per_item, items, labels, hours, cost and simulated_coverage for the target width."""
        project = get_object_or_404(visible_projects(request.user), pk=project_id)
        if not is_researcher(request.user, project):
            raise PermissionDenied("Only the project's researchers plan its studies.")
        try:
            return Response(design_from_params(project, request.query_params))
        except DesignError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from exc
