"""Response policies: framing (below), the script CSP and the body size limit under /api/ (further down).

Framing policy: unit pages may be framed by the crowd platforms' origins only; the dashboard's unit preview (it
needs a login) by our own pages only (@same_origin_frames); every other page keeps DENY.

Views opt in with @frameable. This middleware sits after XFrameOptionsMiddleware in MIDDLEWARE, so it sees
the response first: it exempts marked responses from X-Frame-Options and sends CSP frame-ancestors built
from settings.FRAME_ANCESTORS instead (browsers honour frame-ancestors over X-Frame-Options).
"""
from __future__ import annotations

import secrets
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse

from annotation_tasks.textcheck import printable

FRAMEABLE_ATTR = "factcrowd_frameable"


def frameable(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view's responses as allowed inside the crowd platforms' iframes."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        setattr(response, FRAMEABLE_ATTR, True)
        return response

    return wrapped


SAME_ORIGIN_ATTR = "factcrowd_same_origin_frames"


def same_origin_frames(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view's responses as framable by our own pages only (the dashboard's unit preview): a page behind a
    login is never framed by another site, the crowd platforms included (X-Frame-Options SAMEORIGIN and CSP
    frame-ancestors 'self')."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        setattr(response, SAME_ORIGIN_ATTR, True)
        return response

    return wrapped


def frame_ancestors_header() -> str:
    return "frame-ancestors " + " ".join(settings.FRAME_ANCESTORS or ["'none'"])


class FrameAncestorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(response, SAME_ORIGIN_ATTR, False):
            response["X-Frame-Options"] = "SAMEORIGIN"
            response["Content-Security-Policy"] = "frame-ancestors 'self'"
        elif getattr(response, FRAMEABLE_ATTR, False):
            response.xframe_options_exempt = True
            response["Content-Security-Policy"] = frame_ancestors_header()
        return response


CSP_NONCE_ATTR = "csp_nonce"


def script_policy(nonce: str) -> str:
    """Scripts from this origin and inline scripts carrying this request's nonce; no plugins, no <base> tricks."""
    return f"script-src 'self' 'nonce-{nonce}'; object-src 'none'; base-uri 'none'"


class ContentSecurityPolicyMiddleware:
    """A script CSP on every HTML page (the element, the dashboard, the queue, invites, login).

    Django 5.2 has no CSP of its own. Each request gets a nonce (`request.csp_nonce`, used by templates'
    inline scripts as `nonce="{{ request.csp_nonce }}"`); the policy joins a frame-ancestors policy set by
    FrameAncestorsMiddleware. Pages under settings.CSP_EXEMPT_PATHS (Swagger UI, the admin) keep their own.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        nonce = secrets.token_urlsafe(16)
        setattr(request, CSP_NONCE_ATTR, nonce)
        response = self.get_response(request)
        if not getattr(settings, "CSP_ENABLED", True):
            return response
        if not response.get("Content-Type", "").startswith("text/html"):
            return response
        if any(request.path.startswith(p) for p in getattr(settings, "CSP_EXEMPT_PATHS", [])):
            return response
        existing = response.get("Content-Security-Policy")
        policy = script_policy(nonce)
        response["Content-Security-Policy"] = f"{existing}; {policy}" if existing else policy
        return response


class ApiBodyLimitMiddleware:
    """Bodies over the limits under /api/ answer a JSON 413 with a message before anything reads them.

    JSON and form bodies are held to DATA_UPLOAD_MAX_MEMORY_SIZE (DRF's JSON parser reads the stream without
    Django's check); multipart uploads to the largest import upload plus room for the form fields.
    Django's own RequestDataTooBig, raised later (e.g. too many fields), is answered by api.errors.bad_request.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/"):
            limit = body_limit(request)
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                return JsonResponse({"detail": "invalid Content-Length header"}, status=400)
            bad = next((k for k, values in request.GET.lists() if "\x00" in k or any("\x00" in v for v in values)), None)
            if bad is not None:  # PostgreSQL refuses NUL in text: a 400 naming the parameter, on every database
                return JsonResponse({"detail": "invalid query parameter", "errors": [
                    {"field": printable(bad), "message": "contains a NUL character (\\u0000)"}]}, status=400)
            if limit is not None and length > limit:
                return JsonResponse(
                    {"detail": f"request body too large: {length} bytes, at most {limit} bytes here",
                     "limit_bytes": limit},
                    status=413,
                )
        return self.get_response(request)


def body_limit(request: HttpRequest) -> int | None:
    """The most bytes a request body may have: uploads (multipart) are bounded by the import upload limit."""
    if request.content_type == "multipart/form-data":
        from annotation_tasks.services.uploads import MAX_UPLOAD_BYTES

        return MAX_UPLOAD_BYTES + (settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0)
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE
