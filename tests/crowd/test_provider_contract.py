"""The provider contract: every provider passes the same tests, each against its platform (a fake on loopback).

Each harness knows how its platform lets a worker enter and submit; everything else goes through the
provider interface and the services that nothing outside annotation_tasks.crowd may bypass.
"""
from __future__ import annotations

from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest

from annotation_tasks.crowd import EntryContext, EntryVerdict, SubmissionRecord, get_provider
from annotation_tasks.crowd.entry import local_worker_param
from annotation_tasks.models import Assignment, QualityDecision, Worker
from annotation_tasks.services import publishing, quality
from tests.crowd.conftest import make_units

pytestmark = pytest.mark.django_db


class LocalHarness:
    name = "local"

    def __init__(self, settings) -> None:
        pass

    def entry_query(self, unit, worker_id: str) -> dict:
        return {"worker": local_worker_param(worker_id)}

    def forged_query(self, unit) -> dict:
        return {"worker": "made-up"}  # not signed by us

    def submit(self, unit, worker_id: str) -> None:
        worker, _ = Worker.objects.get_or_create(provider="local", external_id=worker_id)
        Assignment.objects.create(unit=unit, worker=worker, status="submitted")

    def platform_status(self, assignment) -> str:
        return Assignment.objects.get(pk=assignment.pk).status

    def bonuses_paid(self, worker_id: str) -> int:
        return QualityDecision.objects.filter(action="bonus", status="done", worker__external_id=worker_id).count()

    def blocked(self, worker_id: str) -> bool | None:
        return None  # nothing outside our database

    def qualified(self, worker_id: str, name: str) -> bool | None:
        return None


class MTurkHarness:
    name = "mturk"

    def __init__(self, fake) -> None:
        self.fake = fake

    def entry_query(self, unit, worker_id: str) -> dict:
        aid = self.fake.accept(unit.provider_ref, worker_id)
        return {"assignmentId": aid, "hitId": unit.provider_ref, "workerId": worker_id, "turkSubmitTo": self.fake.url}

    def forged_query(self, unit) -> dict:
        return {"assignmentId": "MADEUPASSIGNMENT", "hitId": unit.provider_ref, "workerId": "AMADEUP",
                "turkSubmitTo": self.fake.url}

    def submit(self, unit, worker_id: str) -> None:
        self.fake.submit(unit.provider_ref, worker_id, {"labels": "{}"})

    def platform_status(self, assignment) -> str:
        return self.fake.assignments[assignment.provider_assignment_id]["AssignmentStatus"].lower()

    def bonuses_paid(self, worker_id: str) -> int:
        return sum(1 for b in self.fake.bonuses if b["WorkerId"] == worker_id)

    def blocked(self, worker_id: str) -> bool:
        return worker_id in self.fake.blocks

    def qualified(self, worker_id: str, name: str) -> bool:
        return self.fake.score(name, worker_id) is not None


class ProlificHarness:
    name = "prolific"

    def __init__(self, fake) -> None:
        self.fake = fake

    def entry_query(self, unit, worker_id: str) -> dict:
        started = self.fake.start_submission(unit.provider_ref, worker_id)
        return {k: v[0] for k, v in parse_qs(urlparse(started["url"]).query).items()}

    def forged_query(self, unit) -> dict:
        return {"PROLIFIC_PID": "MADEUP", "STUDY_ID": unit.provider_ref, "SESSION_ID": "made-up-session"}

    def submit(self, unit, worker_id: str) -> None:
        """Through the batch study's entry page: the place hands out a unit, it is labelled, then completed."""
        from django.test import Client

        from tests.crowd.conftest import work_through_place
        from tests.crowd.test_full_path import label_everything

        unit.batch.refresh_from_db()
        started, done, _page = work_through_place(Client(), self.fake, unit.batch, worker_id, label_everything)
        assert done, "the place handed out no unit"
        context = get_provider("prolific").parse_entry(
            {"PROLIFIC_PID": worker_id, "STUDY_ID": unit.batch.provider_ref, "SESSION_ID": started["id"]})
        code = parse_qs(urlparse(context.completion_url).query)["cc"][0]
        assert self.fake.complete_by_code(code, worker_id)

    def platform_status(self, assignment) -> str:
        status = self.fake.submissions[assignment.provider_assignment_id.split("/")[0]]["status"]
        return {"AWAITING REVIEW": "submitted"}.get(status, status.lower())

    def bonuses_paid(self, worker_id: str) -> int:
        return sum(1 for p in self.fake.paid if p["participant_id"] == worker_id)

    def blocked(self, worker_id: str) -> bool:
        return worker_id in self.fake.group_members("factcrowd-blocked")

    def qualified(self, worker_id: str, name: str) -> bool:
        return worker_id in self.fake.group_members(f"factcrowd-qual-{name}")


