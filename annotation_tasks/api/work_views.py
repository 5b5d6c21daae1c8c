"""The annotator element's API (docs/annotator-api.md): unit, draft, submit, and the local next-unit queue.

Unit/draft/submit are authorized by the signed per-assignment token in the URL only: no session, no CSRF
(the token is the credential, and it names exactly one assignment). The next-unit endpoint is for logged-in
local annotators. Views translate; services.work and services.queue hold the logic.
"""
from __future__ import annotations

import codecs
import re
from typing import Any

from django.conf import settings
from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.errors import json_depth_exceeds
from annotation_tasks.services import queue, work
from annotation_tasks.services.local_workers import local_worker
from annotation_tasks.services.tokens import assignment_token, is_preview_token
from annotation_tasks.textcheck import json_text_problem

MAX_TIME_ON_TASK_MS = 2**31 - 1  # fits every database's integer column


class ErrorItemSerializer(serializers.Serializer):
    field = serializers.CharField()
    message = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    errors = ErrorItemSerializer(many=True)


class DraftSavedSerializer(serializers.Serializer):
    saved_at = serializers.DateTimeField()
    draft_version = serializers.IntegerField(allow_null=True, help_text="The draft's version now (null: the save "
                                             "named none); the next save names it, a stale one gets a 409.")


class SubmitSerializer(serializers.Serializer):
    labels = serializers.JSONField(help_text="spans / qas / facts / pairwise / validation, per docs/annotator-api.md")
    time_on_task_ms = serializers.IntegerField(required=False, min_value=0)


class SubmitResultSerializer(serializers.Serializer):
    status = serializers.CharField()
    duplicate = serializers.BooleanField()


class NextResultSerializer(serializers.Serializer):
    token = serializers.CharField()
    url = serializers.CharField()
    assignment_id = serializers.IntegerField()


def _error(exc: work.WorkError) -> Response:
    return Response({"detail": str(exc), "errors": exc.errors}, status=exc.status_code)


class _TokenView(APIView):
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]


class UnitView(_TokenView):
    @extend_schema(operation_id="work_unit", responses={200: OpenApiTypes.OBJECT, 403: ErrorSerializer},
                   description="The unit as the annotator element shows it (assignment or preview token).")
    def get(self, request: Request, token: str) -> Response:
        try:
            if is_preview_token(token):
                return Response(work.preview_payload(work.unit_for_preview_token(token)))
            assignment = work.assignment_for_token(token, related=work.UNIT_RELATED, defer=work.UNIT_UNSHOWN)
            return Response(work.unit_payload(assignment))
        except work.WorkError as exc:
            return _error(exc)


class DraftSerializer(serializers.Serializer):
    draft = serializers.JSONField(allow_null=True)
    draft_version = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=2**31 - 1,
                                             help_text="The version this draft replaces (the unit's draft_version).")


def _invalid(field: str, message: str) -> Response:
    return Response({"detail": "invalid request", "errors": [{"field": field, "message": message}]}, status=400)


# In a JSON body a NUL or a lone surrogate can only come as a \u escape (the parser refuses raw control characters
# and bytes that are not UTF-8): a body without such an escape holds only storable text.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")


def _body_problem(data: Any, root: str, raw: bytes | None = None) -> Response | None:
    """A 400 naming the place when the body is not a JSON object or holds text no database can store. `raw`: the
    JSON body's bytes, when the view read them; without an escape that could be a NUL or a surrogate the walk
    over every string (a good part of a draft's CPU) is skipped, as it would find nothing."""
    if not isinstance(data, dict):
        return _invalid(root or "(body)", "expected a JSON object")
    if raw is not None and not _UNSTORABLE_ESCAPE.search(raw):
        return None
    bad = json_text_problem(data)
    return _invalid(*bad) if bad else None


def _json_body(request: Request) -> bytes | None:
    """The raw bytes of a UTF-8 JSON body (read before DRF parses it; DRF then parses these bytes), else None. Only
    UTF-8 bytes show a NUL or a surrogate escape to _UNSTORABLE_ESCAPE: a UTF-16 body's never do."""
    if request.content_type.split(";")[0].strip() != "application/json":
        return None
    try:
        if codecs.lookup(request._request.encoding or "utf-8").name != "utf-8":
            return None
    except LookupError:
        return None
    return request._request.body


