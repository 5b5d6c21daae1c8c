"""Prolific provider against the fake API: the batch's one study, paging, 429 retries, review rules, groups."""
from __future__ import annotations

from decimal import Decimal
from urllib.parse import parse_qs, urlparse

import pytest

from annotation_tasks.crowd import ProviderError, get_provider
from annotation_tasks.crowd.prolific import completion_code, study_completion_code
from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services import publishing, quality
from tests.crowd.conftest import make_units

pytestmark = pytest.mark.django_db


def test_one_study_per_batch_carries_placeholders_code_places_reward_and_blocklist(fake_prolific):
    batch, units = make_units(7, provider="prolific")
    result = publishing.publish_batch(batch, reward="1.25", assignments_per_unit=3, qualifications={"trained": 1},
                                      units_per_place=4)
    batch.refresh_from_db()
    # the estimate pays whole places: 6 places x 4 units x 1.25, not 7 x 3 x 1.25
    assert (result.estimate.places, result.estimate.total - result.estimate.fees) == (6, Decimal("30.00"))
    assert "in 6 places of 4 units" in result.estimate.describe()
    assert list(fake_prolific.studies) == [batch.provider_ref]
    assert {u.provider_ref for u in batch.units.all()} == {batch.provider_ref}
    study = fake_prolific.studies[batch.provider_ref]
    url = study["external_study_url"]
    assert url.startswith("https://factcrowd.example.org/work/study/")
    assert "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}" in url
    assert study["completion_codes"][0]["code"] == study_completion_code(batch.pk)
    # places = ceil(7 units x 3 assignments / 4 units a place) = 6; a place pays 4 units of 1.25
    assert (study["total_available_places"], study["reward"], study["status"]) == (6, 500, "ACTIVE")
    assert batch.settings["places"] == 6 and batch.settings["units_per_place"] == 4
    assert study["maximum_allowed_time"] == 4 * study["estimated_completion_time"]
    assert {f["filter_id"] for f in study["filters"]} == {"participant_group_blocklist", "participant_group_allowlist"}


def test_parse_entry_gives_the_completion_redirect(fake_prolific):
    batch, units = make_units(1, provider="prolific")
    publishing.publish_batch(batch, reward="1", assignments_per_unit=1)
    units[0].refresh_from_db()
    started = fake_prolific.start_submission(units[0].provider_ref, "PID-9")
    query = {k: v[0] for k, v in parse_qs(urlparse(started["url"]).query).items()}
    ctx = get_provider("prolific").parse_entry(query)
    assert (ctx.worker_external_id, ctx.provider_assignment_id) == ("PID-9", started["id"])
    code = parse_qs(urlparse(ctx.completion_url).query)["cc"]
    assert code == [completion_code(units[0].provider_ref, started["id"], "PID-9")]
    assert code != [study_completion_code(units[0].pk)]  # each participant's own, not the study's
    assert get_provider("mturk").parse_entry(query) is None and get_provider("local").parse_entry(query) is None


def test_paging_and_429_retries(fake_prolific):
    batch, units = make_units(1, provider="prolific")
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=5, units_per_place=1)
    units[0].refresh_from_db()
    for i in range(5):
        started = fake_prolific.start_submission(units[0].provider_ref, f"P{i}")
        fake_prolific.complete_by_code(completion_code(units[0].provider_ref, started["id"], f"P{i}"))
    fake_prolific.too_many_next = 2
    records = list(get_provider("prolific").list_submissions(batch))
    assert sorted(r.worker_external_id for r in records) == [f"P{i}" for i in range(5)]
    pages = [p for m, p in fake_prolific.requests if p.endswith("/submissions/")]
    assert len(pages) == 2 + 3  # two throttled answers retried, then three pages of two


def test_reject_pads_feedback_to_prolifics_minimum_and_balance_is_read(fake_prolific):
    _batch, started, a = _submitted(fake_prolific, "P-R")
    quality.reject(a, "Too fast.")
    assert fake_prolific.submissions[started["id"]]["status"] == "REJECTED"
    assert get_provider("prolific").account_balance() == Decimal(fake_prolific.balance_cents) / 100


def test_blocked_participants_cannot_start_new_studies(fake_prolific):
    worker = Worker.objects.create(provider="prolific", external_id="SPAMMER")
    batch, units = make_units(1, provider="prolific")
    quality.block(worker, "bot answers", project=batch.project, platform=True)
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=1)
    units[0].refresh_from_db()
    with pytest.raises(ValueError, match="blocked"):
        fake_prolific.start_submission(units[0].provider_ref, "SPAMMER")


def test_errors_surface_as_provider_errors(fake_prolific, settings):
    settings.PROLIFIC_API_TOKEN = "wrong"
    with pytest.raises(ProviderError, match="401"):
        get_provider("prolific").account_balance()
    with pytest.raises(ProviderError, match="no sandbox"):
        get_provider("prolific", sandbox=True)


def test_bulk_approve(fake_prolific):
    batch, units = make_units(1, provider="prolific")
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=2, units_per_place=1)
    units[0].refresh_from_db()
    for pid in ("P1", "P2"):
        started = fake_prolific.start_submission(units[0].provider_ref, pid)
        fake_prolific.complete_by_code(completion_code(units[0].provider_ref, started["id"], pid))
    get_provider("prolific").approve_many(units[0].provider_ref, ["P1", "P2"])
    assert {s["status"] for s in fake_prolific.submissions.values()} == {"APPROVED"}


def test_an_entry_before_the_study_id_is_saved_is_checked_with_prolific(fake_prolific):
    batch, units = make_units(2, provider="prolific")
    other, _ = make_units(1, provider="prolific", batch_name="b2", project=batch.project)
    provider = get_provider("prolific")
    study_id = provider.publish(batch, units, reward=Decimal("0.5"), assignments_per_unit=1)[0]
    assert batch.provider_ref == ""  # publishing has not recorded the ref yet: a participant arrives now
    started = fake_prolific.start_submission(study_id, "EARLY")
    ctx = provider.parse_entry({"PROLIFIC_PID": "EARLY", "STUDY_ID": study_id, "SESSION_ID": started["id"]})
    assert ctx.completion_url.endswith(f"cc={completion_code(study_id, started['id'], 'EARLY')}")
    assert provider.check_study_entry(batch, ctx) is None  # the study's internal name is this batch's
    assert provider.check_study_entry(other, ctx) == "this link does not belong to this batch's study"
    assert provider.parse_entry({"PROLIFIC_PID": "EARLY", "STUDY_ID": study_id}) is None  # no SESSION_ID


