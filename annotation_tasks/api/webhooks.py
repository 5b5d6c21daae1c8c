"""POST /api/crowd/prolific/hooks/: Prolific's webhook deliveries (services.webhooks checks and applies them).

A plain Django view: the platform signs the body (no session, no token, no CSRF cookie), and the raw body must
reach the signature check unparsed.
"""
from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST


@csrf_exempt
@require_POST
def prolific_hooks(request: HttpRequest) -> JsonResponse:
    from annotation_tasks.services import webhooks

    outcome = webhooks.receive_prolific(request.headers, request.body)
    return JsonResponse(outcome.as_dict(), status=outcome.status)
