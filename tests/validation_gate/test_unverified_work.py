"""Unverified platform work changes no shared state until verified (issue 23, item 6).

Before: made-up MTurk ids on a validation unit turned its QAs from unknown to invalid while the assignment was
still pending on the platform. Now the judgments wait in the assignment's stored submission and are applied only
when sync finds the work on the platform (services.verification.verify -> protocol.on_verified).
"""
from __future__ import annotations

import pytest

from annotation_tasks.crowd.base import SubmissionRecord
from annotation_tasks.models import QA, Assignment, Batch, Worker
from annotation_tasks.services import publishing, work
from annotation_tasks.services.units import compose_units
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db
V = Assignment.Verification


def _submitted(researcher, verification: str) -> tuple[Assignment, list[int]]:
    project, _ = make_project(researcher, name=f"Held {verification}")
    batch = Batch.objects.create(project=project, name="platform", provider="mturk")
    unit = compose_units(batch, mode="validation")[0]
    worker = Worker.objects.create(provider="mturk", external_id=f"A{verification.upper()}")
    assignment = Assignment.objects.create(unit=unit, worker=worker, verification=verification,
                                           provider_assignment_id=f"X-{verification}")
    payload = work.unit_payload(assignment)
    assignment.refresh_from_db()
    qa_ids = [q["id"] for r in payload["responses"] for q in r["qas"]]
    labels = {"validation": [{"qa_id": q, "valid": False} for q in qa_ids]}
    assert work.submit(assignment, {"labels": labels}).status == "submitted"
    assignment.refresh_from_db()
    return assignment, qa_ids


def _validity(qa_ids: list[int]) -> set[str]:
    return set(QA.objects.filter(pk__in=qa_ids).values_list("validity", flat=True))


def _sync(assignment: Assignment, doubt: str = "") -> None:
    record = SubmissionRecord(assignment.provider_assignment_id, assignment.worker.external_id,
                              assignment.unit.provider_ref, "submitted", doubt=doubt)
    publishing._mark_verified(assignment, record, publishing.SyncResult())


@pytest.mark.parametrize("verification", [V.PENDING, V.ADMITTED])
def test_unverified_validation_work_sets_no_validity_until_sync_verifies_it(researcher, verification) -> None:
    assignment, qa_ids = _submitted(researcher, verification)
    assert qa_ids and _validity(qa_ids) == {QA.Validity.UNKNOWN}
    _sync(assignment, doubt="the platform does not list this submission")
    assert _validity(qa_ids) == {QA.Validity.UNKNOWN}  # unverified: still nothing
    _sync(assignment)
    assert _validity(qa_ids) == {QA.Validity.INVALID}  # verified: the held-back judgments apply


def test_verified_work_that_was_rejected_meanwhile_applies_nothing(researcher) -> None:
    assignment, qa_ids = _submitted(researcher, V.PENDING)
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.REJECTED)
    _sync(assignment)
    assert _validity(qa_ids) == {QA.Validity.UNKNOWN}


def test_our_own_experts_judgments_apply_at_once(researcher) -> None:
    _assignment, qa_ids = _submitted(researcher, V.NOT_NEEDED)
    assert _validity(qa_ids) == {QA.Validity.INVALID}