def test_an_entry_with_a_session_prolific_does_not_know_is_refused(fake_prolific):
    batch, units = make_units(1, provider="prolific")
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=2)
    batch.refresh_from_db()
    provider, study = get_provider("prolific"), batch.provider_ref
    started = fake_prolific.start_submission(study, "REAL")

    def entry(pid: str, session: str) -> str | None:
        ctx = provider.parse_entry({"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session})
        assert provider.check_study_entry(batch, ctx) is None  # the study is right: the session decides
        check = provider.verify_entry(None, ctx)
        return None if check.verdict == "verified" else check.reason

    assert entry("REAL", started["id"]) is None
    assert entry("FAKE", "made-up") == "Prolific does not know this session; open the study from Prolific"
    assert entry("FAKE", started["id"]).startswith("this session is not this participant's")  # REAL's session
    # a unit's own page is not a way in to a batch study's units
    ctx = provider.parse_entry({"PROLIFIC_PID": "REAL", "STUDY_ID": study, "SESSION_ID": started["id"]})
    assert provider.check_entry(units[0], ctx).startswith("this study's participants enter through")


# -- held against Prolific's documentation ----------------------------------------------------
def _submitted(fake_prolific, pid: str = "P-B"):
    """One unit done in a place of a one-unit batch study, completed on Prolific and synced."""
    from django.test import Client

    from tests.crowd.conftest import work_through_place
    from tests.crowd.test_full_path import label_everything
    from tests.work.builders import make_unit

    unit = make_unit(f"Submitted {pid}", n_qas=1, n_responses=1, wanted=1, provider="prolific")
    batch = unit.batch
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=1)
    batch.refresh_from_db()
    started, done, _page = work_through_place(Client(), fake_prolific, batch, pid, label_everything)
    assert done == [unit.pk]
    fake_prolific.complete_by_code(completion_code(batch.provider_ref, started["id"], pid))
    publishing.sync_batch(batch)
    return batch, started, Assignment.objects.get(worker__external_id=pid)


def test_the_fake_refuses_fields_prolific_does_not_have(fake_prolific):
    provider = get_provider("prolific")
    batch, units = make_units(1, provider="prolific")
    body = provider.study_body(batch, reward=Decimal("1"), places=1, options={})
    assert "maximum_allowed_time" in body and "maximal_time" not in body
    with pytest.raises(ProviderError, match="maximal_time"):
        provider._request("POST", "studies/", json={**body, "maximal_time": 10})
    with pytest.raises(ProviderError, match="workspace or organisation"):
        provider._request("POST", "participant-groups/", json={"name": "no workspace"})


def test_a_workspace_is_required_before_anything_is_created(fake_prolific, settings):
    settings.PROLIFIC_WORKSPACE_ID = ""
    batch, units = make_units(1, provider="prolific")
    with pytest.raises(ProviderError, match="PROLIFIC_WORKSPACE_ID"):
        publishing.publish_batch(batch, reward="0.5", assignments_per_unit=1)
    with pytest.raises(ProviderError, match="PROLIFIC_WORKSPACE_ID"):
        get_provider("prolific").block(Worker(provider="prolific", external_id="X"), "spam")
    assert not fake_prolific.studies and not fake_prolific.groups


def test_partially_approved_submissions_sync_as_approved(fake_prolific):
    batch, started, a = _submitted(fake_prolific)
    assert a.verification == "verified"
    fake_prolific.partially_approve(started["id"])
    publishing.sync_batch(batch)
    a.refresh_from_db()
    assert (a.status, a.verification) == ("approved", "verified")


def test_a_bonus_payment_that_fails_is_never_sent_again_blind(fake_prolific):
    """pay/ is not idempotent: a 502 after paying is not retried by the client, and the decision's retry reads the
    submission's bonus_payments back and finds it paid."""
    _batch, _started, a = _submitted(fake_prolific)
    fake_prolific.fail_next[r"POST /api/v1/bulk-bonus-payments/[^/]+/pay/"] = "after"
    with pytest.raises(ProviderError, match="502"):
        quality.pay_bonus(a, "0.75", "careful work")
    assert len(fake_prolific.paid) == 1
    assert len([p for m, p in fake_prolific.requests if p.endswith("/pay/")]) == 1
    assert a.decisions.get(action="bonus").status == "failed"
    done = quality.pay_bonus(a, "0.75", "careful work")
    assert done.status == "done" and "found_done_on_platform" in done.metrics
    assert len(fake_prolific.paid) == 1
    a.refresh_from_db()
    assert str(a.bonus_paid) == "0.75"


def test_a_study_whose_creation_answer_was_lost_is_read_back_not_created_twice(fake_prolific):
    batch, units = make_units(1, provider="prolific")
    fake_prolific.fail_next["POST /api/v1/studies/"] = "after"  # created, then the answer is a 502
    publishing.publish_batch(batch, reward="0.5", assignments_per_unit=1)
    units[0].refresh_from_db()
    assert [m for m, p in fake_prolific.requests if p == "/api/v1/studies/"].count("POST") == 1
    assert list(fake_prolific.studies) == [units[0].provider_ref]
    assert fake_prolific.studies[units[0].provider_ref]["status"] == "ACTIVE"


def test_idempotent_posts_are_retried_when_throttled(fake_prolific):
    _batch, started, a = _submitted(fake_prolific)
    fake_prolific.too_many_next = 2
    quality.approve(a)
    assert fake_prolific.submissions[started["id"]]["status"] == "APPROVED"