class PanelHarness:
    """Other panels: the batch's signed link with the participant id in the parameter the researcher named."""

    name = "panel"

    def __init__(self, settings) -> None:
        settings.PUBLIC_BASE_URL = "https://factcrowd.example.org"

    def link(self, unit, worker_id: str) -> str:
        from annotation_tasks.crowd.panel import panel_link

        unit.batch.refresh_from_db()
        return panel_link(unit.batch, worker_id)

    def entry_query(self, unit, worker_id: str) -> dict:
        return {k: v[0] for k, v in parse_qs(urlparse(self.link(unit, worker_id)).query).items()}

    def forged_query(self, unit) -> dict:
        return {**self.entry_query(unit, "MADEUP"), "k": "made-up-key"}

    def submit(self, unit, worker_id: str) -> None:
        from django.test import Client

        from tests.crowd.conftest import element_attrs
        from tests.crowd.test_full_path import label_everything

        client, link = Client(), urlparse(self.link(unit, worker_id))
        page = client.get(f"{link.path}?{link.query}")
        label_everything(client, element_attrs(page)["token"])
        done = client.get(f"{link.path}?{link.query}")
        assert "completion-code" in done.content.decode() and not element_attrs(done)

    def platform_status(self, assignment) -> str:
        return Assignment.objects.get(pk=assignment.pk).status  # the panel reports nothing: our record is it

    def bonuses_paid(self, worker_id: str) -> int:
        return QualityDecision.objects.filter(action="bonus", status="done", worker__external_id=worker_id).count()

    def blocked(self, worker_id: str) -> bool | None:
        return None

    def qualified(self, worker_id: str, name: str) -> bool | None:
        return None


@pytest.fixture(params=["local", "mturk", "prolific", "panel"])
def harness(request, settings):
    if request.param == "local":
        return LocalHarness(settings)
    if request.param == "panel":
        return PanelHarness(settings)
    if request.param == "mturk":
        return MTurkHarness(request.getfixturevalue("fake_mturk"))
    return ProlificHarness(request.getfixturevalue("fake_prolific"))


def published(harness, n: int = 2):
    batch, units = make_units(n, provider=harness.name)
    provider = get_provider(harness.name)
    # a batch study's place is one unit here, so that each worker's work is one assignment as elsewhere
    result = publishing.publish_batch(batch, reward="0.50", assignments_per_unit=2, provider=provider,
                                      units_per_place=1, completion_code="PANEL-CODE-1")
    assert len(result.published) == n
    for u in units:
        u.refresh_from_db()
    batch.refresh_from_db()
    return batch, units, provider


def test_parse_entry_recognises_only_its_own_platform(harness):
    batch, units, provider = published(harness, 1)
    context = provider.parse_entry(harness.entry_query(units[0], "AENTRY"))
    assert isinstance(context, EntryContext)
    assert context.worker_external_id == "AENTRY" and not context.preview
    assert provider.parse_entry({}) is None
    assert provider.parse_entry({"foo": "bar", "worker": "tampered"}) is None


