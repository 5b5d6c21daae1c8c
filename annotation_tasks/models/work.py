"""Who judges what: workers, batches, units (HITs), assignments, quality decisions.

Nothing here knows a platform's API: `provider` is a name and `provider_ref` an opaque id that
only annotation_tasks.crowd interprets.
"""
from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation_tasks.models.content import KeptProjectQuerySet, Response, Source, fill_kept_project
from annotation_tasks.models.projects import Project


def new_pseudonym_salt() -> str:
    """A fresh per-worker key for the pseudonymous id."""
    return secrets.token_hex(16)


class Worker(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        WARNED = "warned"
        SOFT_BLOCKED = "soft_blocked"
        BLOCKED = "blocked"

        @classmethod
        def blocked(cls) -> tuple[Worker.Status, ...]:
            """Statuses that keep a worker from new units (soft: only ours; hard: also on the platform)."""
            return (cls.SOFT_BLOCKED, cls.BLOCKED)

    provider = models.CharField(max_length=20, default="local")
    external_id = models.CharField(max_length=255)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="factcrowd_worker"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    qualifications = models.JSONField(default=dict, blank=True)
    display_name = models.CharField(max_length=80, blank=True, help_text="The name people see (the invite asks).")
    pseudonym_salt = models.CharField(
        max_length=32, default=new_pseudonym_salt, help_text="Keys the pseudonymous id; independent of SECRET_KEY."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["provider", "external_id"]
        constraints = [models.UniqueConstraint(fields=["provider", "external_id"], name="unique_worker_per_provider")]

    def __str__(self) -> str:
        return f"{self.provider}:{self.external_id}"

    @property
    def pseudonym(self) -> str:
        """The stable pseudonymous id ("W-" + keyed hash of provider:external_id) shown and exported instead of
        platform ids; its key is stored on the row, so rotating SECRET_KEY never changes it
        (annotation_tasks.services.identity)."""
        digest = hashlib.blake2s(f"{self.provider}:{self.external_id}".encode(), key=self.pseudonym_salt.encode(),
                                 digest_size=5)
        return "W-" + digest.hexdigest()

    def pseudonym_in(self, project_id: int | None) -> str:
        """The worker's pseudonymous id within one project: stable there, unrelated to its id in any other project,
        so a researcher who shares a worker with another cannot find that worker in the other's exports.
        Everything that names a worker about a project (exports, report, review, adjudication, the workers table
        with ?project=) uses it; `pseudonym` (no project) is only the account-wide id of lists across projects."""
        if project_id is None:
            return self.pseudonym
        digest = hashlib.blake2s(f"project:{int(project_id)}|{self.provider}:{self.external_id}".encode(),
                                 key=self.pseudonym_salt.encode(), digest_size=5)
        return "W-" + digest.hexdigest()


class Batch(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        PUBLISHED = "published"
        CLOSED = "closed"
        IMPORTED = "imported"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="batches")
    name = models.CharField(max_length=200)
    provider = models.CharField(max_length=20, default="local")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    settings = models.JSONField(default=dict, blank=True, help_text="Reward, durations, qualifications, gold rate.")
    provider_ref = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    published_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["project", "name"], name="unique_batch_name_per_project")]

    def __str__(self) -> str:
        return self.name


class Unit(models.Model):
    """A work unit (HIT): one source with one or more responses."""

    class Status(models.TextChoices):
        OPEN = "open"
        COMPLETE = "complete"
        CLOSED = "closed"

    class Mode(models.TextChoices):
        """What a worker does in the unit; each mode is one protocol module (annotation_tasks.protocols)."""

        QASEM = "qasem", "QASem: span coverage, QA support (+ pairwise)"
        FACTSCORE = "factscore", "FActScore atomic-fact labeling"
        VALIDATION = "validation", "Expert QA validation"
        RAGAS = "ragas", "Ragas: answers and contexts compared (faithfulness, answer / context relevance)"
        ENTAILMENT = "entailment", "Fact entailment: supported / contradicted / not enough info (+ rationale)"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="units")
    batch = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.CASCADE, related_name="units")
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="units")
    responses = models.ManyToManyField(Response, through="UnitResponse", related_name="units")
    mode = models.CharField(max_length=20, choices=Mode.choices, default=Mode.QASEM)
    assignments_wanted = models.PositiveSmallIntegerField(default=3)
    is_gold = models.BooleanField(default=False)
    is_training = models.BooleanField(
        default=False, help_text="A training unit: new workers get it first and see the expert's labels after submit "
                                 "(services.training); its items' expert labels are GoldLabels with an explanation.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    provider_ref = models.CharField(max_length=255, blank=True, help_text="e.g. the MTurk HITId")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["project", "status"])]


class UnitResponse(models.Model):
    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="unit_responses")
    response = models.ForeignKey(Response, on_delete=models.CASCADE, related_name="unit_responses")
    position = models.PositiveSmallIntegerField(default=0)
    items = models.JSONField(
        null=True, blank=True,
        help_text="A slice of the response (a response over the project's unit caps is split across units): "
        '{"part": k, "parts": n, "spans": [ids], "qas": [ids], "facts": [ids]}; null: all its items.',
    )

    class Meta:
        ordering = ["unit_id", "position"]
        constraints = [models.UniqueConstraint(fields=["unit", "response"], name="response_once_per_unit")]


