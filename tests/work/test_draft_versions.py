"""Drafts carry a version; a stale tab gets a 409 conflict, never a silent overwrite (issue 23, item 4).

Before: two tabs on one assignment, the stale one silently overwrote two saved labels and then submitted.
"""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db


def _put(client, token, draft, version=...):
    body = {"draft": draft} if version is ... else {"draft": draft, "draft_version": version}
    return client.put(f"/api/work/{token}/draft", body, format="json")


def test_a_stale_tab_gets_a_conflict_on_save_and_on_submit(client_api, assignment) -> None:
    a, token = assignment
    tab_a = client_api.get(f"/api/work/{token}/unit").json()
    tab_b = client_api.get(f"/api/work/{token}/unit").json()
    assert tab_a["draft_version"] == tab_b["draft_version"] == 0
    saved = _put(client_api, token, {"labels": {"a": 1}}, tab_a["draft_version"])
    assert saved.status_code == 200 and saved.json()["draft_version"] == 1
    saved = _put(client_api, token, {"labels": {"a": 2}}, 1)
    assert saved.status_code == 200 and saved.json()["draft_version"] == 2
    stale = _put(client_api, token, {"labels": {"b": "old"}}, tab_b["draft_version"])
    assert stale.status_code == 409
    (error,) = stale.json()["errors"]
    assert error["field"] == "draft_version" and error["current"] == 2 and "another tab" in error["message"]
    a.refresh_from_db()
    assert a.draft == {"labels": {"a": 2}} and a.draft_version == 2  # the newer tab's answers stand
    labels = qasem_labels(tab_b)
    refused = client_api.post(f"/api/work/{token}/submit", {"labels": labels, "draft_version": 0}, format="json")
    assert refused.status_code == 409 and refused.json()["errors"][0]["field"] == "draft_version"
    a.refresh_from_db()
    assert a.status == Assignment.Status.ASSIGNED
    reloaded = client_api.get(f"/api/work/{token}/unit").json()
    assert reloaded["draft_version"] == 2 and reloaded["draft"] == {"labels": {"a": 2}}
    ok = client_api.post(f"/api/work/{token}/submit", {"labels": labels, "draft_version": 2}, format="json")
    assert ok.status_code == 200 and ok.json()["status"] == "submitted"


def test_a_save_without_a_version_still_writes_and_a_bad_version_is_located(client_api, assignment) -> None:
    a, token = assignment
    assert _put(client_api, token, {"x": 1}).json()["draft_version"] is None
    a.refresh_from_db()
    assert a.draft == {"x": 1} and a.draft_version == 1
    for bad in (-1, "1", True, 1.5, 2**64, 2**31):
        r = _put(client_api, token, {"x": 2}, bad)
        assert r.status_code == 400 and r.json()["errors"][0]["field"] == "draft_version", bad
