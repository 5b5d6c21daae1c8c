"""The validation gate: units holding undecided QAs are not published (count + link) unless overridden with a
reason, which is kept on the batch and logged."""
from __future__ import annotations

import logging

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import QA, Batch
from annotation_tasks.services.batches import publish_blockers
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db


def _gate(batch):
    return [b for b in publish_blockers(batch) if b.code == "undecided_qas"]


def test_undecided_qas_block_publishing_with_their_count_and_a_link(researcher, client):
    project, batch = make_project(researcher)
    first = QA.objects.filter(response__project=project).order_by("id").first()
    QA.objects.filter(pk=first.pk).update(validity=QA.Validity.INVALID)
    undecided = QA.objects.filter(response__project=project, validity=QA.Validity.UNKNOWN).count()
    (blocker,) = _gate(batch)
    assert blocker.count == undecided and str(undecided) in blocker.message
    assert blocker.link == f"/#/p/{project.pk}/validate/batch/{batch.pk}"
    listed = client.get(f"/api/batches/{batch.pk}/").json()["publish_blockers"]
    assert {"code": "undecided_qas", "count": undecided, "link": blocker.link}.items() <= listed[-1].items()
    r = client.post(f"/api/batches/{batch.pk}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert r.status_code == 400 and "not validated" in r.json()["validation"]
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.DRAFT
    # the link's filter lists exactly the QAs that block
    rows = client.get("/api/qas/", {"project": project.pk, "batch": batch.pk, "validity": "unknown",
                                    "page_size": 100}).json()
    assert rows["count"] == undecided


def test_deciding_every_qa_opens_the_gate(researcher, client, django_capture_on_commit_callbacks):
    project, batch = make_project(researcher)
    r = client.post("/api/qas/bulk-validate/", {"filter": {"batch": batch.pk}, "validity": "valid"}, format="json")
    assert r.status_code == 200 and r.json()["updated"] == QA.objects.filter(response__project=project).count()
    assert _gate(batch) == []
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/batches/{batch.pk}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert r.status_code == 202, r.content
    assert Batch.objects.get(pk=batch.pk).status == Batch.Status.PUBLISHED


def test_protocols_without_validation_have_no_gate(researcher):
    _, batch = make_project(researcher, protocol=["span_coverage", "qa_support"])
    assert _gate(batch) == [] and QA.objects.filter(validity=QA.Validity.UNKNOWN).exists()


def test_an_override_needs_a_reason_and_is_kept_and_logged(researcher, client, caplog,
                                                           django_capture_on_commit_callbacks):
    project, batch = make_project(researcher)
    undecided = QA.objects.filter(response__project=project, validity=QA.Validity.UNKNOWN).count()
    r = client.post(f"/api/batches/{batch.pk}/publish/",
                    {"reward": "0.50", "confirm": True, "override_validation_reason": "no"}, format="json")
    assert r.status_code == 400 and "override_validation_reason" in r.json()
    with caplog.at_level(logging.WARNING, logger="annotation_tasks.services.validation"), \
            django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/batches/{batch.pk}/publish/", {
            "reward": "0.50", "confirm": True, "override_validation_reason": "pilot: measuring the parser's QAs raw",
        }, format="json")
    assert r.status_code == 202, r.content
    batch.refresh_from_db()
    record = batch.settings["validation_override"]
    assert record["reason"] == "pilot: measuring the parser's QAs raw" and record["by"] == "expert"
    assert record["undecided"] == undecided and batch.settings["validation_overrides"] == [record]
    assert batch.status == Batch.Status.PUBLISHED
    assert any("undecided QAs" in m and "pilot" in m for m in caplog.messages)
    shown = client.get(f"/api/batches/{batch.pk}/").json()["settings"]["validation_override"]
    assert shown == record


def test_a_settings_edit_cannot_forge_an_override(researcher, client):
    _, batch = make_project(researcher)
    r = client.patch(f"/api/batches/{batch.pk}/", {"settings": {"validation_override": {"reason": "sneaky"}}},
                     format="json")
    assert r.status_code == 200
    assert "validation_override" not in Batch.objects.get(pk=batch.pk).settings and _gate(batch)


def test_the_publish_command_refuses_then_overrides(researcher):
    project, batch = make_project(researcher)
    with pytest.raises(CommandError, match="not validated"):
        call_command("publish", "--project", project.name, "--batch", batch.name, "--reward", "0.10", "--yes",
                     "--provider", "local")
    call_command("publish", "--project", project.name, "--batch", batch.name, "--reward", "0.10", "--yes",
                 "--provider", "local", "--override-validation-reason", "expert pilot, decided later")
    batch.refresh_from_db()
    assert batch.status == Batch.Status.PUBLISHED
    assert batch.settings["validation_override"]["reason"] == "expert pilot, decided later"
