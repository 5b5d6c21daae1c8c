"""Projects (a study with its protocol) and background jobs."""
from __future__ import annotations

from django.conf import settings
from django.db import models


class Protocol(models.TextChoices):
    """The steps a project can run; a project's protocol is an ordered subset."""

    QA_VALIDATION = "qa_validation", "QA validation (expert pre-step)"
    FACT_VALIDATION = "fact_validation", "Fact validation (expert pre-step: keep, fix, split or drop each fact)"
    SPAN_COVERAGE = "span_coverage", "Step 1: answer-span coverage"
    QA_SUPPORT = "qa_support", "Step 2: QA support"
    FACT_LABELING = "fact_labeling", "Atomic-fact labeling (FActScore)"
    PAIRWISE = "pairwise", "Pairwise comparison"
    RAGAS_PAIRWISE = "ragas_pairwise", "Ragas: two answers (faithfulness, answer relevance), two contexts"


DEFAULT_PROTOCOL = [Protocol.SPAN_COVERAGE.value, Protocol.QA_SUPPORT.value]


def default_protocol() -> list[str]:
    return list(DEFAULT_PROTOCOL)


DEFAULT_UNIT_CAPS: dict[str, int] = {"spans": 12, "qas": 20, "facts": 30}  # why: services/units.py


def default_parse_policy() -> dict:
    """Precision-first (parser.policy says why); read and checked by services.parsing.check_policy."""
    from parser.facts.confidence import DEFAULT_MIN_FACT_CONFIDENCE
    from parser.policy import DEFAULT_POLICY

    threshold = DEFAULT_POLICY.min_confidence
    return {
        "kinds": sorted(DEFAULT_POLICY.kinds),
        "min_confidence": dict(threshold) if isinstance(threshold, dict) else threshold,
        "max_qas_per_predicate": DEFAULT_POLICY.max_qas_per_predicate,
        "min_fact_confidence": DEFAULT_MIN_FACT_CONFIDENCE,
    }


def default_unit_caps() -> dict:
    """Items per unit a worker can finish (services.units splits longer responses)."""
    return dict(DEFAULT_UNIT_CAPS)


class Project(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    protocol = models.JSONField(default=default_protocol, help_text="Ordered list of Protocol values.")
    annotations_per_item = models.PositiveSmallIntegerField(default=3)
    instructions = models.TextField(blank=True)
    parse_policy = models.JSONField(
        default=default_parse_policy, blank=True,
        help_text="Which parser QAs are kept: kinds, min_confidence, max_qas_per_predicate, min_fact_confidence.",
    )
    unit_caps = models.JSONField(
        default=default_unit_caps, blank=True, help_text="At most this many spans / qas / facts per unit."
    )
    training_pass_mark = models.FloatField(
        default=0.8, help_text="Share of training items a new worker must match to get main units (services.training).")
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="ProjectMembership", related_name="factcrowd_projects", blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def has_step(self, step: str) -> bool:
        return step in (self.protocol or [])


class ProjectMembership(models.Model):
    class Role(models.TextChoices):
        RESEARCHER = "researcher"
        ANNOTATOR = "annotator"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="factcrowd_memberships")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.RESEARCHER)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="one_membership_per_user")]


class Job(models.Model):
    """A long operation (import, parse, publish, sync, score) run by a Celery worker, with progress.

    The lifecycle (create, queue on commit, progress, heartbeat, outcome, resume) lives in services/jobs.py."""

    class Kind(models.TextChoices):
        IMPORT = "import"
        PARSE = "parse"
        SYNC = "sync"
        PUBLISH = "publish"
        SCORE = "score"
        EXPORT = "export"
        COMPOSE = "compose"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

        @classmethod
        def unfinished(cls) -> tuple[Job.Status, ...]:
            return (cls.QUEUED, cls.RUNNING)

        @classmethod
        def finished(cls) -> tuple[Job.Status, ...]:
            return (cls.DONE, cls.FAILED)

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="jobs")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    celery_id = models.CharField(max_length=64, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life from the running worker.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    @property
    def progress(self) -> float:
        return (self.done / self.total) if self.total else 0.0