class AssignmentQuerySet(KeptProjectQuerySet):
    parent = "unit"


class Assignment(models.Model):
    """A worker's attempt at a unit: draft, submission, times, and what the worker saw."""

    class Status(models.TextChoices):
        ASSIGNED = "assigned"
        SUBMITTED = "submitted"
        APPROVED = "approved"
        REJECTED = "rejected"
        EXPIRED = "expired"
        RETURNED = "returned"

        @classmethod
        def active(cls) -> tuple[Assignment.Status, ...]:
            """Attempts that hold a slot of the unit (a worker gets a unit at most once while one is active)."""
            return (cls.ASSIGNED, cls.SUBMITTED, cls.APPROVED)

        @classmethod
        def counted(cls) -> tuple[Assignment.Status, ...]:
            """Submitted or approved: the work whose labels count in reports, exports and unit completion."""
            return (cls.SUBMITTED, cls.APPROVED)

        @classmethod
        def done(cls) -> tuple[Assignment.Status, ...]:
            """Finished by the worker (counted or rejected): no more drafts or submits."""
            return (cls.SUBMITTED, cls.APPROVED, cls.REJECTED)

    class Verification(models.TextChoices):
        """Whether the platform vouches for the attempt. A platform page can be opened with made-up ids, so work
        entered from a platform counts only once sync has found it on the platform (services.publishing)."""

        NOT_NEEDED = "not_needed", "no platform to ask (our own annotators)"
        PENDING = "pending", "entered from a platform; sync has not found it there yet"
        ADMITTED = "admitted", "the platform knew the worker's session at entry; sync has not found it submitted yet"
        VERIFIED = "verified", "the platform reports this submission"
        UNVERIFIED = "unverified", "the platform does not know this submission, or its completion code is wrong"

        @classmethod
        def trusted(cls) -> tuple[Assignment.Verification, ...]:
            """Verifications whose submitted work counts in reports, exports and auto-approval."""
            return (cls.NOT_NEEDED, cls.VERIFIED)

        @classmethod
        def holds_slot(cls) -> tuple[Assignment.Verification, ...]:
            """Verifications whose active assignments take one of a unit's slots: a pending entry (the platform
            could not vouch for it at the door) never does, so made-up ids lock no real worker out."""
            return (cls.NOT_NEEDED, cls.ADMITTED, cls.VERIFIED)

    @classmethod
    def counted_q(cls, prefix: str = "") -> Q:
        """THE definition of work whose labels count (frames, exporters, approval policy): submitted or approved,
        and vouched for by its platform (or no platform to ask). `prefix` reaches it from a label
        ("assignment__")."""
        return Q(**{f"{prefix}status__in": cls.Status.counted(),
                    f"{prefix}verification__in": cls.Verification.trusted()})

    @classmethod
    def data_q(cls, prefix: str = "") -> Q:
        """Counted work whose labels are data (frames, agreement, reports, exports): counted_q outside training
        units. A training unit's labels are the worker's practice against the expert's (services/training.py):
        they are paid and judged, never aggregated."""
        return cls.counted_q(prefix) & Q(**{f"{prefix}unit__is_training": False})

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="assignments")
    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="+", db_index=False, editable=False,
        help_text="The unit's project, kept on the assignment (filled on save and bulk_create) so a project's "
                  "assignment lists, counts by status and the monitor read one index, not a join per assignment "
                  "(issue 25).",
    )
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ASSIGNED)
    provider_assignment_id = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    time_on_task_ms = models.PositiveBigIntegerField(null=True, blank=True)
    draft = models.JSONField(null=True, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    draft_version = models.PositiveIntegerField(
        default=0, help_text="Bumped by every saved draft: a save naming an older version is a stale tab (409)."
    )
    shown = models.JSONField(default=dict, blank=True, help_text="What the worker saw: ids and texts shown.")
    submission = models.JSONField(null=True, blank=True, help_text="The raw submitted payload.")
    feedback = models.TextField(blank=True)
    bonus_paid = models.DecimalField(max_digits=8, decimal_places=2, default=0)
    verification = models.CharField(max_length=20, choices=Verification.choices, default=Verification.NOT_NEEDED)
    verified_at = models.DateTimeField(null=True, blank=True, help_text="When sync last checked it on the platform.")
    verification_note = models.CharField(max_length=200, blank=True, help_text="Why it is unverified.")

    class Meta:
        ordering = ["id"]
        constraints = [
            # A unit never goes twice to the same worker while that attempt counts.
            models.UniqueConstraint(
                fields=["unit", "worker"],
                condition=Q(status__in=["assigned", "submitted", "approved"]),
                name="one_active_assignment_per_worker_unit",
            ),
            # MTurk may reuse an AssignmentId after a return: key on (assignment id, worker).
            models.UniqueConstraint(
                fields=["provider_assignment_id", "worker"],
                condition=~Q(provider_assignment_id=""),
                name="unique_provider_assignment_per_worker",
            ),
        ]
        indexes = [
            models.Index(fields=["unit", "status"]), models.Index(fields=["status", "expires_at"]),
            # a project's assignments by id and by status then id (the dashboard's list and its filter): counts and
            # pages at any depth are index scans; the few with feedback, for ?search= (issue 25)
            models.Index(fields=["project", "id"], name="assignment_project_id"),
            models.Index(fields=["project", "status", "id"], name="assignment_project_status_id",
                         include=["verification", "time_on_task_ms"]),  # the monitor's counts: index-only (PostgreSQL)
            models.Index(fields=["project", "id"], condition=~Q(feedback=""), name="assignment_project_feedback"),
        ]

    objects = AssignmentQuerySet.as_manager()

    def save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        if "project_id" not in self.get_deferred_fields() and self.project_id is None:  # a deferred one is stored
            fill_kept_project([self], "unit")
        super().save(*args, **kwargs)


class QualityDecision(models.Model):
    """A logged, reversible quality-control decision about a worker or an assignment."""

    class Action(models.TextChoices):
        APPROVE = "approve"
        REJECT = "reject"
        BONUS = "bonus"
        QUALIFY = "qualify"
        WARN = "warn"
        SOFT_BLOCK = "soft_block"
        BLOCK = "block"
        UNBLOCK = "unblock"
        GRANT_QUALIFICATION = "grant_qualification"
        REVOKE_QUALIFICATION = "revoke_qualification"
        TRAINING = "training"  # the worker's training result in the project (passed or failed: metrics)
        MESSAGE = "message"  # personal feedback sent to the worker through their provider

        @classmethod
        def on_worker(cls) -> tuple[QualityDecision.Action, ...]:
            """Actions a researcher takes on a worker (the rest act on one assignment)."""
            return (cls.QUALIFY, cls.WARN, cls.SOFT_BLOCK, cls.BLOCK, cls.UNBLOCK, cls.GRANT_QUALIFICATION,
                    cls.REVOKE_QUALIFICATION, cls.TRAINING, cls.MESSAGE)

    class Status(models.TextChoices):
        PENDING = "pending"
        CALLING = "calling", "calling the platform"
        DONE = "done"
        FAILED = "failed"
        REVERSED = "reversed"

        @classmethod
        def settled(cls) -> tuple[QualityDecision.Status, ...]:
            """Decisions that must not be carried out again."""
            return (cls.DONE, cls.REVERSED)

        @classmethod
        def open(cls) -> tuple[QualityDecision.Status, ...]:
            """Decisions still to be carried out (or being carried out)."""
            return (cls.PENDING, cls.FAILED, cls.CALLING)

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="decisions")
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.CASCADE, related_name="quality_decisions",
        help_text="Where the decision applies and who may read it (a worker may work for several researchers).",
    )
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="decisions"
    )
    action = models.CharField(max_length=30, choices=Action.choices)
    reason = models.TextField()
    metrics = models.JSONField(default=dict, blank=True)
    amount = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    request_token = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PENDING)
    reverses = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reversed_by")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One row per intended platform action: two concurrent attempts (a retried job and a person at the
            # command line) cannot both record, and so cannot both pay, the same bonus.
            models.UniqueConstraint(
                fields=["request_token"], condition=~Q(request_token=""), name="unique_decision_request_token"
            ),
        ]


class WorkerProjectStatus(models.Model):
    """A worker's standing in one project: a warning, block or qualification decided there applies only there
    (Worker rows are shared by every researcher whose projects the worker joins)."""

    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="project_statuses")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="worker_statuses")
    status = models.CharField(max_length=20, choices=Worker.Status.choices, default=Worker.Status.ACTIVE)
    qualifications = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project_id", "worker_id"]
        constraints = [models.UniqueConstraint(fields=["worker", "project"], name="one_status_per_worker_project")]

    @classmethod
    def blocks(cls, worker: Worker, project_id: int) -> bool:
        """Whether a decision in this project keeps the worker from its units (blocks elsewhere do not count)."""
        return cls.objects.filter(worker=worker, project_id=project_id, status__in=Worker.Status.blocked()).exists()
