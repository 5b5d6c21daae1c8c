"""Serializers of the researcher API. Gold values appear only in researcher serializers; the views that use
those serializers are reachable only by the project's researchers (see permissions.py)."""
from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotation_tasks.crowd import available_providers
from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    Job,
    Predicate,
    Project,
    ProjectMembership,
    QualityDecision,
    Response,
    Source,
    Unit,
    Worker,
)
from annotation_tasks.protocols.display import Display, question
from annotation_tasks.services import exports, identity, jobs
from annotation_tasks.services.batches import publish_blockers

MAX_ID = 2**63 - 1  # the widest id column (BigAutoField)


class ProjectSerializer(serializers.ModelSerializer):
    protocol = serializers.ListField(
        child=serializers.CharField(max_length=40), allow_empty=False,
        help_text="Ordered steps, each a step a protocol serves (GET /api/protocols/: steps).",
    )
    role = serializers.SerializerMethodField(help_text="The caller's role in this project.")

    class Meta:
        model = Project
        fields = ["id", "name", "description", "protocol", "annotations_per_item", "instructions", "parse_policy",
                  "unit_caps", "created_at", "role"]
        read_only_fields = ["created_at"]

    def validate_parse_policy(self, value: object) -> dict:
        """Which parser QAs and facts are kept (services.parsing.check_policy names the bad field)."""
        from annotation_tasks.services.parsing import check_policy
        from parser.policy import PolicyError

        try:
            return check_policy(value).as_dict()
        except PolicyError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def validate_unit_caps(self, value: object) -> dict:
        """At most this many spans / qas / facts per unit (services.units.check_caps)."""
        from annotation_tasks.services.units import CapsError, check_caps

        try:
            return check_caps(value)
        except CapsError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def validate_protocol(self, value: list[str]) -> list[str]:
        """Each step once, each served by a protocol, all of one crowd protocol (a project's units are composed in
        one mode: protocols.registry.mode_for_steps); refused at protocol[i] otherwise."""
        from annotation_tasks.protocols.registry import all_steps, crowd_modes

        if len(set(value)) != len(value):
            raise serializers.ValidationError("A step appears twice.")
        owner = {step.value: mode for step, mode in all_steps()}
        modes = crowd_modes(value)
        for i, step in enumerate(value):
            if step not in owner:
                raise serializers.ValidationError({i: [f"{step!r} is a step no protocol serves"]})
            if modes and owner[step] in modes[1:]:
                raise serializers.ValidationError(
                    {i: [f"{step!r} is a step of the {owner[step]} protocol; this project's steps are "
                         f"{modes[0]}'s (one crowd protocol per project)"]})
        return value

    def validate_annotations_per_item(self, value: int) -> int:
        if not 1 <= value <= 50:
            raise serializers.ValidationError("Between 1 and 50.")
        return value

    @extend_schema_field(OpenApiTypes.STR)
    def get_role(self, project: Project) -> str:
        user = self.context["request"].user
        if user.is_superuser:
            return ProjectMembership.Role.RESEARCHER
        membership = next((m for m in project.memberships.all() if m.user_id == user.id), None)
        return membership.role if membership else ""


class AnnotatorProjectSerializer(ProjectSerializer):
    """What an annotator may know about a project: the task, not the data."""

    class Meta(ProjectSerializer.Meta):
        fields = ["id", "name", "protocol", "instructions", "role"]