def test_verify_entry_lets_real_workers_in_and_no_made_up_one(harness):
    """The platform is asked at the door: a made-up entry is refused (or cannot even be parsed); a real one is
    vouched for, or (a platform that reads work only once submitted) let in to be verified at sync."""
    batch, units, provider = published(harness, 1)
    forged = provider.parse_entry(harness.forged_query(units[0]))
    assert forged is None or provider.verify_entry(units[0], forged).verdict == EntryVerdict.UNKNOWN
    real = provider.parse_entry(harness.entry_query(units[0], "AREAL"))
    if provider.batch_study:  # participants enter the batch's study, not a unit
        assert provider.check_study_entry(batch, real) is None
    else:
        assert provider.check_entry(units[0], real) is None
    assert provider.verify_entry(units[0], real).verdict in (EntryVerdict.VERIFIED, EntryVerdict.AFTER_SUBMIT)


def test_cost_estimate_adds_fees_and_balance_is_a_decimal_or_unknown(harness):
    provider = get_provider(harness.name)
    est = provider.estimate_cost(10, 3, Decimal("1.50"))
    assert est.total == Decimal("45.00") + est.fees and est.fees >= 0
    assert est.describe().endswith(f"{est.total} {est.currency}")
    balance = provider.account_balance()
    assert balance is None or isinstance(balance, Decimal)


def test_publish_gives_one_ref_per_unit_and_a_retry_publishes_nothing_twice(harness):
    batch, units, provider = published(harness, 3)
    refs = [u.provider_ref for u in units]
    if provider.batch_study:  # one study for the batch: every unit's reference is it
        assert set(refs) == {batch.provider_ref} and batch.provider_ref
    else:
        assert len(set(refs)) == 3 and all(refs)
    # a retried publish (fresh provider, e.g. after a crash before refs were saved) finds the same objects
    again = get_provider(harness.name).publish(batch, units, reward=Decimal("0.50"), assignments_per_unit=2)
    assert again == refs
    assert provider.preview_url(units[0]).startswith("http")


def test_sync_approve_reject_bonus_are_recorded_and_idempotent(harness):
    batch, units, provider = published(harness, 2)
    harness.submit(units[0], "AW1")
    harness.submit(units[1], "AW2")
    records = list(provider.list_submissions(batch))
    assert all(isinstance(r, SubmissionRecord) for r in records)
    assert {(r.worker_external_id, r.unit_ref, r.status) for r in records} == {
        ("AW1", units[0].provider_ref, "submitted"),
        ("AW2", units[1].provider_ref, "submitted"),
    }
    publishing.sync_batch(batch, provider)
    again = publishing.sync_batch(batch, provider)
    assert again.created == 0 and again.updated == 0
    a1 = Assignment.objects.get(worker__external_id="AW1")
    a2 = Assignment.objects.get(worker__external_id="AW2")

    d1 = quality.approve(a1, reason="good", provider=provider)
    assert quality.approve(a1, reason="good", provider=provider).pk == d1.pk  # a repeat is a no-op
    assert harness.platform_status(a1) == "approved" and a1.status == "approved"

    quality.reject(a2, "You skipped most of the questions.", provider=provider)
    assert harness.platform_status(a2) == "rejected"

    quality.pay_bonus(a1, "0.25", "thorough work", provider=provider)
    quality.pay_bonus(a1, "0.25", "thorough work", provider=provider)
    assert harness.bonuses_paid("AW1") == 1
    a1.refresh_from_db()
    assert a1.bonus_paid == Decimal("0.25")

    # the platform's view and ours agree after another sync
    publishing.sync_batch(batch, provider)
    assert {r.status for r in provider.list_submissions(batch)} == {"approved", "rejected"}


def test_block_and_qualification_round_trip(harness):
    provider = get_provider(harness.name)
    worker = Worker.objects.create(provider=harness.name, external_id="WQ")
    provider.block(worker, "spam")
    assert harness.blocked("WQ") in (True, None)
    provider.unblock(worker, "mistake")
    assert harness.blocked("WQ") in (False, None)
    provider.grant_qualification(worker, "trained", 1)
    assert harness.qualified("WQ", "trained") in (True, None)
    provider.revoke_qualification(worker, "trained", "retrain")
    assert harness.qualified("WQ", "trained") in (False, None)


def test_close_stops_the_batch(harness):
    batch, units, provider = published(harness, 2)
    publishing.close_batch(batch, provider)
    batch.refresh_from_db()
    assert batch.status == "closed"