class DraftView(_TokenView):
    @extend_schema(operation_id="work_draft", request=DraftSerializer,
                   responses={200: DraftSavedSerializer, 400: ErrorSerializer, 403: ErrorSerializer,
                              409: ErrorSerializer})
    def put(self, request: Request, token: str) -> Response:
        try:  # the token first: a stranger's body is never parsed
            target = work.draft_target(token)
        except work.WorkError as exc:
            return _error(exc)
        if not isinstance(request.data, dict):  # the draft itself is checked once parsed (work.check_draft)
            return _invalid("(body)", "expected a JSON object")
        if type(request.data) is dict and "draft" in request.data:
            draft = request.data["draft"]  # a parsed JSON body: what DraftSerializer would return, without building it
            version = request.data.get("draft_version")  # checked by save_draft (a located 400)
        else:
            ser = DraftSerializer(data=request.data)
            if not ser.is_valid():
                return Response({"errors": [{"field": f, "message": str(m[0])} for f, m in ser.errors.items()]},
                                status=400)
            draft, version = ser.validated_data["draft"], ser.validated_data.get("draft_version")
        if json_depth_exceeds(draft, settings.WORK_DRAFT_MAX_DEPTH):
            return _invalid("draft", f"nested deeper than {settings.WORK_DRAFT_MAX_DEPTH} levels")
        try:  # save_draft refuses what cannot be stored (infinity, NUL, lone surrogate) or is too large, located
            saved_at, new_version = work.save_draft(target, draft, version)
        except work.WorkError as exc:
            return _error(exc)
        return Response({"saved_at": saved_at.isoformat(), "draft_version": new_version})


class SubmitView(_TokenView):
    @extend_schema(operation_id="work_submit", request=SubmitSerializer,
                   responses={200: SubmitResultSerializer, 400: ErrorSerializer, 403: ErrorSerializer})
    def post(self, request: Request, token: str) -> Response:
        try:  # submit re-reads the assignment and its unit under the locks: nothing more is read here
            assignment = work.assignment_for_token(token, related=work.NO_RELATED, defer=("draft", "shown", "submission"))
        except work.WorkError as exc:
            return _error(exc)
        raw = _json_body(request)  # before request.data: once DRF has read the stream the bytes are gone
        problem = _body_problem(request.data, "", raw)
        if problem:  # the submission is stored as sent: everything in it must be storable
            return problem
        if json_depth_exceeds(request.data, settings.WORK_DRAFT_MAX_DEPTH):
            return _invalid("labels", f"nested deeper than {settings.WORK_DRAFT_MAX_DEPTH} levels")
        time_ms = request.data.get("time_on_task_ms")
        if isinstance(time_ms, int) and not isinstance(time_ms, bool) and time_ms > MAX_TIME_ON_TASK_MS:
            return _invalid("time_on_task_ms", f"at most {MAX_TIME_ON_TASK_MS} (about 24 days)")
        try:
            result = work.submit(assignment, request.data)
        except work.WorkError as exc:
            return _error(exc)
        return Response({"status": result.status, "duplicate": result.duplicate})


class NextSerializer(serializers.Serializer):
    project = serializers.IntegerField()
    mode = serializers.CharField(required=False, allow_blank=True)


class NextUnitView(APIView):
    """POST {project, mode?} → {token, url, assignment_id}, or 204 when nothing is left for this annotator."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="work_next", request=NextSerializer, responses={200: NextResultSerializer, 204: None})
    def post(self, request: Request) -> Response:
        ser = NextSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        project, may_annotate, blocked, worker = queue.annotator_and_worker_in(request.user, ser.validated_data["project"])
        if project is None:
            raise Http404("No Project matches the given query.")
        if not may_annotate:
            return Response({"detail": "not an annotator of this project"}, status=status.HTTP_403_FORBIDDEN)
        if worker is None:  # the annotator's first unit
            worker = local_worker(request.user)
        assignment = queue.next_assignment(worker, project, mode=ser.validated_data.get("mode") or None,
                                           blocked=blocked)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        token = assignment_token(assignment)
        return Response({"token": token, "url": f"/work/{token}/", "assignment_id": assignment.pk})
