"""Background jobs (import, parse, publish, sync, score) with progress, for the dashboard's progress bars.

A Job whose worker died shows `stalled: true`; POST /api/jobs/<id>/resume/ queues it again (researchers of
its project only: the queryset holds no other project's Jobs, so those answer 404).
"""
from __future__ import annotations

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from annotation_tasks.api.base import ResearcherScopedMixin
from annotation_tasks.api.serializers import JobSerializer
from annotation_tasks.models import Job
from annotation_tasks.services import jobs


class JobNotResumable(APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "not_resumable"


class JobViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Job.objects.all()
    serializer_class = JobSerializer
    filter_fields = {"project": ("project_id", int), "kind": ("kind", str), "status": ("status", str)}
    ordering_fields = ["created_at", "id"]

    @extend_schema(request=None, responses={202: JobSerializer, 409: None})
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Queue a stalled or failed Job again; it skips what it already did. 409 while its worker is alive."""
        job = self.get_object()
        try:
            job = jobs.resume(job)
        except jobs.NotResumable as exc:
            raise JobNotResumable(str(exc)) from exc
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)})
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def download(self, request: Request, pk: str | None = None) -> FileResponse:
        """The file a finished export Job wrote (services.export_jobs); 404 before it is done."""
        from annotation_tasks.services import export_jobs

        job = self.get_object()
        path = export_jobs.job_file(job) if job.kind == Job.Kind.EXPORT else None
        if path is None:
            raise NotFound("No file: the Job is not an export, not finished, or its file was removed.")
        kinds = {".zip": "application/zip", ".csv": "text/csv; charset=utf-8", ".jsonl": "application/jsonl"}
        return FileResponse(path.open("rb"), as_attachment=True, filename=path.name,
                            content_type=kinds.get(path.suffix, "application/octet-stream"))
