"""GET /api/protocols/: the protocols' manifest (services.manifest), the one description of every protocol the
dashboard reads (protocol form, compose modes, review and adjudication level names, exports, upload formats)."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiTypes, extend_schema
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.permissions import can_create_projects
from annotation_tasks.services.manifest import manifest


class MayResearch(BasePermission):
    """Researchers (and those allowed to start a study): the dashboard reads the manifest before any project."""

    message = "Only researchers may read the protocols' manifest."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated) and can_create_projects(request.user)


class ProtocolsView(APIView):
    permission_classes = [MayResearch]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Every protocol's steps, plan kinds, label levels, keys, guide")
    def get(self, request: Request) -> Response:
        return Response(manifest())