class TextSlugRelatedField(serializers.SlugRelatedField):
    """A SlugRelatedField that refuses a NUL character before the lookup, as CharField does: PostgreSQL's driver
    raises on a NUL in a query (a 500), and no slug holds one."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            raise serializers.ValidationError("Null characters are not allowed.")
        return super().to_internal_value(data)


class MembershipSerializer(serializers.ModelSerializer):
    username = TextSlugRelatedField(source="user", slug_field="username", queryset=get_user_model().objects.all())

    class Meta:
        model = ProjectMembership
        fields = ["id", "username", "role"]


class SourceSerializer(serializers.ModelSerializer):
    response_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Source
        fields = ["id", "project", "external_id", "text", "passages", "question", "metadata", "response_count"]
        read_only_fields = fields


class ResponseSerializer(serializers.ModelSerializer):
    source_external_id = serializers.CharField(source="source.external_id", read_only=True)
    predicate_count = serializers.IntegerField(read_only=True)
    qa_count = serializers.IntegerField(read_only=True)
    fact_count = serializers.IntegerField(read_only=True)
    display = serializers.SerializerMethodField(
        help_text="The text as workers are shown it (tokenized imports detokenized) and [word, start, end] per token "
                  "into it; `text` and `tokens` stay as stored."
    )

    class Meta:
        model = Response
        fields = [
            "id", "project", "source", "source_external_id", "external_id", "system", "text", "tokens", "sentences",
            "metadata", "parsed_at", "parser_backend", "predicate_count", "qa_count", "fact_count", "display",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_display(self, response: Response) -> dict:
        return Display(response.text, response.tokens or []).shown()


class PredicateSerializer(serializers.ModelSerializer):
    class Meta:
        model = Predicate
        fields = ["id", "response", "token_index", "text", "verb_form", "kind", "pos", "sentence_index", "origin"]
        read_only_fields = fields


def _gold_value(obj) -> str | None:
    try:
        return obj.gold.value
    except Exception:  # RelatedObjectDoesNotExist of any target model
        return None


class QASerializer(serializers.ModelSerializer):
    """A QA for the validation screen: everything is read-only except `validity` (the expert's decision)."""

    predicate_text = serializers.CharField(source="predicate.text", read_only=True)
    predicate_token_index = serializers.IntegerField(source="predicate.token_index", read_only=True)
    predicate_kind = serializers.CharField(source="predicate.kind", read_only=True)
    gold = serializers.SerializerMethodField(help_text="Gold value for quality control, or null.")
    question_shown = serializers.SerializerMethodField(
        help_text="The question as workers are shown it (a tokenized one detokenized); `question` stays as stored."
    )
    original = serializers.SerializerMethodField(
        help_text="Question and answer before the first correction (null: never corrected); see qas/{id}/correct/."
    )

    class Meta:
        model = QA
        fields = [
            "id", "response", "predicate", "predicate_text", "predicate_token_index", "predicate_kind", "external_id",
            "question", "question_shown", "answer", "answer_start", "answer_end", "role", "origin", "confidence",
            "validity", "edited", "original", "order", "gold",
        ]
        read_only_fields = [f for f in fields if f != "validity"]

    @extend_schema_field(OpenApiTypes.STR)
    def get_gold(self, qa: QA) -> str | None:
        return _gold_value(qa)

    @extend_schema_field(OpenApiTypes.STR)
    def get_question_shown(self, qa: QA) -> str:
        return question(qa.question)

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_original(self, qa: QA) -> dict | None:
        edits = list(qa.edits.all())  # prefetched by the view
        return edits[0].before if edits else None


class QACorrectionSerializer(serializers.Serializer):
    """A correction of a QA (services.validation.correct_qa checks it against the response's tokens)."""

    question = serializers.CharField(required=False, max_length=500)
    answer_start = serializers.IntegerField(required=False, min_value=0)
    answer_end = serializers.IntegerField(required=False, min_value=1)
    reason = serializers.CharField(required=False, allow_blank=True, max_length=500)
    validity = serializers.ChoiceField(choices=QA.Validity.choices, required=False)


class QABulkValidateSerializer(serializers.Serializer):
    filter = serializers.DictField(help_text="QA filter: project or batch (one required), kind, validity, origin, "
                                   "confidence_lt, confidence_gte, edited, response.")
    validity = serializers.ChoiceField(choices=QA.Validity.choices)


class QAValidityBulkSerializer(serializers.Serializer):
    # bounded: an id past 64 bits in an `IN` list is no lookup the ORM turns into "no row" (SQLite's driver
    # raises OverflowError on it); it is refused by position instead ("ids": {"0": [...]})
    ids = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_ID), allow_empty=False)
    validity = serializers.ChoiceField(choices=QA.Validity.choices)


