"""The researcher dashboard pages: the HTML shell that loads the Vue bundle, and the unit preview it frames.

Everything else the dashboard shows comes from the REST API.
"""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET

from annotation_tasks.api.permissions import researcher_projects
from annotation_tasks.middleware import same_origin_frames
from annotation_tasks.models import Unit
from annotation_tasks.pages import element_page
from annotation_tasks.services import work
from annotation_tasks.services.tokens import preview_token


@login_required
@ensure_csrf_cookie  # the app sends the cookie's token on every write (session auth needs CSRF)
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation_tasks/dashboard.html")


@require_GET
@login_required
@same_origin_frames  # the dashboard frames it; no other site may (the crowd platforms included)
def unit_preview(request: HttpRequest, unit_id: int) -> HttpResponse:
    """The worker's own unit page (same helper, template and element) in preview mode: what workers will see.

    The preview payload is embedded like on the worker's page, so the element starts without a request.
    Only the project's researchers may open it; the preview token inside can read the unit, never label it.
    """
    unit = get_object_or_404(Unit.objects.filter(project__in=researcher_projects(request.user)), pk=unit_id)
    return element_page(request, work.preview_payload(unit), token=preview_token(unit), preview="true")
