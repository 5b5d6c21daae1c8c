"""A database that cannot answer (down, restarting, connection dropped, SQLite locked past its busy timeout) is a
503 with Retry-After, never a 500: the element keeps the annotator's work in its local backup and retries a 503.

- `is_database_outage`: which errors are an outage (OperationalError / InterfaceError, not a programming error
  SQLite happens to report as OperationalError, such as a missing table).
- `unavailable_response`: JSON {"detail", "code": "database_unavailable"} under /api/, a short plain page elsewhere.
- `DatabaseUnavailableMiddleware`: answers for plain Django views (the worker's pages, the dashboard); DRF views
  are answered by the API's exception handler (annotation_tasks.api.errors), errors raised in middleware by
  handler500 (same module), all with this response.
"""
from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse

log = logging.getLogger(__name__)

CODE = "database_unavailable"
DETAIL = "the database is unavailable for a moment; nothing was lost on our side, try again shortly"
# Messages SQLite raises as OperationalError that are bugs or a broken deployment, not a passing outage.
_NOT_OUTAGES = ("no such table", "no such column", "syntax error", "has no column named")


def retry_after_seconds() -> int:
    return int(getattr(settings, "DATABASE_RETRY_AFTER_SECONDS", 5))


def is_database_outage(exc: BaseException) -> bool:
    """Whether `exc` says the database could not be reached or could not answer in time (a retry may succeed)."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    message = str(exc).lower()
    return not any(marker in message for marker in _NOT_OUTAGES)


def outage_body() -> dict[str, str]:
    return {"detail": DETAIL, "code": CODE}


def log_outage(request: HttpRequest, exc: BaseException) -> None:
    """One warning per refused request, with the path and the driver's message (no traceback: nothing to fix here)."""
    log.warning("database unavailable on %s %s: %s: %s", request.method, request.path, type(exc).__name__, exc)


def unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 for `request`, logged."""
    log_outage(request, exc)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse(outage_body(), status=503)
    else:
        response = HttpResponse(
            "Service unavailable: the database cannot be reached for a moment. Your work is kept; "
            "reload this page shortly.\n",
            status=503,
            content_type="text/plain; charset=utf-8",
        )
    response["Retry-After"] = str(retry_after_seconds())
    return response


class DatabaseUnavailableMiddleware:
    """Turns an outage raised by a (non-DRF) view into the 503 of `unavailable_response`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if is_database_outage(exception):
            return unavailable_response(request, exception)
        return None
