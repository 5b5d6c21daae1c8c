"""Platform webhooks: Prolific's signed deliveries, checked, deduplicated, ordered, then applied.

As Prolific documents them: each delivery carries X-Prolific-Request-Signature (base64 HMAC-SHA256 of the
X-Prolific-Request-Timestamp followed by the raw body, keyed with the workspace's secret), X-Event-ID (the same on
every retry of one event: a second delivery is acknowledged and skipped) and X-Timestamp (when the event was sent:
deliveries are not ordered, so one older than the last applied to the same resource is acknowledged and dropped).
A bad or missing signature, or a signature timestamp too far from now (a replay), answers 4xx and changes nothing.

A submission reported RETURNED, TIMED-OUT or REJECTED frees its units at once (services.sessions.free_place for a
batch study's place; the assignment of an older per-unit study). Polling sync stays as the reconciliation.
"""
from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max

from annotation_tasks.crowd import ProviderError
from annotation_tasks.crowd.prolific import (
    EVENT_ID_HEADER,
    EVENT_TIMESTAMP_HEADER,
    HOOK_EVENTS,
    SIGNATURE_HEADER,
    SIGNATURE_TIMESTAMP_HEADER,
    ProlificProvider,
    signature_valid,
)
from annotation_tasks.models import Assignment, Batch, PlaceSession, Unit, WebhookEvent, WebhookSecret
from annotation_tasks.services import sessions

log = logging.getLogger(__name__)

PROLIFIC = "prolific"
MAX_SIGNATURE_AGE_S = 600  # a delivery signed longer ago than this (or this far in the future) is refused
_FREEING = {"RETURNED": PlaceSession.Status.RETURNED, "TIMED-OUT": PlaceSession.Status.RETURNED,
            "REJECTED": PlaceSession.Status.REJECTED}


@dataclass(frozen=True)
class Outcome:
    status: int
    detail: str

    def as_dict(self) -> dict:
        return {"detail": self.detail}


def workspace_secret(workspace_id: str | None = None) -> str:
    workspace_id = workspace_id or settings.PROLIFIC_WORKSPACE_ID
    row = WebhookSecret.objects.filter(provider=PROLIFIC, workspace_id=workspace_id).first()
    return row.value if row else ""


def subscribe_prolific(target_url: str, provider: ProlificProvider | None = None) -> list[str]:
    """Create (replace) the workspace's secret, keep it, and subscribe `target_url` to HOOK_EVENTS, each
    subscription confirmed with its X-Hook-Secret. The secret is stored before subscribing: deliveries may start
    at once."""
    provider = provider or ProlificProvider()
    secret = provider.create_hook_secret()
    WebhookSecret.objects.update_or_create(provider=PROLIFIC, workspace_id=provider.workspace,
                                           defaults={"value": secret})
    return provider.subscribe(target_url, HOOK_EVENTS)


def _header(headers: Mapping[str, str], name: str) -> str:
    return str(headers.get(name) or headers.get(name.lower()) or "")


def receive_prolific(headers: Mapping[str, str], body: bytes, now: float | None = None) -> Outcome:
    """Check one delivery and apply it (see the module's docstring); the answer's status and a short reason."""
    secret = workspace_secret()
    if not secret:
        return Outcome(403, "no webhook secret is set up for this workspace (manage.py prolific_hooks)")
    stamp = _header(headers, SIGNATURE_TIMESTAMP_HEADER)
    if not signature_valid(secret, stamp, body, _header(headers, SIGNATURE_HEADER)):
        return Outcome(401, "bad or missing signature")
    try:
        sent = int(stamp)
    except ValueError:
        return Outcome(400, f"{SIGNATURE_TIMESTAMP_HEADER} is not a UNIX timestamp")
    if abs((now if now is not None else time.time()) - sent) > MAX_SIGNATURE_AGE_S:
        return Outcome(400, "the delivery was signed too long ago (a replay?)")
    event_id = _header(headers, EVENT_ID_HEADER)
    if not event_id:
        return Outcome(400, f"{EVENT_ID_HEADER} is missing")
    try:
        event_time = int(_header(headers, EVENT_TIMESTAMP_HEADER) or sent)
        payload = json.loads(body)
        resource_id, event_type = str(payload["resource_id"]), str(payload["event_type"])
        status = str(payload.get("status") or "")
    except (ValueError, TypeError, KeyError):
        return Outcome(400, "the body is not an event (resource_id, event_type)")
    try:
        with transaction.atomic():
            last = (WebhookEvent.objects.filter(provider=PROLIFIC, resource_id=resource_id, event_type=event_type)
                    .exclude(outcome="stale").aggregate(t=Max("sent_at"))["t"])
            event = WebhookEvent.objects.create(provider=PROLIFIC, event_id=event_id[:255], event_type=event_type[:80],
                                                resource_id=resource_id[:255], status=status[:40], sent_at=event_time)
            if last is not None and event_time < last:
                event.outcome = "stale"
            else:
                event.outcome = _apply(event_type, resource_id, status)
            event.save(update_fields=["outcome"])
    except IntegrityError:
        return Outcome(200, "duplicate event: already processed")
    return Outcome(200, event.outcome)


def _apply(event_type: str, resource_id: str, status: str) -> str:
    if event_type == "submission.status.change":
        return _submission_changed(resource_id, status)
    if event_type == "study.status.change":
        return _study_changed(resource_id, status)
    return "ignored"


def _submission_changed(submission_id: str, status: str) -> str:
    freeing = _FREEING.get(status)
    place = PlaceSession.objects.filter(session_id=submission_id, batch__provider=PROLIFIC).select_related("batch").first()
    if place is not None:
        if freeing is None:
            return "recorded"
        if place.status in (PlaceSession.Status.RETURNED, PlaceSession.Status.REJECTED):
            return "already freed"
        return f"freed {sessions.free_place(place, freeing)} units"
    # an older batch's per-unit study: the submission is one assignment
    rows = Assignment.objects.filter(provider_assignment_id=submission_id, unit__batch__provider=PROLIFIC)
    if not rows.exists():
        return "unknown submission"
    if freeing is None:
        return "recorded"
    A = Assignment.Status
    units = list(rows.filter(status__in=[A.ASSIGNED, A.SUBMITTED]).values_list("unit_id", flat=True))
    new = A.REJECTED if freeing == PlaceSession.Status.REJECTED else A.RETURNED
    rows.filter(status=A.ASSIGNED).update(status=A.RETURNED)
    rows.filter(status=A.SUBMITTED).update(status=new)
    sessions.reopen_units(Unit.objects.filter(pk__in=units))
    return f"freed {len(units)} units"


def _study_changed(study_id: str, status: str) -> str:
    """A study that ran out of places (AWAITING REVIEW) while work is left gets more places."""
    batch = Batch.objects.filter(provider=PROLIFIC, provider_ref=study_id).first()
    if batch is None:
        return "unknown study"
    if status not in ("AWAITING REVIEW", "COMPLETED"):
        return "recorded"
    try:
        places = sessions.ensure_places(batch, ProlificProvider())
    except ProviderError as exc:  # sync raises places later (the reconciliation)
        log.warning("raising places of batch %s failed: %s", batch.pk, exc)
        return "places not raised"
    return f"places raised to {places}" if places else "recorded"
