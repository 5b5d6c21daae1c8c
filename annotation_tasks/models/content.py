"""What is judged: a source (reference), its responses (generated texts), and their parse.

Token indices are positions in the response's tokens flattened across sentences; spans are
half-open [start, end) as in the QASemConsistency release.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotation_tasks.models.projects import Project


class Origin(models.TextChoices):
    PARSER = "parser"
    IMPORTED = "imported"
    HUMAN = "human"


class Source(models.Model):
    """The reference text (or several passages, e.g. RAG contexts), with an optional question."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="sources")
    external_id = models.CharField(max_length=255)
    text = models.TextField(blank=True)
    tokens = models.JSONField(null=True, blank=True, help_text="Token list when the source came tokenized.")
    passages = models.JSONField(default=list, blank=True, help_text="Retrieved contexts, for RAG items.")
    question = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["project", "external_id"], name="unique_source_per_project")]

    def __str__(self) -> str:
        return self.external_id


class Response(models.Model):
    """A generated text judged against its source.

    tokens: [[text, char_start, char_end], ...] over `text`.
    sentences: [{"start": tok, "end": tok, "text": str, ...}, ...]; extra keys keep format details
    (e.g. FActScore's is_relevant).
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="responses")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="responses")
    external_id = models.CharField(max_length=255)
    system = models.CharField(max_length=200, db_index=True)
    text = models.TextField()
    tokens = models.JSONField(default=list, blank=True)
    sentences = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    parsed_at = models.DateTimeField(null=True, blank=True)
    parser_backend = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="unique_response_per_project")
        ]

    def __str__(self) -> str:
        return f"{self.external_id} ({self.system})"


class Predicate(models.Model):
    class Kind(models.TextChoices):
        VERBAL = "verbal"
        NOMINAL = "nominal"
        COPULAR = "copular"

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="predicates")
    token_index = models.PositiveIntegerField()
    text = models.CharField(max_length=200)
    verb_form = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.VERBAL)
    pos = models.CharField(max_length=10, blank=True, help_text="Part of speech as released (VERB, NOUN, AUX).")
    sentence_index = models.PositiveIntegerField(default=0)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.PARSER)

    class Meta:
        ordering = ["response_id", "token_index"]
        constraints = [
            models.UniqueConstraint(fields=["response", "token_index"], name="one_predicate_per_token")
        ]
        # a kind's predicates: the QA list's ?kind= asks which kinds a project has (an EXISTS each, issue 25)
        indexes = [models.Index(fields=["kind"], name="predicate_kind")]


def fill_kept_project(rows: list, parent: str) -> None:
    """Set each row's kept `project` (QA.project, Assignment.project: the dashboard lists read them without a join,
    issue 25) from its `parent` (a QA's response, an assignment's unit) where it is not set: from the parent object
    when it is at hand with its project loaded (the annotator's path: no query), else one query for all of them."""
    missing = [row for row in rows if row.project_id is None]
    if not missing:
        return
    descriptor = getattr(type(missing[0]), parent)
    attname = descriptor.field.attname

    def at_hand(row) -> bool:  # type: ignore[no-untyped-def]
        return descriptor.is_cached(row) and "project_id" not in getattr(row, parent).get_deferred_fields()

    unknown = {getattr(row, attname) for row in missing if not at_hand(row)}
    owner = (dict(descriptor.field.related_model.objects.filter(pk__in=unknown).values_list("pk", "project_id"))
             if unknown else {})
    for row in missing:
        row.project_id = getattr(row, parent).project_id if at_hand(row) else owner.get(getattr(row, attname))


class KeptProjectQuerySet(models.QuerySet):
    """bulk_create fills the kept `project` of the rows from their `parent` (fill_kept_project)."""

    parent = ""

    def bulk_create(self, objs, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        objs = list(objs)
        fill_kept_project(objs, self.parent)
        return super().bulk_create(objs, *args, **kwargs)


class QAQuerySet(KeptProjectQuerySet):
    parent = "response"


class QA(models.Model):
    class Validity(models.TextChoices):
        UNKNOWN = "unknown"
        VALID = "valid"
        INVALID = "invalid"

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="qas")
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="+", db_index=False, editable=False,
        help_text="The response's project, kept on the QA (filled on save and bulk_create) so a project's QA lists "
                  "and counts read one index, not a join per QA (issue 25).",
    )
    predicate = models.ForeignKey(Predicate, on_delete=models.CASCADE, related_name="qas")
    external_id = models.CharField(max_length=255, blank=True)
    question = models.CharField(max_length=500)
    raw_question = models.JSONField(null=True, blank=True, help_text="QA-SRL 7 slots: wh aux subj verb obj prep obj2")
    answer = models.CharField(max_length=1000)
    answer_start = models.PositiveIntegerField()
    answer_end = models.PositiveIntegerField()
    role = models.CharField(max_length=40, blank=True)
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.PARSER)
    validity = models.CharField(max_length=10, choices=Validity.choices, default=Validity.UNKNOWN)
    edited = models.BooleanField(default=False, help_text="Changed by a person; parsing never replaces it.")
    confidence = models.FloatField(
        null=True, blank=True, help_text="The parser's estimate (0..1) that the QA is right; null: imported or human."
    )
    metadata = models.JSONField(default=dict, blank=True)
    order = models.PositiveIntegerField(default=0)

    objects = QAQuerySet.as_manager()

    class Meta:
        ordering = ["response_id", "order", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(answer_end__gt=F("answer_start")), name="qa_answer_span_nonempty"),
        ]
        indexes = [
            # a project's QAs by id (the validation screen's order) and by validity then id (its filter): counts
            # and pages at any depth are index-only scans (issue 25)
            models.Index(fields=["project", "id"], name="qa_project_id"),
            models.Index(fields=["project", "validity", "id"], name="qa_project_validity_id"),
        ]

    def save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "project_id" not in self.get_deferred_fields() and self.project_id is None:  # a deferred one is stored
            fill_kept_project([self], "response")
        super().save(*args, **kwargs)


