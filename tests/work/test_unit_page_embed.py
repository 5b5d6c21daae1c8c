"""The unit page embeds the GET unit answer (json_script, named by the element's unit-data-id attribute), so the
element starts without a request; the token-authorized endpoint answers exactly the same JSON."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from annotation_tasks.models import Assignment, Batch, Source
from annotation_tasks.pages import UNIT_DATA_ID
from annotation_tasks.services.tokens import unit_entry_path
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db


def element_attrs(html: str) -> dict[str, str]:
    tag = re.search(r"<factcrowd-annotator([^>]*)>", html).group(1)
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', tag))


def embedded(html: str, data_id: str) -> dict:
    found = re.findall(rf'<script id="{data_id}" type="application/json">(.*?)</script>', html, flags=re.S)
    assert len(found) == 1, "exactly one embedded unit"
    return json.loads(found[0])


def test_work_page_embeds_exactly_the_get_unit_json(unit):
    a, token = new_assignment(unit, "w")
    r = Client().get(f"/work/{token}/")
    assert r.status_code == 200
    html = r.content.decode()
    attrs = element_attrs(html)
    assert attrs["unit-data-id"] == UNIT_DATA_ID and attrs["token"] == token
    data = embedded(html, attrs["unit-data-id"])
    # the page counts as the first fetch: what was shown and when work started are recorded
    a.refresh_from_db()
    assert a.started_at is not None
    assert a.shown["qas"] == [q["id"] for r in data["responses"] for q in r["qas"]]
    api = Client().get(f"/api/work/{token}/unit")
    assert api.status_code == 200
    assert data == json.loads(api.content)
    assert data["assignment"] == {"id": a.pk, "status": "assigned", "mode": "qasem", "preview": False}
    # the page holds the worker's draft: never cached
    assert "no-store" in r.headers["Cache-Control"]


def test_the_embedded_unit_carries_the_latest_draft_and_the_submitted_status(unit):
    a, token = new_assignment(unit, "w")
    c = Client()
    draft = {"version": 1, "labels": {"spans": {"1": True}}, "cursor": {"section": 0, "item": 1}}
    assert c.put(f"/api/work/{token}/draft", {"draft": draft}, content_type="application/json").status_code == 200
    data = embedded(c.get(f"/work/{token}/").content.decode(), UNIT_DATA_ID)
    assert data["draft"] == draft and data["draft_saved_at"]
    assert data == json.loads(c.get(f"/api/work/{token}/unit").content)
    Assignment.objects.filter(pk=a.pk).update(status="submitted")
    assert embedded(c.get(f"/work/{token}/").content.decode(), UNIT_DATA_ID)["assignment"]["status"] == "submitted"


def test_texts_cannot_break_out_of_the_embedded_script(unit):
    evil = 'Anna </script><script>window.pwned=1</script> & "Boris" <!-- visited'
    Source.objects.filter(pk=unit.source_id).update(text=evil)
    _, token = new_assignment(unit, "w")
    html = Client().get(f"/work/{token}/").content.decode()
    assert "<script>window.pwned" not in html
    assert embedded(html, UNIT_DATA_ID)["source"]["text"] == evil


def test_preview_entry_embeds_the_preview_payload_and_stays_read_only(unit):
    pytest.importorskip("annotation_tasks.crowd.mturk")
    Batch.objects.filter(pk=unit.batch_id).update(provider="mturk")
    type(unit).objects.filter(pk=unit.pk).update(provider_ref="HIT1")  # the unit's HIT, stored at publish
    q = {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "HIT1", "turkSubmitTo": "https://workersandbox.mturk.com"}
    r = Client().get(unit_entry_path(unit), q)
    html = r.content.decode()
    attrs = element_attrs(html)
    assert attrs["preview"] == "true" and attrs["unit-data-id"] == UNIT_DATA_ID
    data = embedded(html, UNIT_DATA_ID)
    assert data["assignment"] == {"id": None, "status": "preview", "mode": "qasem", "preview": True}
    assert data == json.loads(Client().get(f"/api/work/{attrs['token']}/unit").content)
    assert not Assignment.objects.exists()
    # the preview token reads, never writes
    c = Client()
    assert c.put(f"/api/work/{attrs['token']}/draft", {"draft": {}}, content_type="application/json").status_code == 403
    assert c.post(f"/api/work/{attrs['token']}/submit", {"labels": {}}, content_type="application/json").status_code == 403


def test_accepted_platform_entry_embeds_the_assignment_unit(unit, monkeypatch):
    from annotation_tasks.crowd import EntryCheck, EntryVerdict
    from annotation_tasks.crowd.mturk import MTurkProvider

    # MTurk's own answer at the door is tested in tests/crowd/test_entry_slots.py; here: what the page embeds
    monkeypatch.setattr(MTurkProvider, "verify_entry", lambda self, unit, ctx: EntryCheck(EntryVerdict.AFTER_SUBMIT))
    Batch.objects.filter(pk=unit.batch_id).update(provider="mturk")
    type(unit).objects.filter(pk=unit.pk).update(provider_ref="3HIT1EXAMPLE")  # the unit's HIT, stored at publish
    q = {"assignmentId": "3ASG1EXAMPLE", "hitId": "3HIT1EXAMPLE", "workerId": "AWORKER1",
         "turkSubmitTo": "https://workersandbox.mturk.com"}
    html = Client().get(unit_entry_path(unit), q).content.decode()
    attrs = element_attrs(html)
    data = embedded(html, attrs["unit-data-id"])
    a = Assignment.objects.get()
    assert data["assignment"]["id"] == a.pk and data == json.loads(Client().get(f"/api/work/{attrs['token']}/unit").content)


def test_refused_pages_embed_nothing(unit):
    r = Client().get("/work/not-a-token/")
    assert r.status_code == 403 and b"application/json" not in r.content


def test_the_first_fetch_is_recorded_after_the_page_is_sent(unit):
    """The page's one write (shown items, started_at) runs when the server closes the response, not before."""
    from django.core.signals import request_finished
    from django.db import close_old_connections
    from django.test import RequestFactory

    from annotation_tasks.pages import work_page

    a, token = new_assignment(unit, "w")
    from django.contrib.auth.models import AnonymousUser

    request = RequestFactory().get(f"/work/{token}/")
    request.user = AnonymousUser()
    response = work_page(request, token)  # the view itself: nothing has closed the response yet
    data = embedded(response.content.decode(), UNIT_DATA_ID)
    a.refresh_from_db()
    assert a.started_at is None and not a.shown
    request_finished.disconnect(close_old_connections)  # as the test client does: keep the test's connection
    try:
        response.close()  # what the WSGI server does after the last byte
    finally:
        request_finished.connect(close_old_connections)
    a.refresh_from_db()
    assert a.started_at is not None
    assert a.shown["spans"] == [s["id"] for r in data["responses"] for s in r["spans"]]
    started = a.started_at
    Client().get(f"/work/{token}/")  # later pages record nothing new
    a.refresh_from_db()
    assert a.started_at == started


def test_a_failed_record_keeps_the_page_and_submit_still_checks_what_was_shown(unit, monkeypatch, caplog):
    from annotation_tasks.services import work
    from tests.work.helpers import qasem_labels

    a, token = new_assignment(unit, "w")

    def broken(assignment):
        data, _record = real(assignment)

        def record():
            raise RuntimeError("database went away")

        return data, record

    real = work.unit_payload_then_record
    monkeypatch.setattr(work, "unit_payload_then_record", broken)
    r = Client().get(f"/work/{token}/")
    assert r.status_code == 200
    data = embedded(r.content.decode(), UNIT_DATA_ID)
    assert "recording the first fetch" in caplog.text
    a.refresh_from_db()
    assert not a.shown
    c = Client()
    bad = {"labels": {"spans": [{"span_id": 999999, "covered": True}]}}
    assert c.post(f"/api/work/{token}/submit", bad, content_type="application/json").status_code == 400
    ok = c.post(f"/api/work/{token}/submit", {"labels": qasem_labels(data)}, content_type="application/json")
    assert ok.status_code == 200 and ok.json()["duplicate"] is False
