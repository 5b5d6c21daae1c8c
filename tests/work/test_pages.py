"""Unit page, platform entry page, framing policy and invite links."""
from __future__ import annotations

import re

import pytest
from django.test import Client

from annotation_tasks.crowd import registry
from annotation_tasks.models import Assignment, Batch, ProjectMembership, Worker, WorkerProjectStatus
from annotation_tasks.services.tokens import invite_token, read_assignment_token, read_preview_token, unit_entry_path
from tests.work.builders import make_unit
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db


def attrs(html: str) -> dict[str, str]:
    tag = re.search(r"<factcrowd-annotator([^>]*)>", html).group(1)
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', tag))


@pytest.fixture
def fake_platform(monkeypatch):
    monkeypatch.setitem(registry._PROVIDERS, "fakeplat", "tests.work.fake_provider:FakeProvider")


def test_unit_page_renders_the_element_and_may_be_framed_by_platforms_only(settings, unit):
    _, token = new_assignment(unit, "w")
    r = Client().get(f"/work/{token}/")
    assert r.status_code == 200
    html = r.content.decode()
    assert attrs(html)["token"] == token and attrs(html)["api-base"] == ""
    assert "annotation_tasks/dist/factcrowd-annotator.js" in html
    assert "X-Frame-Options" not in r.headers
    csp = r.headers["Content-Security-Policy"]
    assert csp.startswith("frame-ancestors ")
    for origin in settings.FRAME_ANCESTORS:
        assert origin in csp
    # other pages keep DENY and get no frame-ancestors allowance
    other = Client().get("/accounts/login/")
    assert other.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors" not in other.headers.get("Content-Security-Policy", "")
    assert Client().get("/work/not-a-token/").status_code == 403


def test_platform_entry_preview_work_and_reentry(fake_platform, unit):
    Batch.objects.filter(pk=unit.batch_id).update(provider="fakeplat")
    path = unit_entry_path(unit)
    c = Client()
    r = c.get(path, {"fp_preview": "1"})
    a = attrs(r.content.decode())
    assert a["preview"] == "true" and read_preview_token(a["token"]) == unit.pk
    assert r.headers["Content-Security-Policy"].startswith("frame-ancestors")
    assert not Assignment.objects.exists()

    q = {"fp_worker": "W1", "fp_assignment": "A1", "fp_submit": "http://127.0.0.1:9/x", "fp_done": "http://done/"}
    a = attrs(c.get(path, q).content.decode())
    assignment = Assignment.objects.get()
    assert assignment.worker.provider == "fakeplat" and assignment.worker.external_id == "W1"
    assert assignment.provider_assignment_id == "A1"
    assert read_assignment_token(a["token"]).assignment_id == assignment.pk
    assert a["submit-to"] == "http://127.0.0.1:9/x" and a["assignment-id"] == "A1" and a["completion-url"] == "http://done/"
    # reopening the page keeps the same assignment
    c.get(path, q)
    assert Assignment.objects.count() == 1


def test_platform_entry_never_exceeds_assignments_wanted(fake_platform):
    unit = make_unit("Full", wanted=2, n_qas=1, provider="fakeplat")
    path = unit_entry_path(unit)
    for i in range(2):
        assert Client().get(path, {"fp_worker": f"W{i}", "fp_assignment": f"A{i}"}).status_code == 200
    r = Client().get(path, {"fp_worker": "W9", "fp_assignment": "A9"})
    assert r.status_code == 409
    assert Assignment.objects.filter(unit=unit).count() == 2
    assert Client().get(path, {}).status_code == 400
    assert Client().get("/work/unit/forged-ref/", {"fp_worker": "x"}).status_code == 404


def test_blocked_platform_workers_are_refused(fake_platform, unit):
    Batch.objects.filter(pk=unit.batch_id).update(provider="fakeplat")
    bad = Worker.objects.create(provider="fakeplat", external_id="bad")
    WorkerProjectStatus.objects.create(worker=bad, project=unit.project, status="blocked")  # blocked in this project
    r = Client().get(unit_entry_path(unit), {"fp_worker": "bad", "fp_assignment": "A"})
    assert r.status_code == 403 and b"not available to you" in r.content and not Assignment.objects.exists()


def test_mturk_style_entry_uses_the_mturk_provider(unit, monkeypatch):
    mturk = pytest.importorskip("annotation_tasks.crowd.mturk")
    # MTurk itself is not asked here (tests/crowd does, against a fake): it cannot read an accepted assignment
    monkeypatch.setattr(mturk.MTurkProvider, "verify_entry",
                        lambda self, unit, ctx: mturk.EntryCheck(mturk.EntryVerdict.AFTER_SUBMIT))
    Batch.objects.filter(pk=unit.batch_id).update(provider="mturk")
    type(unit).objects.filter(pk=unit.pk).update(provider_ref="HIT1")  # the unit's HIT, stored at publish
    q = {"assignmentId": "ASG1", "hitId": "HIT1", "workerId": "WK1", "turkSubmitTo": "https://workersandbox.mturk.com"}
    a = attrs(Client().get(unit_entry_path(unit), q).content.decode())
    assert a["assignment-id"] == "ASG1" and a["submit-to"] == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert Assignment.objects.get().worker.external_id == "WK1"
    preview = attrs(Client().get(unit_entry_path(unit), {**q, "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"}).content.decode())
    assert preview["preview"] == "true" and "assignment-id" not in preview
    assert Assignment.objects.count() == 1


def test_invite_link_creates_a_local_annotator_and_starts_work(unit):
    c = Client()
    form = c.get(f"/invite/{invite_token(unit.project)}/")  # someone new is asked for a name first
    assert form.status_code == 200 and b'name="name"' in form.content and not ProjectMembership.objects.exists()
    blank = c.post(f"/invite/{invite_token(unit.project)}/", {"name": "  "})
    assert blank.status_code == 400 and b"invite-error" in blank.content and not ProjectMembership.objects.exists()
    r = c.post(f"/invite/{invite_token(unit.project)}/", {"name": " Ada   Lovelace "})
    assert r.status_code == 302 and r.headers["Location"] == f"/annotate/{unit.project_id}/"
    membership = ProjectMembership.objects.get(project=unit.project)
    assert membership.role == "annotator"
    worker = Worker.objects.get(user=membership.user)
    assert worker.provider == "local" and worker.display_name == "Ada Lovelace"
    page = c.get(r.headers["Location"])
    assert page.status_code == 200 and b"/api/work/next" in page.content
    # the same browser following the link again stays the same annotator
    c.get(f"/invite/{invite_token(unit.project)}/")
    assert ProjectMembership.objects.count() == 1
    assert Client().get(f"/invite/{invite_token(unit.project)}x/").status_code == 403
    assert Client().get(f"/annotate/{unit.project_id}/").status_code == 302  # to the login page


def test_signed_local_worker_links_enter_through_the_same_page(unit):
    from annotation_tasks.crowd.entry import local_worker_param

    r = Client().get(unit_entry_path(unit), {"provider": "local", "worker": local_worker_param("lab-7")})
    assert r.status_code == 200
    a = Assignment.objects.get()
    assert (a.worker.provider, a.worker.external_id) == ("local", "lab-7")
    assert read_assignment_token(attrs(r.content.decode())["token"]).assignment_id == a.pk
    forged = Client().get(unit_entry_path(unit), {"provider": "local", "worker": "lab-7"})
    assert forged.status_code == 400 and Assignment.objects.count() == 1
