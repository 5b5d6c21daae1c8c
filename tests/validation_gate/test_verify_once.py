"""Every path that verifies platform work applies what it held back exactly once (issue 23 item 6, follow-up).

Before: a batch study's sync (services.sessions.reconcile) marked a place's assignments verified with a bulk update
and never called the protocol's on_verified, so a Prolific validation expert's judgments never reached the QAs.
Now services.verification.verify is the only way to verify: a conditional update lets one caller move an assignment
to verified and only that caller applies its held-back changes.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotation_tasks.crowd.base import SubmissionRecord
from annotation_tasks.models import QA, Assignment, Batch, PlaceSession, Worker
from annotation_tasks.protocols.validation.protocol import ValidationProtocol
from annotation_tasks.services import publishing, quality, sessions, work
from annotation_tasks.services.units import compose_units
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db
V = Assignment.Verification


@pytest.fixture
def calls(monkeypatch) -> list[int]:
    """The assignments on_verified was called for, in order (the real hook still runs)."""
    seen: list[int] = []
    real = ValidationProtocol.on_verified

    def spy(self, assignment: Assignment) -> None:
        seen.append(assignment.pk)
        real(self, assignment)

    monkeypatch.setattr(ValidationProtocol, "on_verified", spy)
    return seen


def _validity(qa_ids: list[int]) -> set[str]:
    return set(QA.objects.filter(pk__in=qa_ids).values_list("validity", flat=True))


def _submit_invalid(assignment: Assignment) -> list[int]:
    payload = work.unit_payload(assignment)
    assignment.refresh_from_db()
    qa_ids = [q["id"] for r in payload["responses"] for q in r["qas"]]
    labels = {"validation": [{"qa_id": q, "valid": False} for q in qa_ids]}
    assert work.submit(assignment, {"labels": labels}).status == "submitted"
    return qa_ids


def _study_place(researcher) -> tuple[Batch, PlaceSession, Assignment, list[int]]:
    project, _ = make_project(researcher, name="Study verify")
    batch = Batch.objects.create(project=project, name="study", provider="prolific", provider_ref="STUDY-1")
    unit = compose_units(batch, mode="validation")[0]
    worker = Worker.objects.create(provider="prolific", external_id="P-EXPERT")
    place = PlaceSession.objects.create(batch=batch, session_id="SUB-1", worker=worker, verification=V.PENDING)
    assignment = Assignment.objects.create(unit=unit, worker=worker, verification=V.PENDING,
                                           provider_assignment_id=f"{place.assignment_prefix()}{unit.pk}")
    return batch, place, assignment, _submit_invalid(assignment)


def _record(place: PlaceSession, status: str = "submitted", doubt: str = "") -> SubmissionRecord:
    return SubmissionRecord(place.session_id, place.worker.external_id, "", status, doubt=doubt)


def test_study_sync_applies_held_back_judgments_once(researcher, calls) -> None:
    batch, place, assignment, qa_ids = _study_place(researcher)
    assert _validity(qa_ids) == {QA.Validity.UNKNOWN}
    out = sessions.reconcile(batch, [_record(place)])
    assert out.verified == 1
    assert _validity(qa_ids) == {QA.Validity.INVALID}  # failed before: reconcile never called on_verified
    sessions.reconcile(batch, [_record(place)])
    sessions.reconcile(batch, [_record(place, status="approved")])
    assert calls == [assignment.pk]


def test_study_sync_with_doubt_applies_nothing(researcher, calls) -> None:
    batch, place, _assignment, qa_ids = _study_place(researcher)
    out = sessions.reconcile(batch, [_record(place, doubt="wrong completion code")])
    assert out.unverified and _validity(qa_ids) == {QA.Validity.UNKNOWN} and calls == []


def test_per_unit_sync_applies_once_however_often_it_runs(researcher, calls) -> None:
    project, _ = make_project(researcher, name="Per unit verify")
    batch = Batch.objects.create(project=project, name="mturk", provider="mturk")
    unit = compose_units(batch, mode="validation")[0]
    worker = Worker.objects.create(provider="mturk", external_id="A1")
    assignment = Assignment.objects.create(unit=unit, worker=worker, verification=V.PENDING,
                                           provider_assignment_id="HIT-A1")
    qa_ids = _submit_invalid(assignment)
    record = SubmissionRecord("HIT-A1", "A1", unit.provider_ref, "submitted")
    for status in ("submitted", "submitted", "approved"):
        record = SubmissionRecord("HIT-A1", "A1", unit.provider_ref, status)
        publishing._reconcile(batch, unit, record, publishing.SyncResult(), set())
    assert _validity(qa_ids) == {QA.Validity.INVALID} and calls == [assignment.pk]


def test_approving_unverified_work_is_not_verifying_it(researcher, calls, monkeypatch) -> None:
    """The review's approve pays the worker; it does not vouch for made-up platform ids, so nothing applies."""
    batch, place, assignment, qa_ids = _study_place(researcher)
    monkeypatch.setattr("annotation_tasks.services.quality.decisions.provider_of",
                        lambda *_a, **_k: type("P", (), {"approve": staticmethod(lambda *_x: None)})())
    quality.approve(assignment, reason="review")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.APPROVED and assignment.verification == V.PENDING
    assert _validity(qa_ids) == {QA.Validity.UNKNOWN} and calls == []
    sessions.reconcile(batch, [_record(place, status="approved")])
    assert _validity(qa_ids) == {QA.Validity.INVALID} and calls == [assignment.pk]


_SETS_VERIFIED = re.compile(r"verification\s*=\s*(V|Assignment\.Verification)\.VERIFIED|"
                            r"[\"']verification[\"']\s*:\s*(V|Assignment\.Verification)\.VERIFIED")


def test_only_the_verification_service_marks_work_verified() -> None:
    """A new path that sets VERIFIED by itself would skip on_verified: it must go through verification.verify."""
    root = Path(__file__).resolve().parents[2] / "annotation_tasks"
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if "migrations" not in p.parts and p.name != "verification.py"
                 and _SETS_VERIFIED.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