class AnswerSpanSerializer(serializers.ModelSerializer):
    qa_ids = serializers.PrimaryKeyRelatedField(source="qas", many=True, read_only=True)
    gold = serializers.SerializerMethodField()

    class Meta:
        model = AnswerSpan
        fields = ["id", "response", "external_id", "start", "end", "text", "qa_ids", "origin", "order", "gold"]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.STR)
    def get_gold(self, span: AnswerSpan) -> str | None:
        return _gold_value(span)


class AtomicFactSerializer(serializers.ModelSerializer):
    gold = serializers.SerializerMethodField()

    class Meta:
        model = AtomicFact
        fields = ["id", "response", "sentence_index", "text", "origin", "kind", "order", "gold"]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.STR)
    def get_gold(self, fact: AtomicFact) -> str | None:
        return _gold_value(fact)


class PublishBlockerSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The rule that blocks: status, provider, no_units, undecided_qas, "
                                 "insufficient_funds...")
    message = serializers.CharField(help_text="Why, for people.")
    count = serializers.IntegerField(required=False, help_text="How many items block (undecided_qas).")
    link = serializers.CharField(required=False, help_text="The dashboard screen that fixes it.")


class BatchSerializer(serializers.ModelSerializer):
    provider = serializers.ChoiceField(choices=[(p, p) for p in available_providers()], default="local")
    unit_count = serializers.IntegerField(read_only=True)
    units_by_status = serializers.SerializerMethodField()
    publishable = serializers.SerializerMethodField(help_text="Whether the batch can be published now.")
    publish_blockers = serializers.SerializerMethodField(
        help_text="Why not (empty when publishable); the balance is checked by the estimate, not here."
    )

    class Meta:
        model = Batch
        fields = [
            "id", "project", "name", "provider", "status", "settings", "provider_ref", "created_at", "published_at",
            "unit_count", "units_by_status", "publishable", "publish_blockers",
        ]
        read_only_fields = ["status", "provider_ref", "created_at", "published_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._publish_blockers: dict[int, list[dict[str, str]]] = {}
        request = self.context.get("request")
        if request is not None and "project" in self.fields:
            from annotation_tasks.api.permissions import researcher_projects

            self.fields["project"].queryset = researcher_projects(request.user)

    def validate_settings(self, value: object) -> dict:
        """Every known key is checked here, on create and on edit (one bad value stored would break every
        annotator's queue: services.batch_settings), each bad one named: {"settings": {key: [...]}}.
        The validation override is written only by publishing with a reason (it is logged): a settings
        edit keeps the stored one and cannot add one."""
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be an object")
        from annotation_tasks.services import batch_settings, routing

        problems = {key: [message] for key, message in batch_settings.settings_problems(value).items()}
        try:
            routing.parse(value)
        except routing.RoutingError as exc:  # located: {"settings": {"routing.threshold": [...]}}
            problems[exc.field] = [exc.message]
        if problems:
            raise serializers.ValidationError(problems)
        kept = {k: v for k, v in value.items() if k not in ("validation_override", "validation_overrides")}
        stored = (self.instance.settings or {}) if isinstance(self.instance, Batch) else {}
        kept.update({k: stored[k] for k in ("validation_override", "validation_overrides") if k in stored})
        return kept

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
    def get_units_by_status(self, batch: Batch) -> dict[str, int]:
        # grouped in the database: a batch of 10^5 units is not read row by row (api/batches.py, issue 25); the
        # list counts its page's batches in one grouped query (BatchViewSet.attach_counts)
        kept = getattr(batch, "units_by_status_counted", None)
        if kept is not None:
            return dict(kept)
        rows = batch.units.order_by().values_list("status").annotate(n=Count("pk"))
        return {status: n for status, n in rows}

    def _blockers(self, batch: Batch) -> list[dict[str, str]]:
        """The service's publish checks, run once per batch for both fields."""
        if batch.pk not in self._publish_blockers:
            self._publish_blockers[batch.pk] = [b.as_dict() for b in publish_blockers(batch)]
        return self._publish_blockers[batch.pk]

    def get_publishable(self, batch: Batch) -> bool:
        return not self._blockers(batch)

    @extend_schema_field(PublishBlockerSerializer(many=True))
    def get_publish_blockers(self, batch: Batch) -> list[dict[str, str]]:
        return self._blockers(batch)


class EstimateQuerySerializer(serializers.Serializer):
    """The estimate's query: the reward and assignments per unit a publish accepts (so what was estimated can be
    published), checked before any arithmetic: NaN, 1e30 or a 20-digit reward is a 400 naming it, not a 500."""

    reward = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal(0),
                                      help_text="Reward per assignment, e.g. 1.50")
    assignments_per_unit = serializers.IntegerField(min_value=1, max_value=50, required=False,
                                                    help_text="Default: the project's annotations per item.")


