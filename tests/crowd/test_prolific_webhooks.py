"""Prolific webhooks, as its API reference describes them, against the fake delivering over HTTP to a live server.

Subscribing: a secret per workspace, then a subscription per event confirmed with the X-Hook-Secret header it was
answered with. Receiving: X-Prolific-Request-Signature (base64 HMAC-SHA256 of X-Prolific-Request-Timestamp + body,
with the workspace's secret) checked first; X-Event-ID dedupes retries; X-Timestamp drops out-of-order events. A
RETURNED / TIMED-OUT / REJECTED submission frees its units at once, without waiting for sync.
"""
from __future__ import annotations

import io
import time

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.crowd import ProviderError
from annotation_tasks.crowd.prolific import completion_code, webhook_signature
from annotation_tasks.models import Assignment, PlaceSession, WebhookEvent, WebhookSecret
from annotation_tasks.services import publishing, queue, webhooks
from tests.crowd.conftest import element_attrs, enter_place
from tests.crowd.test_full_path import label_everything
from tests.work.builders import make_unit

PUBLIC = "https://factcrowd.example.org"
TARGET = f"{PUBLIC}/api/crowd/prolific/hooks/"


def _study(name: str, wanted: int = 1):
    unit = make_unit(name, n_qas=1, n_responses=1, wanted=wanted, provider="prolific")
    publishing.publish_batch(unit.batch, reward="1.00", assignments_per_unit=wanted, units_per_place=1)
    unit.batch.refresh_from_db()
    return unit


@pytest.mark.django_db
def test_subscribing_keeps_the_workspace_secret_and_confirms_each_subscription(fake_prolific):
    out = io.StringIO()
    call_command("prolific_hooks", "--target-url", TARGET, stdout=out)
    assert "subscribed" in out.getvalue()
    assert WebhookSecret.objects.get().value == fake_prolific.secrets["ws-1"]["value"]
    hooks = list(fake_prolific.subscriptions.values())
    assert sorted(h["event_type"] for h in hooks) == ["study.status.change", "submission.status.change"]
    assert all(h["is_enabled"] and h["target_url"] == TARGET for h in hooks)  # confirmed with X-Hook-Secret
    call_command("prolific_hooks", "--target-url", TARGET, stdout=io.StringIO())  # rotates the secret, no duplicates
    assert len(fake_prolific.subscriptions) == 2
    assert WebhookSecret.objects.get().value == fake_prolific.secrets["ws-1"]["value"]
    with pytest.raises(CommandError, match="https"):
        call_command("prolific_hooks", "--target-url", "http://127.0.0.1:8000/api/crowd/prolific/hooks/")
    with pytest.raises(ProviderError, match="publicly accessible"):  # what Prolific itself refuses
        webhooks.subscribe_prolific("https://localhost/api/crowd/prolific/hooks/")


@pytest.mark.django_db(transaction=True)
def test_a_signed_returned_delivery_frees_the_unit_at_once_and_an_unsigned_one_changes_nothing(
        client, fake_prolific, live_server):
    fake_prolific.deliver_to = {PUBLIC: live_server.url}  # the loopback server stands for the public https one
    webhooks.subscribe_prolific(TARGET)
    unit = _study("Hooks returned")
    started, page = enter_place(client, fake_prolific, unit.batch, "QUITTER")
    assert element_attrs(page) and queue.active_count(unit.pk) == 1  # the unit is held by the place

    # a forged delivery (no signature, then a wrong secret) is refused and changes nothing
    event = {"target": TARGET, "workspace": "ws-1", "event_id": "forged-1", "timestamp": int(time.time()),
             "payload": {"resource_id": started["id"], "event_type": "submission.status.change",
                         "participant_id": "QUITTER", "status": "RETURNED"}}
    assert fake_prolific.send(event, sign=False) == 401
    assert fake_prolific.send({**event, "event_id": "forged-2"}, secret="not-the-secret") == 401
    assert queue.active_count(unit.pk) == 1 and not WebhookEvent.objects.filter(event_id__startswith="forged").exists()

    fake_prolific.leave(started["id"], "RETURNED")  # Prolific delivers the signed event
    delivered = fake_prolific.deliveries[-1]
    assert delivered["payload"]["status"] == "RETURNED" and delivered["status"] == 200
    assert queue.active_count(unit.pk) == 0  # freed at once, no sync
    assert Assignment.objects.get().status == "returned"
    assert PlaceSession.objects.get().status == "returned"

    # a retry of the same event (same X-Event-ID) is acknowledged and skipped
    assert fake_prolific.send(delivered) == 200
    assert WebhookEvent.objects.filter(event_id=delivered["event_id"]).count() == 1

    # the freed unit goes to the next participant
    _s, page = enter_place(client, fake_prolific, unit.batch, "NEXT")
    assert element_attrs(page)


@pytest.mark.django_db(transaction=True)
def test_out_of_order_and_replayed_deliveries_are_dropped(client, fake_prolific, live_server):
    fake_prolific.deliver_to = {PUBLIC: live_server.url}
    webhooks.subscribe_prolific(TARGET)
    unit = _study("Hooks order")
    started, page = enter_place(client, fake_prolific, unit.batch, "DONE")
    label_everything(client, element_attrs(page)["token"])
    fake_prolific.complete_by_code(completion_code(unit.batch.provider_ref, started["id"], "DONE"), "DONE")
    newest = fake_prolific.deliveries[-1]
    assert newest["payload"]["status"] == "AWAITING REVIEW" and newest["status"] == 200

    # an older TIMED-OUT event arriving late must not undo the completed place
    late = {**newest, "event_id": "late-1", "timestamp": newest["timestamp"] - 100,
            "payload": {**newest["payload"], "status": "TIMED-OUT"}}
    assert fake_prolific.send(late) == 200
    assert WebhookEvent.objects.get(event_id="late-1").outcome == "stale"
    assert Assignment.objects.get().status == "submitted"

    # a delivery signed an hour ago (a captured one sent again) is refused
    assert fake_prolific.send({**late, "event_id": "replay-1"}, sent_at=int(time.time()) - 3600) == 400
    assert not WebhookEvent.objects.filter(event_id="replay-1").exists()


@pytest.mark.django_db
def test_a_bad_body_or_no_secret_is_a_4xx_never_a_500(client, fake_prolific):
    body = b'{"resource_id": "x", "event_type": "submission.status.change", "status": "RETURNED"}'
    stamp = str(int(time.time()))
    headers = {"HTTP_X_PROLIFIC_REQUEST_TIMESTAMP": stamp, "HTTP_X_EVENT_ID": "e1",
               "HTTP_X_PROLIFIC_REQUEST_SIGNATURE": webhook_signature("s3cret", stamp, body)}
    url = "/api/crowd/prolific/hooks/"
    assert client.post(url, body, content_type="application/json", **headers).status_code == 403  # no secret yet
    WebhookSecret.objects.create(provider="prolific", workspace_id="ws-1", value="s3cret")
    assert client.post(url, body, content_type="application/json", **headers).status_code == 200
    assert WebhookEvent.objects.get().outcome == "unknown submission"
    for bad in (b"not json", b"[]", b'{"event_type": "x"}'):
        signed = {**headers, "HTTP_X_EVENT_ID": "e2",
                  "HTTP_X_PROLIFIC_REQUEST_SIGNATURE": webhook_signature("s3cret", stamp, bad)}
        assert client.post(url, bad, content_type="application/json", **signed).status_code == 400
    assert client.get(url).status_code == 405
