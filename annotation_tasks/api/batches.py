"""Batches (compose, estimate, publish, sync, close) and their units (with the worker's-eye preview).

The rules (what a batch's state allows, what blocks publishing) are services.batches'; these views only ask
and translate a refusal into a 400 naming the field.
"""
from __future__ import annotations

from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings

from annotation_tasks.api.base import ResearcherScopedMixin
from annotation_tasks.api.pagination import PageAnnotations
from annotation_tasks.api.serializers import (
    BatchSerializer,
    ComposeSerializer,
    CostEstimateSerializer,
    EstimateQuerySerializer,
    JobSerializer,
    PublishSerializer,
    UnitSerializer,
)
from annotation_tasks.crowd import ProviderError
from annotation_tasks.models import Assignment, Batch, Unit
from annotation_tasks.services import batches as batch_rules
from annotation_tasks.services.batches import BatchRuleError


def _obey(rule, *args) -> None:
    """Run a batch rule; a refusal becomes a 400 with the rule's {field: message}."""
    try:
        rule(*args)
    except BatchRuleError as exc:
        raise ValidationError(exc.by_field()) from exc


class BatchViewSet(
    PageAnnotations,
    ResearcherScopedMixin,
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    queryset = Batch.objects.select_related("project").order_by("-created_at", "-id")
    serializer_class = BatchSerializer
    filter_fields = {"project": ("project_id", int), "status": ("status", str), "provider": ("provider", str)}
    search_fields = ["name"]
    ordering_fields = ["created_at", "name", "id"]

    def annotate_page(self, queryset):
        """The unit count of a single batch (retrieve, update); the list counts its page in attach_counts."""
        if self.action == "list":
            return queryset
        units = Unit.objects.filter(batch=OuterRef("pk")).order_by().values("batch")
        return queryset.annotate(unit_count=Coalesce(Subquery(units.annotate(n=Count("pk")).values("n")), 0))

    def paginate_queryset(self, queryset):
        page = super().paginate_queryset(queryset)
        if page is not None:
            self.attach_counts(page)
        return page

    @staticmethod
    def attach_counts(batches) -> None:
        """Each batch's units per status and in all, for the whole page in one grouped query over the unit table's
        batch index (a count per batch and per field was two queries per batch: ~0.5 s for 9 batches of 10^5
        units, issue 25)."""
        counted: dict[int, dict[str, int]] = {b.pk: {} for b in batches}
        for batch_id, unit_status, n in (Unit.objects.filter(batch_id__in=list(counted)).order_by()
                                         .values_list("batch_id", "status").annotate(n=Count("pk"))):
            counted[batch_id][unit_status] = n
        for batch in batches:
            batch.units_by_status_counted = counted[batch.pk]
            batch.unit_count = sum(counted[batch.pk].values())

    def perform_update(self, serializer: BatchSerializer) -> None:
        _obey(batch_rules.ensure_editable, serializer.instance, serializer.validated_data)
        serializer.save()

    def perform_destroy(self, instance: Batch) -> None:
        _obey(batch_rules.ensure_deletable, instance)
        instance.delete()

    @extend_schema(request=ComposeSerializer, responses={201: inline_serializer("ComposeResult", {
        "created": serializers.IntegerField(help_text="How many units were created."),
        "results": UnitSerializer(many=True, help_text="The first page of them (at most PAGE_SIZE), in id order."),
        "units": serializers.CharField(help_text="The batch's units, paginated: GET units/?batch=<id>."),
    }), 202: JobSerializer})
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def compose(self, request: Request, pk: str | None = None) -> Response:
        """Create one unit per source of the project (idempotent: only sources without a unit get one).

        Up to services.batch_jobs.COMPOSE_INLINE_SOURCES sources to compose, in this request: answers 201 with
        how many were created and their first page, not every unit (the rest are paged at `units`). Above it,
        or when an earlier compose Job of the batch stopped (it is resumed), answers 202 with a compose Job
        (progress in sources; publishing waits for it): 30k units were a 60 s request (issue 25)."""
        batch = self.get_object()
        _obey(batch_rules.ensure_composable, batch)
        payload = ComposeSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        from annotation_tasks.services import batch_jobs
        from annotation_tasks.services import units as unit_service

        mode = payload.validated_data["mode"] or unit_service.crowd_mode(batch.project)
        wanted = payload.validated_data["assignments_wanted"]
        previous = batch_rules.latest_compose_job(batch)
        if (previous is not None and previous.status != previous.Status.DONE) or \
                batch_jobs.sources_to_compose(batch, mode) > batch_jobs.COMPOSE_INLINE_SOURCES:
            job = batch_jobs.start_compose_job(batch, mode=mode, assignments_wanted=wanted, user=request.user)
            return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)
        created = unit_service.compose_units(batch, mode=mode, assignments_wanted=wanted)
        first = UnitViewSet.queryset.filter(pk__in=[u.pk for u in created[: api_settings.PAGE_SIZE]]).order_by("id")
        return Response(
            {"created": len(created), "results": UnitSerializer(first, many=True).data,
             "units": f"{reverse('unit-list')}?batch={batch.pk}"},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(parameters=[EstimateQuerySerializer], responses=CostEstimateSerializer)
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def estimate(self, request: Request, pk: str | None = None) -> Response:
        """What publishing the batch's unpublished units would cost (reward + fees), the account balance, and
        whether it can be published (`publish_blockers` adds the balance check to the batch's own)."""
        batch = self.get_object()
        query = EstimateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        reward = query.validated_data["reward"]
        per_unit = query.validated_data.get("assignments_per_unit") or batch.project.annotations_per_item
        from annotation_tasks.services import publishing

        provider = publishing.provider_for(batch)
        _, estimate = publishing.estimate_batch(batch, provider, reward=reward, assignments_per_unit=per_unit)
        try:
            balance = provider.account_balance()
        except ProviderError:
            balance = None
        blockers = batch_rules.publish_blockers(batch)
        if estimate.units and (funding := batch_rules.funding_blocker(provider.name, estimate, balance)):
            blockers.append(funding)
        from annotation_tasks.services import sessions

        rate = sessions.hourly_rate(batch, provider, reward)  # expected pay per hour, against the platform's floor
        if estimate.units and rate.below_minimum:
            blockers.append(batch_rules.Blocker("below_minimum_pay", f"{provider.name} requires at least "
                                                f"{rate.minimum} {rate.currency} per hour: {rate.describe()}", "reward"))
        answer = {**estimate.__dict__, "balance": balance, "publishable": not blockers,
                  "publish_blockers": [b.as_dict() for b in blockers],
                  "hourly_rate": {"per_hour": rate.per_hour, "currency": rate.currency,
                                  "seconds_per_unit": rate.seconds_per_unit, "source": rate.source,
                                  "minimum": rate.minimum, "below_minimum": rate.below_minimum,
                                  "text": rate.describe()}}
        return Response(CostEstimateSerializer(answer).data)

    @extend_schema(request=PublishSerializer, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def publish(self, request: Request, pk: str | None = None) -> Response:
        """Publish the batch's unpublished units in the background; refuses without `confirm: true`.

        The publish rules and the balance are checked here (services.publishing.check_publish), before anything
        is queued, so a batch that cannot be published or paid fails at once.
        Resumable: publishing again only publishes units that have no platform reference yet.
        """
        batch = self.get_object()
        payload = PublishSerializer(data=request.data)
        payload.is_valid(raise_exception=True)
        if not payload.validated_data["confirm"]:
            raise ValidationError({"confirm": "Confirm the cost estimate to publish."})
        from annotation_tasks.services import batch_jobs, publishing

        reward = payload.validated_data["reward"]
        per_unit = payload.validated_data.get("assignments_per_unit") or batch.project.annotations_per_item
        reason = payload.validated_data.get("override_validation_reason", "")
        if reason and any(b.code in batch_rules.OVERRIDABLE for b in batch_rules.publish_blockers(batch)):
            from annotation_tasks.services.validation import ValidationInputError, override_validation

            try:
                override_validation(batch, reason, request.user)
            except ValidationInputError as exc:
                raise ValidationError({exc.field: exc.message}) from exc
        try:
            publishing.check_publish(batch, reward=reward, assignments_per_unit=per_unit)
        except BatchRuleError as exc:
            raise ValidationError(exc.by_field()) from exc
        except ProviderError as exc:  # the platform cannot be asked, or the balance does not cover the cost
            raise ValidationError({"provider": str(exc)}) from exc
        job = batch_jobs.start_publish_job(batch, reward=reward, assignments_per_unit=per_unit, user=request.user)
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: JobSerializer})
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def sync(self, request: Request, pk: str | None = None) -> Response:
        """Fetch the platform's submissions now, in the background (beat also syncs periodically)."""
        batch = self.get_object()
        _obey(batch_rules.ensure_syncable, batch)
        from annotation_tasks.services import batch_jobs

        job = batch_jobs.start_sync_job(batch, user=request.user)
        return Response(JobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses=BatchSerializer)
    @action(detail=True, methods=["post"], pagination_class=None, filter_backends=[])
    def close(self, request: Request, pk: str | None = None) -> Response:
        """Stop the batch: expire its open work on the platform."""
        batch = self.get_object()
        from annotation_tasks.services import publishing

        try:
            publishing.close_batch(batch)
        except ProviderError as exc:
            raise ValidationError({"provider": str(exc)}) from exc
        return Response(BatchSerializer(self._fresh(batch), context={"request": request}).data)

    def _fresh(self, batch: Batch) -> Batch:
        return self.get_queryset().get(pk=batch.pk)


class UnitViewSet(ResearcherScopedMixin, viewsets.ReadOnlyModelViewSet):
    queryset = Unit.objects.select_related("source").prefetch_related(
        "responses", Prefetch("assignments", queryset=Assignment.objects.only("id", "status", "unit_id"))
    )
    serializer_class = UnitSerializer
    filter_fields = {
        "project": ("project_id", int),
        "batch": ("batch_id", int),
        "status": ("status", str),
        "mode": ("mode", str),
        "is_gold": ("is_gold", bool),
    }
    search_fields = ["source__external_id", "responses__system", "responses__external_id"]
    ordering_fields = ["id", "created_at"]

    @extend_schema(responses=inline_serializer("UnitPreview", {
        "payload": serializers.DictField(help_text="What the element receives from GET /api/work/<token>/unit."),
        "preview_url": serializers.CharField(help_text="The worker's unit page in preview mode (researchers only)."),
    }))
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def preview(self, request: Request, pk: str | None = None) -> Response:
        """The unit exactly as a worker will see it: the element's payload, and the unit page in preview mode."""
        unit = self.get_object()
        from annotation_tasks.services import work

        return Response({"payload": work.preview_payload(unit), "preview_url": reverse("unit-preview", args=[unit.pk])})
