"""The researcher dashboard page: one HTML shell that loads the Vue bundle; everything else is the REST API."""
from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie


@login_required
@ensure_csrf_cookie  # the app sends the cookie's token on every write (session auth needs CSRF)
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(request, "annotation_tasks/dashboard.html")
