"""Crowd places and platform events: a participant's session of a batch study, and webhook bookkeeping.

A batch published as one study (Prolific, URL-parameter panels) has places, not one platform object per unit: each
participant who takes a place gets a PlaceSession, and our own queue hands them units inside it (their assignments
carry `provider_assignment_id` "<session id>/<unit id>", so the platform's submission id finds them again).
"""
from __future__ import annotations

from django.db import models

from annotation_tasks.models.work import Batch, Worker


class PlaceSession(models.Model):
    """One participant's place in a batch study (Prolific: one submission, SESSION_ID)."""

    class Status(models.TextChoices):
        ACTIVE = "active", "working through units"
        FINISHED = "finished", "given the completion code"
        RETURNED = "returned", "returned or timed out on the platform: its units were freed"
        REJECTED = "rejected", "rejected on the platform: its units were freed"
        NO_WORK = "no_work", "nothing left for this participant: asked to return the place"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="place_sessions")
    worker = models.ForeignKey(Worker, on_delete=models.CASCADE, related_name="place_sessions")
    session_id = models.CharField(max_length=255, help_text="The platform's id of the place (Prolific SESSION_ID).")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    verification = models.CharField(max_length=20, default="admitted",
                                    help_text="What the platform said at the door (an Assignment.Verification).")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["batch", "session_id"], name="one_place_session_per_id")]

    def assignment_prefix(self) -> str:
        return f"{self.session_id}/"


class WebhookEvent(models.Model):
    """A platform event delivery we accepted (signature checked), kept for idempotency (X-Event-ID) and order
    (X-Timestamp: an event older than the last one applied to the same resource is dropped)."""

    provider = models.CharField(max_length=20)
    event_id = models.CharField(max_length=255)
    event_type = models.CharField(max_length=80)
    resource_id = models.CharField(max_length=255, db_index=True)
    status = models.CharField(max_length=40, blank=True)
    sent_at = models.BigIntegerField(help_text="The delivery's UNIX timestamp.")
    outcome = models.CharField(max_length=40, blank=True, help_text="applied, stale, unknown_resource...")
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["provider", "event_id"], name="one_webhook_event_per_id")]


class WebhookSecret(models.Model):
    """The signing secret a platform issued for a workspace (Prolific: one active secret per workspace)."""

    provider = models.CharField(max_length=20)
    workspace_id = models.CharField(max_length=255)
    value = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["provider", "workspace_id"], name="one_secret_per_workspace")]