class QAEdit(models.Model):
    """One correction of a QA by an expert (question and/or answer span), with what it was before: the QA row
    holds what workers see now, the first edit's `before` is the parser's (or the import's) original."""

    qa = models.ForeignKey(QA, on_delete=models.CASCADE, related_name="edits")
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    before = models.JSONField(help_text="question, answer, answer_start, answer_end before this edit")
    after = models.JSONField(help_text="the same fields after it")
    reason = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["qa_id", "created_at", "id"]


class AnswerSpan(models.Model):
    """A merged answer span of a response: step 1 labels these; its QAs follow."""

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="answer_spans")
    external_id = models.CharField(max_length=255, blank=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.CharField(max_length=1000, blank=True)
    qas = models.ManyToManyField(QA, related_name="answer_spans")
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.PARSER)
    order = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["response_id", "order", "start", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(end__gt=F("start")), name="answer_span_nonempty"),
        ]


class AtomicFact(models.Model):
    class Validation(models.TextChoices):
        """An expert's decision on a model fact before workers see it (the fact_validation step,
        services/fact_validation.py). A fixed or split fact stays as it was (provenance) and workers see the
        facts written from it (WRITTEN, edited_from: the original); a dropped one reaches no worker."""

        UNKNOWN = "unknown"
        KEPT = "kept"
        FIXED = "fixed"
        SPLIT = "split"
        DROPPED = "dropped"
        WRITTEN = "written"

        @classmethod
        def hidden(cls) -> list[str]:
            """Decisions that keep a fact from workers, the analysis and the exports' labels."""
            return [cls.FIXED.value, cls.SPLIT.value, cls.DROPPED.value]

    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="atomic_facts")
    sentence_index = models.PositiveIntegerField(default=0)
    text = models.TextField()
    origin = models.CharField(max_length=10, choices=Origin.choices, default=Origin.PARSER)
    kind = models.CharField(
        max_length=10,
        default="model",
        help_text="'model' facts come from a splitter (LLM or rules); 'human' facts were written or edited by people.",
    )
    edited_from = models.ManyToManyField("self", symmetrical=False, related_name="edited_into", blank=True)
    created_by_assignment = models.ForeignKey(
        "annotation_tasks.Assignment", null=True, blank=True, on_delete=models.CASCADE, related_name="created_facts"
    )
    confidence = models.FloatField(
        null=True, blank=True, help_text="The splitter's estimate (0..1) that the fact is right; null: not a model fact."
    )
    order = models.PositiveIntegerField(default=0)
    validation = models.CharField(max_length=10, choices=Validation.choices, default=Validation.UNKNOWN)
    validated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["response_id", "sentence_index", "order", "id"]