class PublishSerializer(EstimateQuerySerializer):
    confirm = serializers.BooleanField(
        default=False, help_text="Must be true: publishing spends money on paid platforms."
    )
    override_validation_reason = serializers.CharField(
        required=False, allow_blank=True, max_length=1000,
        help_text="Publish units that hold undecided QAs anyway (protocols with QA validation): why. Kept on the "
        "batch (settings.validation_override) and logged.",
    )


class HourlyRateSerializer(serializers.Serializer):
    """What a worker is expected to earn per hour on this provider (services.sessions.hourly_rate)."""

    per_hour = serializers.DecimalField(max_digits=10, decimal_places=2)
    currency = serializers.CharField()
    seconds_per_unit = serializers.FloatField()
    source = serializers.CharField(help_text="pilot median, project median, or the researcher's estimate")
    minimum = serializers.DecimalField(max_digits=10, decimal_places=2, allow_null=True,
                                       help_text="The platform's minimum per hour (Prolific), null where none.")
    below_minimum = serializers.BooleanField()
    text = serializers.CharField()


class CostEstimateSerializer(serializers.Serializer):
    units = serializers.IntegerField()
    assignments_per_unit = serializers.IntegerField()
    reward = serializers.DecimalField(max_digits=10, decimal_places=2)
    fees = serializers.DecimalField(max_digits=10, decimal_places=2)
    total = serializers.DecimalField(max_digits=12, decimal_places=2)
    currency = serializers.CharField()
    balance = serializers.DecimalField(max_digits=12, decimal_places=2, allow_null=True)
    publishable = serializers.BooleanField(help_text="Whether publishing would go ahead (rules and balance).")
    publish_blockers = PublishBlockerSerializer(many=True)
    hourly_rate = HourlyRateSerializer(required=False, allow_null=True)
    places = serializers.IntegerField(required=False, allow_null=True,
                                      help_text="One-study platforms: the places paid (units_per_place units each).")
    units_per_place = serializers.IntegerField(required=False, allow_null=True)


class UnitSerializer(serializers.ModelSerializer):
    source_external_id = serializers.CharField(source="source.external_id", read_only=True)
    response_ids = serializers.PrimaryKeyRelatedField(source="responses", many=True, read_only=True)
    assignments_by_status = serializers.SerializerMethodField()

    class Meta:
        model = Unit
        fields = [
            "id", "project", "batch", "source", "source_external_id", "response_ids", "mode", "assignments_wanted",
            "is_gold", "status", "provider_ref", "created_at", "assignments_by_status",
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
    def get_assignments_by_status(self, unit: Unit) -> dict[str, int]:
        counts: dict[str, int] = {}
        for assignment in unit.assignments.all():
            counts[assignment.status] = counts.get(assignment.status, 0) + 1
        return counts


class WorkerBriefSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True, allow_null=True, default=None)
    name = serializers.SerializerMethodField(help_text="The display name (services.identity.display_name).")
    pseudonym = serializers.CharField(read_only=True, help_text="Stable pseudonymous id, as in reports and exports.")

    class Meta:
        model = Worker
        fields = ["id", "pseudonym", "name", "provider", "external_id", "username", "status"]
        read_only_fields = fields

    def get_name(self, worker: Worker) -> str:
        return identity.display_name(worker)


