"""Content endpoints: sources, responses, predicates, QAs (with the validation decision), spans and facts."""
from __future__ import annotations

from django.db import transaction
from django.db.models import Count
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response as HttpResponse

from annotation_tasks.api.base import ResearcherScopedMixin
from annotation_tasks.api.filters import NonZero, Present
from annotation_tasks.api.serializers import (
    AnswerSpanSerializer,
    AtomicFactSerializer,
    PredicateSerializer,
    QASerializer,
    QAValidityBulkSerializer,
    ResponseSerializer,
    SourceSerializer,
)
from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Predicate, Response, Source


class SourceViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Source.objects.annotate(response_count=Count("responses")).order_by("id")
    serializer_class = SourceSerializer
    filter_fields = {"project": ("project_id", int), "external_id": ("external_id", str)}
    search_fields = ["external_id", "text"]
    ordering_fields = ["id", "external_id"]


class ResponseViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Response.objects.select_related("source").annotate(
        predicate_count=Count("predicates", distinct=True),
        qa_count=Count("qas", distinct=True),
        fact_count=Count("atomic_facts", distinct=True),
    ).order_by("id")
    serializer_class = ResponseSerializer
    filter_fields = {
        "project": ("project_id", int),
        "source": ("source_id", int),
        "system": ("system", str),
        "parsed": ("parsed_at", Present),
        "has_qas": ("qa_count", NonZero),
    }
    search_fields = ["external_id", "text", "system"]
    ordering_fields = ["id", "external_id", "system"]


class PredicateViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Predicate.objects.all()
    serializer_class = PredicateSerializer
    project_lookup = "response__project"
    filter_fields = {"project": ("response__project_id", int), "response": ("response_id", int)}
    ordering_fields = ["id", "token_index"]


class QAViewSet(
    ResearcherScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """QAs for the QA-validation screen: experts set `validity`; nothing else of a QA changes here."""

    queryset = QA.objects.select_related("predicate", "gold")
    serializer_class = QASerializer
    project_lookup = "response__project"
    filter_fields = {
        "project": ("response__project_id", int),
        "response": ("response_id", int),
        "predicate": ("predicate_id", int),
        "validity": ("validity", str),
        "origin": ("origin", str),
    }
    search_fields = ["question", "answer"]
    ordering_fields = ["id", "order"]

    @extend_schema(
        request=QAValidityBulkSerializer,
        responses=inline_serializer("QAValidityBulkResult", {"updated": serializers.IntegerField()}),
    )
    @action(detail=False, methods=["post"], url_path="bulk-validity")
    def bulk_validity(self, request: Request) -> HttpResponse:
        """Mark many QAs valid / invalid at once (only QAs of the caller's projects are touched)."""
        payload = QAValidityBulkSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        with transaction.atomic():
            updated = self.get_queryset().filter(id__in=payload.validated_data["ids"]).update(
                validity=payload.validated_data["validity"]
            )
        return HttpResponse({"updated": updated})


class AnswerSpanViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = AnswerSpan.objects.select_related("gold").prefetch_related("qas")
    serializer_class = AnswerSpanSerializer
    project_lookup = "response__project"
    filter_fields = {"project": ("response__project_id", int), "response": ("response_id", int)}
    ordering_fields = ["id", "start"]


class AtomicFactViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = AtomicFact.objects.select_related("gold")
    serializer_class = AtomicFactSerializer
    project_lookup = "response__project"
    filter_fields = {
        "project": ("response__project_id", int),
        "response": ("response_id", int),
        "kind": ("kind", str),
    }
    search_fields = ["text"]
    ordering_fields = ["id", "sentence_index", "order"]
