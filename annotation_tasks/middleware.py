"""Framing policy: unit pages may be framed by the crowd platforms' origins only; every other page keeps DENY.

Views opt in with @frameable. This middleware sits after XFrameOptionsMiddleware in MIDDLEWARE, so it sees
the response first: it exempts marked responses from X-Frame-Options and sends CSP frame-ancestors built
from settings.FRAME_ANCESTORS instead (browsers honour frame-ancestors over X-Frame-Options).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse

FRAMEABLE_ATTR = "factcrowd_frameable"


def frameable(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Mark a view's responses as allowed inside the crowd platforms' iframes."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        response = view(request, *args, **kwargs)
        setattr(response, FRAMEABLE_ATTR, True)
        return response

    return wrapped


def frame_ancestors_header() -> str:
    return "frame-ancestors " + " ".join(settings.FRAME_ANCESTORS or ["'none'"])


class FrameAncestorsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if getattr(response, FRAMEABLE_ATTR, False):
            response.xframe_options_exempt = True
            response["Content-Security-Policy"] = frame_ancestors_header()
        return response