class AssignmentSerializer(serializers.ModelSerializer):
    """An assignment's bookkeeping (never its labels: those live in the report and the exports)."""

    worker = WorkerBriefSerializer(read_only=True)
    project = serializers.IntegerField(source="unit.project_id", read_only=True)
    batch = serializers.IntegerField(source="unit.batch_id", read_only=True, allow_null=True)

    class Meta:
        model = Assignment
        fields = [
            "id", "unit", "project", "batch", "worker", "status", "provider_assignment_id", "created_at", "started_at",
            "submitted_at", "expires_at", "reviewed_at", "time_on_task_ms", "feedback", "bonus_paid",
            "verification", "verification_note", "verified_at",
        ]
        read_only_fields = fields

    def to_representation(self, instance: Assignment) -> dict:
        """The worker named as in its project's report and exports (pseudonyms are per project)."""
        data = super().to_representation(instance)
        if isinstance(data.get("worker"), dict):
            project_id = instance.unit.project_id
            data["worker"]["pseudonym"] = instance.worker.pseudonym_in(project_id)
            data["worker"]["name"] = identity.display_name(instance.worker, project_id)
        return data


class WorkerSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True, allow_null=True, default=None)
    metrics = serializers.SerializerMethodField(
        help_text="Per-project quality numbers (with ?project=): gold accuracy, agreement, units done."
    )

    name = serializers.SerializerMethodField(help_text="The display name (services.identity.display_name).")
    pseudonym = serializers.SerializerMethodField(
        help_text="Pseudonymous id in ?project=, as in its reports and exports (per project; without ?project= the "
        "account-wide id, which no export carries)."
    )
    status = serializers.SerializerMethodField(
        help_text="The worker's status in ?project= (warnings and blocks are decided per project); without it, 'active'."
    )
    qualifications = serializers.SerializerMethodField(help_text="Qualifications granted in ?project= ({} without it).")

    class Meta:
        model = Worker
        fields = ["id", "pseudonym", "name", "provider", "external_id", "username", "status", "qualifications",
                  "created_at", "metrics"]
        read_only_fields = fields

    def get_name(self, worker: Worker) -> str:
        return identity.display_name(worker, self.context.get("project_id"))

    def get_pseudonym(self, worker: Worker) -> str:
        return identity.pseudonym(worker, self.context.get("project_id"))

    @extend_schema_field({"type": "object", "additionalProperties": True, "nullable": True})
    def get_metrics(self, worker: Worker) -> dict | None:
        return self.context.get("metrics", {}).get(worker.id)

    @extend_schema_field({"type": "string", "enum": list(Worker.Status.values)})
    def get_status(self, worker: Worker) -> str:
        return self.context.get("standing", {}).get(worker.id, (Worker.Status.ACTIVE, {}))[0]

    @extend_schema_field({"type": "object", "additionalProperties": True})
    def get_qualifications(self, worker: Worker) -> dict:
        return self.context.get("standing", {}).get(worker.id, (Worker.Status.ACTIVE, {}))[1]


class AssignmentDecisionSerializer(serializers.Serializer):
    feedback = serializers.CharField(required=False, allow_blank=True, default="")


class BonusAmountSerializer(serializers.Serializer):
    amount = serializers.DecimalField(max_digits=8, decimal_places=2, min_value=Decimal("0.01"))
    reason = serializers.CharField()
    key = serializers.CharField(required=False, allow_blank=True, default="", max_length=40,
                                help_text="Makes a second bonus of the same amount a new one (else a retry).")


class BlockSerializer(serializers.Serializer):
    reason = serializers.CharField()
    project = serializers.IntegerField(help_text="The project in whose name the worker is blocked.")
    platform = serializers.BooleanField(
        required=False, default=False,
        help_text="Also block on the platform (account-wide there: every project on that account loses the worker).",
    )


class QualityDecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = QualityDecision
        fields = [
            "id", "worker", "assignment", "action", "reason", "metrics", "amount", "status", "reverses", "created_at"
        ]
        read_only_fields = fields


