"""Content endpoints: sources, responses, predicates, QAs (with the validation decision), spans and facts."""
from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Subquery
from django.db.models.functions import Coalesce
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response as HttpResponse

from annotation_tasks.api.base import ResearcherScopedMixin, researcher_project_ids
from annotation_tasks.api.filters import Present, id_param
from annotation_tasks.api.pagination import PageAnnotations
from annotation_tasks.api.serializers import (
    AnswerSpanSerializer,
    AtomicFactSerializer,
    PredicateSerializer,
    QABulkValidateSerializer,
    QACorrectionSerializer,
    QASerializer,
    QAValidityBulkSerializer,
    ResponseSerializer,
    SourceSerializer,
)
from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Predicate, Response, Source
from annotation_tasks.services import validation


class SourceViewSet(PageAnnotations, ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Source.objects.order_by("id")
    serializer_class = SourceSerializer
    filter_fields = {"project": ("project_id", int), "external_id": ("external_id", str)}
    search_fields = ["external_id", "text"]
    ordering_fields = ["id", "external_id"]

    def annotate_page(self, queryset):
        return queryset.annotate(response_count=Count("responses"))


class ResponseViewSet(PageAnnotations, ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    """Responses with their counts: the counts are computed for the page's rows only (api.pagination)."""

    queryset = Response.objects.select_related("source").annotate(
        has_qa=Exists(QA.objects.filter(response=OuterRef("pk"))),
    ).order_by("id")
    serializer_class = ResponseSerializer
    filter_fields = {
        "project": ("project_id", int),
        "source": ("source_id", int),
        "system": ("system", str),
        "parsed": ("parsed_at", Present),
        "has_qas": ("has_qa", bool),
    }
    search_fields = ["external_id", "text", "system"]
    ordering_fields = ["id", "external_id", "system"]

    def annotate_page(self, queryset):
        # one subquery per count: three joined Counts multiply each other's rows before DISTINCT
        def count(model):
            rows = model.objects.filter(response=OuterRef("pk")).order_by().values("response")
            return Coalesce(Subquery(rows.annotate(n=Count("pk")).values("n")), 0)

        return queryset.annotate(predicate_count=count(Predicate), qa_count=count(QA), fact_count=count(AtomicFact))


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
    """QAs for the QA-validation screen: experts set `validity`, correct a question or an answer span
    (`correct`, kept with the original), and decide every QA of a filter at once (`bulk-validate`).

    Besides the exact filters, `batch` (QAs the batch's units hold), `confidence_lt` and `confidence_gte` filter
    the list the same way bulk-validate reads its filter (services.validation.filter_qas)."""

    queryset = QA.objects.select_related("predicate", "gold").prefetch_related("edits")
    serializer_class = QASerializer
    project_lookup = "project"  # kept on the QA: no join to responses for the scope, the count or a page
    filter_fields = {
        "project": ("project_id", int),
        "response": ("response_id", int),
        "predicate": ("predicate_id", int),
        "validity": ("validity", str),
        "origin": ("origin", str),
        "kind": ("predicate__kind", str),
    }
    search_fields = ["question", "answer"]
    ordering_fields = ["id", "order", "confidence"]

    # filters no index holds (LIKE over question / answer, origin, confidence): the list's count and its page come
    # from one query that reads the rows once (Pagination.one_pass), not a count and an offset each reading them all
    SCANNING_PARAMS = ("search", "origin", "confidence_lt", "confidence_gte")

    def filter_queryset(self, queryset):
        params = self.request.query_params
        self.one_pass = any(params.get(k) for k in self.SCANNING_PARAMS)
        kept = self._kinds_kept(params.get("kind", ""), params.get("project", ""), self.request.user)
        if kept is not None:  # ?kind= answered from the project's kinds: no join of every QA to its predicate
            self.filter_fields = {k: v for k, v in type(self).filter_fields.items() if k != "kind"}
        queryset = super().filter_queryset(queryset)
        if kept is False:
            queryset = queryset.filter(pk__in=[])
        spec = {k: params[k] for k in ("batch", "confidence_lt", "confidence_gte") if params.get(k)}
        return _validation_call(validation.filter_qas, queryset, spec, "") if spec else queryset

    @staticmethod
    def _kinds_kept(raw: str, project: str, user) -> bool | None:
        """For ?kind= within one project: True when the asked kinds are every kind the project's predicates have
        (the filter keeps every QA), False when they are none of them (it keeps none), None when the project mixes
        asked and other kinds (the filter joins predicates). One indexed EXISTS per kind, not a join per QA."""
        if not raw or id_param(project) is None:
            return None
        if int(project) not in researcher_project_ids(user):  # another's project: the plain filter answers nothing
            return None
        asked = {k for k in raw.split(",") if k}
        present = {k for k in Predicate.Kind.values if _has_kind(int(project), k)}
        if present <= asked:
            return True
        return False if not present & asked else None

    @extend_schema(
        request=QAValidityBulkSerializer,
        responses=inline_serializer("QAValidityBulkResult", {"updated": serializers.IntegerField()}),
    )
    @action(detail=False, methods=["post"], url_path="bulk-validity")
    def bulk_validity(self, request: Request) -> HttpResponse:
        """Mark the listed QAs valid / invalid (only QAs of the caller's projects are touched)."""
        payload = QAValidityBulkSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        with transaction.atomic():
            updated = self.get_queryset().filter(id__in=payload.validated_data["ids"]).update(
                validity=payload.validated_data["validity"]
            )
        return HttpResponse({"updated": updated})

    @extend_schema(
        request=QABulkValidateSerializer,
        responses=inline_serializer("QABulkValidateResult", {"updated": serializers.IntegerField(),
                                                              "filter": serializers.DictField()}),
    )
    @action(detail=False, methods=["post"], url_path="bulk-validate")
    def bulk_validate(self, request: Request) -> HttpResponse:
        """Decide every QA matching a filter, not a page: e.g. {"filter": {"project": 3, "kind": "nominal",
        "confidence_lt": 0.5}, "validity": "invalid"}. The filter names a project or a batch."""
        payload = QABulkValidateSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        spec, validity = payload.validated_data["filter"], payload.validated_data["validity"]
        updated = _validation_call(validation.bulk_validate, self.get_queryset(), spec, validity, request.user)
        return HttpResponse({"updated": updated, "filter": spec})

    @extend_schema(request=QACorrectionSerializer, responses=QASerializer)
    @action(detail=True, methods=["post"])
    def correct(self, request: Request, pk: str | None = None) -> HttpResponse:
        """Correct the question and/or the answer span (token indices); the QA becomes valid unless `validity`
        says otherwise. The original stays in the edit log (`original` in the answer)."""
        qa = self.get_object()
        payload = QACorrectionSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        _validation_call(validation.correct_qa, qa, payload.validated_data, request.user)
        return HttpResponse(self.get_serializer(self.get_queryset().get(pk=qa.pk)).data)


def _has_kind(project: int, kind: str) -> bool:
    """Whether the project has a predicate of `kind` (one of Predicate.Kind's values). The kind is written into the
    SQL, not bound: with server-side prepared statements PostgreSQL plans a bound `kind = $1` generically after five
    runs (a third of the table each: a seq scan), ~150 ms where the kind's index answers an absent kind at once."""
    assert kind in Predicate.Kind.values and kind.isidentifier(), kind
    table = Predicate._meta.db_table
    return Predicate.objects.filter(response__project_id=project).extra(  # noqa: S610 (a choice, not input)
        where=[f'"{table}"."kind" = \'{kind}\'']).exists()


def _validation_call(fn, *args):
    """A service call whose bad input answers 400 naming the field."""
    try:
        return fn(*args)
    except validation.ValidationInputError as exc:
        raise ValidationError({exc.field: exc.message}) from exc


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
