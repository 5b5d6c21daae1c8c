"""The fact-validation screen's API (services/fact_validation.py), researchers of the project only.

GET  /api/projects/<id>/fact-validation/?validation=&batch=&confidence_lt=&page=&page_size=
     the model facts to decide, a page of them, with their responses' texts and the counts by decision.
POST /api/projects/<id>/fact-validation/<fact id>/  {"decision": keep|fix|split|drop|undecided, "text", "texts"}
     one decision; bad input answers 400 naming the field.
"""
from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation_tasks.api.base import researcher_project_or_404
from annotation_tasks.api.permissions import IsResearcherSomewhere
from annotation_tasks.models import Project
from annotation_tasks.services import fact_validation as fv

MAX_PAGE = 200


def _page(request: Request, name: str, default: int, top: int) -> int:
    raw = request.query_params.get(name, default)
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise ValidationError({name: "must be an integer"}) from None
    if not 1 <= value <= top:
        raise ValidationError({name: f"must be from 1 to {top}"})
    return value


def _responses(project: Project, ids: set[int]) -> dict[int, dict]:
    return {r.pk: {"id": r.pk, "external_id": r.external_id, "text": r.text,
                   "sentences": [s.get("text", "") for s in (r.sentences or []) if isinstance(s, dict)]}
            for r in project.responses.filter(pk__in=ids)}


class FactValidationView(APIView):
    permission_classes = [IsResearcherSomewhere]

    @extend_schema(responses=OpenApiTypes.OBJECT, operation_id="fact_validation_list", parameters=[
        OpenApiParameter("validation", str, required=False, description="unknown, kept, fixed, split, dropped"),
        OpenApiParameter("batch", int, required=False), OpenApiParameter("confidence_lt", float, required=False),
        OpenApiParameter("page", int, required=False), OpenApiParameter("page_size", int, required=False),
    ])
    def get(self, request: Request, project_id: int) -> Response:
        """{count, counts, results: [fact rows with what workers see instead], responses: {id: text}}."""
        project = researcher_project_or_404(request, project_id)
        spec = {k: request.query_params[k] for k in ("validation", "batch", "confidence_lt")
                if request.query_params.get(k)}
        base = fv.decided_facts().filter(response__project=project)
        try:
            matching = fv.filter_facts(base, spec)
        except fv.ValidationInputError as exc:
            raise ValidationError({exc.field: exc.message}) from exc
        size = _page(request, "page_size", 50, MAX_PAGE)
        page = _page(request, "page", 1, 10**6)
        facts = list(matching.select_related("validated_by").order_by("response_id", "sentence_index", "order",
                                                                        "id")[(page - 1) * size: page * size])
        written = fv.written_of(f.pk for f in facts)
        return Response({
            "count": matching.count(),
            "counts": fv.counts(base),
            "results": [fv.fact_row(f, written.get(f.pk, [])) for f in facts],
            "responses": _responses(project, {f.response_id for f in facts}),
        })


class FactDecisionView(APIView):
    permission_classes = [IsResearcherSomewhere]

    @extend_schema(request=OpenApiTypes.OBJECT, responses=OpenApiTypes.OBJECT, operation_id="fact_validation_decide")
    def post(self, request: Request, project_id: int, fact_id: int) -> Response:
        """Keep, fix (text), split (texts) or drop one model fact; `undecided` undoes. {fact, counts}."""
        project = researcher_project_or_404(request, project_id)
        fact = get_object_or_404(fv.decided_facts(), pk=fact_id, response__project=project)
        try:
            row = fv.decide(fact, request.data, request.user)
        except fv.ValidationInputError as exc:
            raise ValidationError({exc.field: exc.message}) from exc
        return Response({"fact": row, "counts": fv.counts(fv.decided_facts().filter(response__project=project))})