SERVER_ONLY_PARAMS = frozenset({"path", "upload"})  # Job params that name places on the server


class JobSerializer(serializers.ModelSerializer):
    progress = serializers.FloatField(read_only=True)
    stalled = serializers.SerializerMethodField(
        help_text="Running, but its worker has given no heartbeat for JOB_STALL_SECONDS: it needs a resume.")
    can_resume = serializers.SerializerMethodField(
        help_text="Stalled or failed: POST /api/jobs/<id>/resume/ queues it again (it picks up where it stopped).")

    class Meta:
        model = Job
        fields = [
            "id", "project", "kind", "status", "stalled", "can_resume", "params", "done", "total", "progress",
            "error", "result", "created_at", "started_at", "heartbeat_at", "finished_at",
        ]
        read_only_fields = fields

    def to_representation(self, job: Job) -> dict:
        data = super().to_representation(job)
        # Where the server keeps files is none of an API client's business (older import Jobs kept the path).
        data["params"] = {k: v for k, v in (data.get("params") or {}).items() if k not in SERVER_ONLY_PARAMS}
        return data

    def get_stalled(self, job: Job) -> bool:
        return jobs.is_stalled(job)

    def get_can_resume(self, job: Job) -> bool:
        return jobs.offers_resume(job)


class UploadSerializer(serializers.Serializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(
        choices=["", *IMPORTERS], required=False, default="",
        help_text="Importer (importers/registry.py; GET /api/protocols/: importers); empty = plain items (JSONL or CSV).",
    )
    system = serializers.CharField(required=False, allow_blank=True, default="",
                                   help_text="factscore: the system name (default: the file name's stem).")


class ExportQuerySerializer(serializers.Serializer):
    """The query of GET projects/<id>/export/: the formats and options `manage.py export` has, each checked by name."""

    export_format = serializers.ChoiceField(choices=[*exports.FORMATS, *exports.DATASET_FORMATS])
    aggregation = serializers.ChoiceField(choices=list(exports.AGGREGATIONS), required=False, default="majority",
                                          help_text="the model whose label the export writes")
    file = serializers.ChoiceField(choices=["jsonl", "csv"], required=False, default="jsonl",
                                   help_text="csv: the same records as a CSV (lists and objects as JSON cells)")
    no_majority = serializers.BooleanField(required=False, default=False, help_text="qasem-release: the bare schema")
    with_platform_ids = serializers.BooleanField(
        required=False, default=False, help_text="qa-jsonl, hf-dataset: each voter's platform id beside its pseudonym")

    def validate(self, data: dict) -> dict:
        fmt = data["export_format"]
        if data["no_majority"] and fmt != "qasem-release":
            raise serializers.ValidationError({"no_majority": "only for qasem-release"})
        if data["with_platform_ids"] and fmt not in ("qa-jsonl", "hf-dataset"):
            raise serializers.ValidationError({"with_platform_ids": "only for qa-jsonl and hf-dataset"})
        return data

    def exporter_options(self) -> dict:
        """The keyword options of services.exports for the checked query."""
        data = self.validated_data
        options: dict = {"aggregation": data["aggregation"]}
        if data["export_format"] == "qasem-release":
            options["include_majority"] = not data["no_majority"]
        if data["with_platform_ids"]:
            options["with_platform_ids"] = True
        return options


class ParseRequestSerializer(serializers.Serializer):
    backend = serializers.CharField(required=False, allow_blank=True, default="")
    reparse = serializers.BooleanField(
        required=False, default=False,
        help_text="Parse every response again (the parser's own QAs are replaced; imported, validated, edited "
                  "and labeled QAs stay). By default only responses not yet decomposed are parsed.",
    )


class ComposeSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(
        choices=["", *Unit.Mode.values], required=False, default="",
        help_text="Empty: from the project's protocol.",
    )
    assignments_wanted = serializers.IntegerField(required=False, min_value=1, max_value=50, default=None,
                                                  allow_null=True)
