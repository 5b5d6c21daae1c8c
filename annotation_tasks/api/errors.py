"""JSON errors everywhere under /api/: the element and scripts can always show what went wrong.

- `exception_handler` (DRF's EXCEPTION_HANDLER): DRF's own answers, plus Django's SuspiciousOperation family
  (RequestDataTooBig → 413, TooManyFieldsSent and friends → 400) raised while a view reads the body.
- `api.parsers.JSONParser`: a body nested too deeply for Python's parser is a 400, not a RecursionError.
- a database outage (annotation_tasks.db_outage) is a 503 with Retry-After here and in `server_error`.
- `bad_request` / `not_found` / `server_error` (handler400/404/500 in backend.urls): the same JSON for errors
  raised outside DRF views (middleware reading the body, unknown URLs); other paths keep Django's HTML pages.
"""
from __future__ import annotations

import json
import sys
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from annotation_tasks.db_outage import (
    is_database_outage,
    log_outage,
    outage_body,
    retry_after_seconds,
    unavailable_response,
)

API_PREFIX = "/api/"


def too_big_message(exc: Exception) -> str:
    return f"request body too large ({exc}); send less data in one request"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, and a JSON answer for oversized or suspicious bodies DRF leaves to Django."""
    response = drf_exception_handler(exc, context)
    if response is not None:
        return response
    if is_database_outage(exc):  # down, restarting or locked: a 503 the element retries (db_outage)
        set_rollback()
        log_outage(context["request"], exc)
        return Response(outage_body(), status=status.HTTP_503_SERVICE_UNAVAILABLE,
                        headers={"Retry-After": str(retry_after_seconds())})
    if isinstance(exc, RequestDataTooBig):
        return Response({"detail": too_big_message(exc)}, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, SuspiciousOperation):
        return Response({"detail": f"bad request: {exc}"}, status=status.HTTP_400_BAD_REQUEST)
    return None


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether a parsed JSON value nests lists/objects deeper than `limit` (iterative: no recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def json_size(value: Any) -> int:
    """Bytes of a JSON value as stored (compact UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400: SuspiciousOperation (including RequestDataTooBig) raised outside a DRF view."""
    if not _is_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, RequestDataTooBig):
        return JsonResponse({"detail": too_big_message(exception)}, status=413)
    return JsonResponse({"detail": f"bad request: {exception}" if exception else "bad request"}, status=400)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _is_api(request):
        return defaults.page_not_found(request, exception)
    return JsonResponse({"detail": "Not found."}, status=404)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not _is_api(request):
        return defaults.permission_denied(request, exception)
    return JsonResponse({"detail": "You do not have permission to perform this action."}, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    exc = sys.exc_info()[1]  # Django calls handler500 while handling the exception (e.g. raised in middleware)
    if exc is not None and is_database_outage(exc):
        return unavailable_response(request, exc)
    if not _is_api(request):
        return defaults.server_error(request)
    return JsonResponse({"detail": "internal server error; the error is logged"}, status=500)
