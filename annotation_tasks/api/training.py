"""Training units and the pass mark (services/training.py), researchers of the project only.

GET  /api/projects/<id>/training/  {pass_mark, units: [training unit ids], workers: [{worker, passed, matched, items,
     share}]}: who passed or failed the training.
POST /api/projects/<id>/training/  {"units": [ids], "training": true, "labels": [{target, id, value, explanation}],
     "pass_mark": 0.8}: mark units as training (or not with "training": false), store the expert's label and
     explanation of their items, set the pass mark; a bad field answers 400 at that field.
"""
from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.base import researcher_project_or_404
from annotation_tasks.api.permissions import IsResearcherSomewhere
from annotation_tasks.models import Project, Unit, WorkerProjectStatus
from annotation_tasks.services import training


class TrainingRequestSerializer(serializers.Serializer):
    units = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False, default=list,
                                  max_length=10000)
    training = serializers.BooleanField(required=False, default=True)
    labels = serializers.ListField(child=serializers.JSONField(), required=False, default=list, max_length=100000)
    pass_mark = serializers.FloatField(required=False, allow_null=True, default=None, min_value=0.0, max_value=1.0)


def summary(project: Project) -> dict:
    rows = []
    for status in WorkerProjectStatus.objects.filter(project=project).select_related("worker"):
        result = (status.qualifications or {}).get(training.KEY)
        if result:
            rows.append({"worker": status.worker_id, "pseudonym": status.worker.pseudonym_in(project.pk),
                         **{k: result.get(k) for k in ("passed", "matched", "items", "share", "at")}})
    return {"pass_mark": Project.objects.get(pk=project.pk).training_pass_mark,
            "units": list(Unit.objects.filter(project=project, is_training=True).values_list("pk", flat=True)),
            "workers": rows}


class TrainingView(APIView):
    permission_classes = [IsResearcherSomewhere]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="project_training")
    def get(self, request: Request, project_id: int) -> Response:
        return Response(summary(researcher_project_or_404(request, project_id)))

    @extend_schema(request=TrainingRequestSerializer, responses=OpenApiTypes.OBJECT, operation_id="project_train")
    def post(self, request: Request, project_id: int) -> Response:
        """Mark training units with the expert's labels and explanations; answers the counts and the summary."""
        project = researcher_project_or_404(request, project_id)
        payload = TrainingRequestSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        data = payload.validated_data
        try:
            counts = training.mark(project, data["units"], training=data["training"], labels=data["labels"],
                                   pass_mark=data["pass_mark"])
        except training.TrainingError as exc:
            raise ValidationError({exc.field or "non_field_errors": str(exc)}) from exc
        return Response({**counts, **summary(project)})
