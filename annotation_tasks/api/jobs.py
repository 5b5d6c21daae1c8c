"""Background jobs (import, parse, export, sync, publish) with progress, for the dashboard's progress bars."""
from __future__ import annotations

from rest_framework import viewsets

from annotation_tasks.api.base import ResearcherScopedMixin
from annotation_tasks.api.serializers import JobSerializer
from annotation_tasks.models import Job


class JobViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Job.objects.all()
    serializer_class = JobSerializer
    filter_fields = {"project": ("project_id", int), "kind": ("kind", str), "status": ("status", str)}
    ordering_fields = ["created_at", "id"]
