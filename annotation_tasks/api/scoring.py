"""The dashboard's scoring card (services/scoring_panel.py), researchers of the project only.

GET  /api/projects/<id>/scoring/  the scorers (configured or not, and why), scores present, knowledge sources.
POST /api/projects/<id>/scoring/  {"scorer": name, "rescore": bool}: start a score Job (202, the Job to follow);
     an unknown or unconfigured scorer answers 400 at `scorer`. A knowledge source is uploaded through
     POST /api/projects/<id>/upload/ with format "knowledge" (an import Job).
"""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.base import researcher_project_or_404
from annotation_tasks.api.permissions import IsResearcherSomewhere
from annotation_tasks.api.serializers import JobSerializer
from annotation_tasks.services import scoring, scoring_panel


class ScoreRequestSerializer(serializers.Serializer):
    scorer = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
    rescore = serializers.BooleanField(required=False, default=False)


class ScoringView(APIView):
    permission_classes = [IsResearcherSomewhere]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="project_scoring")
    def get(self, request: Request, project_id: int) -> Response:
        """{scorers: [{name, configured, why, default}], default, scores, knowledge, facts_with_passages}."""
        return Response(scoring_panel.panel(researcher_project_or_404(request, project_id)))

    @extend_schema(request=ScoreRequestSerializer, responses={202: JobSerializer}, operation_id="project_score")
    def post(self, request: Request, project_id: int) -> Response:
        """Score every QA and fact not yet scored by this scorer and version (all of them with rescore)."""
        project = researcher_project_or_404(request, project_id)
        payload = ScoreRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        try:
            job = scoring.start_score_job(project, payload.validated_data["scorer"] or None,
                                          rescore=payload.validated_data["rescore"], user=request.user)
        except scoring.ScoringError as exc:
            raise ValidationError({"scorer": str(exc)}) from exc
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
