"""MTurk provider: request shapes with botocore's Stubber, real encoding/paging/retries against the fake."""
from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from xml.etree import ElementTree

import boto3
import pytest
from botocore.stub import ANY, Stubber

from annotation_tasks.crowd import ProviderError, get_provider, mturk_xml
from annotation_tasks.crowd.base import InsufficientFunds, request_token
from annotation_tasks.crowd.mturk import PRODUCTION_ENDPOINT, SANDBOX_ENDPOINT, MTurkProvider
from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services import publishing, quality
from tests.crowd.conftest import make_units

pytestmark = pytest.mark.django_db


@pytest.fixture
def stubbed(settings):
    settings.PUBLIC_BASE_URL = "https://factcrowd.example.org"
    client = boto3.client(
        "mturk", region_name="us-east-1", aws_access_key_id="AKIA", aws_secret_access_key="x",
        endpoint_url=SANDBOX_ENDPOINT,
    )
    with Stubber(client) as stub:
        # the Stubber stands for an MTurk-compatible endpoint (Amazon's own takes no new HITs: test_mturk_closed)
        yield MTurkProvider(client=client, endpoint_url="https://mturk-compatible.example.org"), stub
        stub.assert_no_pending_responses()


# -- settings --------------------------------------------------------------------------------
def test_endpoint_is_the_sandbox_unless_production_is_explicit(settings):
    settings.MTURK_ENDPOINT_URL = ""
    settings.MTURK_PRODUCTION = False
    assert MTurkProvider().endpoint_url == SANDBOX_ENDPOINT
    assert "workersandbox" in MTurkProvider().worker_site
    settings.MTURK_PRODUCTION = True
    assert MTurkProvider().endpoint_url == PRODUCTION_ENDPOINT
    assert MTurkProvider(production=False).endpoint_url == SANDBOX_ENDPOINT  # --sandbox
    settings.MTURK_ENDPOINT_URL = "http://127.0.0.1:9"
    assert MTurkProvider().endpoint_url == "http://127.0.0.1:9"


def test_client_uses_adaptive_retries(settings):
    settings.AWS_ACCESS_KEY_ID, settings.AWS_SECRET_ACCESS_KEY = "AKIA", "x"
    config = MTurkProvider().client.meta.config
    # botocore stores max_attempts=10 (retries) as total_max_attempts=11 (the first call plus 10 retries)
    assert config.retries == {"mode": "adaptive", "total_max_attempts": 11}


def test_fees_are_20_percent_and_40_from_ten_assignments():
    p = MTurkProvider()
    low = p.estimate_cost(10, 9, Decimal("1.50"))
    assert (low.fees, low.total) == (Decimal("27.00"), Decimal("162.00"))
    high = p.estimate_cost(10, 10, Decimal("1.50"))
    assert (high.fees, high.total) == (Decimal("60.00"), Decimal("210.00"))
    assert p.estimate_cost(1, 1, Decimal("0.01")).fees == Decimal("0.01")  # the one-cent minimum


# -- XML and requirements -----------------------------------------------------------------------
def test_external_question_escapes_ampersands_and_needs_https():
    xml = mturk_xml.external_question("https://x.org/work/unit/abc/?provider=mturk&a=1", 600)
    assert "&amp;a=1" in xml and "&a=1" not in xml.replace("&amp;", "")
    root = ElementTree.fromstring(xml)
    ns = {"q": mturk_xml.EXTERNAL_QUESTION_NS}
    assert root.find("q:ExternalURL", ns).text == "https://x.org/work/unit/abc/?provider=mturk&a=1"
    assert root.find("q:FrameHeight", ns).text == "600"
    with pytest.raises(ValueError):
        mturk_xml.external_question("http://x.org/")
    with pytest.raises(ValueError):
        mturk_xml.html_question("x" * 70000)


def test_qualification_requirements_shape():
    reqs = mturk_xml.qualification_requirements(
        min_approval_rate=97, min_approved_hits=500, locales=["US", "CA-ON"], custom={"3ABCQUAL": 1}
    )
    assert reqs[0] == {
        "QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
        "IntegerValues": [97], "ActionsGuarded": "DiscoverPreviewAndAccept",
    }
    assert reqs[1]["QualificationTypeId"] == "00000000000000000040"
    assert reqs[2]["LocaleValues"] == [{"Country": "US"}, {"Country": "CA", "Subdivision": "ON"}]
    assert reqs[3]["QualificationTypeId"] == "3ABCQUAL" and all(r["ActionsGuarded"] for r in reqs)


def test_answer_xml_round_trip():
    fields = {"assignmentId": "A", "labels": '{"x": 1} & <y>'}
    assert mturk_xml.parse_answer(mturk_xml.answer_xml(fields)) == fields


# -- Stubber: the shape of every call --------------------------------------------------------
def test_publish_call_shapes(stubbed):
    provider, stub = stubbed
    batch, units = make_units(1, provider="mturk")
    stub.add_response(
        "create_hit_type",
        {"HITTypeId": "T" * 30},
        {
            "AutoApprovalDelayInSeconds": 3 * 86400, "AssignmentDurationInSeconds": 1800, "Reward": "1.50",
            "Title": "T", "Keywords": "k", "Description": "D",
            "QualificationRequirements": mturk_xml.qualification_requirements(min_approval_rate=95, locales=["US"]),
        },
    )
    stub.add_response(
        "create_hit_with_hit_type",
        {"HIT": {"HITId": "H" * 30}},
        {
            "HITTypeId": "T" * 30, "MaxAssignments": 3, "LifetimeInSeconds": 86400, "Question": ANY,
            "RequesterAnnotation": f"factcrowd:unit:{units[0].pk}",
            "UniqueRequestToken": request_token("mturk-hit", batch.pk, units[0].pk, 3),
        },
    )
    refs = provider.publish(
        batch, units, reward=Decimal("1.5"), assignments_per_unit=3, title="T", keywords="k", description="D",
        duration_s=1800, lifetime_s=86400, min_approval_rate=95, locales=["US"],
    )
    assert refs == ["H" * 30]


def test_review_and_worker_call_shapes(stubbed):
    provider, stub = stubbed
    batch, units = make_units(1, provider="mturk")
    worker = Worker.objects.create(provider="mturk", external_id="AWORKER")
    a = Assignment.objects.create(unit=units[0], worker=worker, status="submitted", provider_assignment_id="ASG1")
    stub.add_response("approve_assignment", {}, {"AssignmentId": "ASG1", "RequesterFeedback": "thanks"})
    stub.add_response("reject_assignment", {}, {"AssignmentId": "ASG1", "RequesterFeedback": "why"})
    stub.add_response(
        "send_bonus", {},
        {"WorkerId": "AWORKER", "AssignmentId": "ASG1", "BonusAmount": "0.30", "Reason": "r", "UniqueRequestToken": "tok"},
    )
    stub.add_response("create_worker_block", {}, {"WorkerId": "AWORKER", "Reason": "spam"})
    stub.add_response("delete_worker_block", {}, {"WorkerId": "AWORKER", "Reason": "ok"})
    stub.add_response(
        "list_qualification_types",
        {"QualificationTypes": [{"QualificationTypeId": "Q" * 30, "Name": "trained"}], "NumResults": 1},
        {"Query": "trained", "MustBeRequestable": False, "MustBeOwnedByCaller": True, "MaxResults": 100},
    )
    stub.add_response(
        "associate_qualification_with_worker", {},
        {"QualificationTypeId": "Q" * 30, "WorkerId": "AWORKER", "IntegerValue": 2, "SendNotification": False},
    )
    stub.add_response(
        "disassociate_qualification_from_worker", {},
        {"QualificationTypeId": "Q" * 30, "WorkerId": "AWORKER", "Reason": "retrain"},
    )
    stub.add_response("get_account_balance", {"AvailableBalance": "12.34"}, {})
    provider.approve(a, "thanks")
    provider.reject(a, "why")
    provider.bonus(a, Decimal("0.3"), "r", "tok")
    provider.block(worker, "spam")
    provider.unblock(worker, "ok")
    provider.grant_qualification(worker, "trained", 2)
    provider.revoke_qualification(worker, "trained", "retrain")
    assert provider.account_balance() == Decimal("12.34")


def test_sync_and_close_call_shapes(stubbed):
    provider, stub = stubbed
    batch, units = make_units(1, provider="mturk")
    units[0].provider_ref = "H" * 30
    units[0].save()
    page = {
        "Assignments": [{
            "AssignmentId": "A1", "WorkerId": "W1", "HITId": "H" * 30, "AssignmentStatus": "Submitted",
            "SubmitTime": datetime(2026, 1, 2, tzinfo=UTC), "Answer": mturk_xml.answer_xml({"labels": "{}"}),
        }],
        "NumResults": 1,
    }
    stub.add_response(
        "list_assignments_for_hit", {**page, "NextToken": "p2"},
        {"HITId": "H" * 30, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"], "MaxResults": 100},
    )
    stub.add_response(
        "list_assignments_for_hit", {"Assignments": [], "NumResults": 0},
        {"HITId": "H" * 30, "AssignmentStatuses": ["Submitted", "Approved", "Rejected"], "MaxResults": 100,
         "NextToken": "p2"},
    )
    stub.add_response(
        "update_expiration_for_hit", {}, {"HITId": "H" * 30, "ExpireAt": datetime(2015, 1, 1, tzinfo=UTC)}
    )
    (rec,) = provider.list_submissions(batch)
    assert (rec.provider_assignment_id, rec.status, rec.answer) == ("A1", "submitted", {"labels": "{}"})
    provider.close(batch)


# -- the fake: real encoding, paging, retries, tokens ---------------------------------------------
def test_sync_pages_through_more_than_100_assignments(fake_mturk):
    batch, units = make_units(1, provider="mturk")
    publishing.publish_batch(batch, reward="0.10", assignments_per_unit=250, rate_per_second=0)
    units[0].refresh_from_db()
    for i in range(250):
        fake_mturk.submit(units[0].provider_ref, f"AW{i:03d}")
    result = publishing.sync_batch(batch)
    assert result.created == 250 and Assignment.objects.filter(unit=units[0]).count() == 250
    assert fake_mturk.page_size_seen[-3:] == [100, 100, 100]
    assert fake_mturk.calls.count("ListAssignmentsForHIT") == 3
    assert publishing.sync_batch(batch).unchanged == 250  # a second sync changes nothing


def test_throttling_is_retried_by_botocore(fake_mturk):
    provider = get_provider("mturk")
    fake_mturk.throttle_next = 2
    assert provider.account_balance() == Decimal("10000.00")
    assert fake_mturk.calls.count("GetAccountBalance") == 3


def test_throttling_beyond_max_attempts_is_a_provider_error(fake_mturk):
    provider = MTurkProvider(max_attempts=2)
    fake_mturk.throttle_next = 5
    with pytest.raises(ProviderError, match="ThrottlingException"):
        provider.account_balance()


def test_a_repeated_publish_gets_mturks_own_answer_and_finds_the_hit_by_its_annotation(fake_mturk):
    """Real MTurk answers a seen token with 'The idempotency token "..." has already been processed', which names
    no HIT: the provider takes it as a retry and finds the HIT by its RequesterAnnotation."""
    batch, units = make_units(2, provider="mturk")
    refs = get_provider("mturk").publish(batch, units, reward=Decimal("0.5"), assignments_per_unit=1)
    again = get_provider("mturk")
    with pytest.raises(ProviderError, match="has already been processed"):  # the fake answers as MTurk does
        again._call("create_hit_with_hit_type", HITTypeId=fake_mturk.hits[refs[0]]["HITTypeId"], MaxAssignments=1,
                    LifetimeInSeconds=60, Question=fake_mturk.hits[refs[0]]["Question"],
                    UniqueRequestToken=request_token("mturk-hit", batch.pk, units[0].pk, 1))
    assert again.publish(batch, units, reward=Decimal("0.5"), assignments_per_unit=1) == refs
    assert len(fake_mturk.hits) == 2


def test_a_publish_resumed_after_the_tokens_expired_reads_the_hits_back_first(fake_mturk, monkeypatch):
    """The HIT was made but its answer lost; a day later MTurk has forgotten the token: the resumed publish must
    find the HIT by its annotation instead of making a second one (a second HIT pays twice)."""
    batch, units = make_units(1, provider="mturk")
    real = MTurkProvider._call

    def answer_lost(self, operation, **params):
        out = real(self, operation, **params)
        if operation == "create_hit_with_hit_type":
            raise ProviderError("mturk create_hit_with_hit_type: read timeout")
        return out

    monkeypatch.setattr(MTurkProvider, "_call", answer_lost)
    with pytest.raises(ProviderError, match="read timeout"):
        publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1, provider_name="mturk")
    monkeypatch.setattr(MTurkProvider, "_call", real)
    assert len(fake_mturk.hits) == 1 and batch.units.exclude(provider_ref="").count() == 0
    fake_mturk.advance(25 * 3600)
    result = publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1, provider_name="mturk")
    units[0].refresh_from_db()
    assert len(fake_mturk.hits) == 1 and units[0].provider_ref == next(iter(fake_mturk.hits))
    assert len(result.published) == 1


def test_a_bonus_retried_after_the_token_expired_is_read_back_and_not_paid_twice(fake_mturk, monkeypatch):
    a = _synced_submission(fake_mturk, "AW8")
    real = MTurkProvider._call

    def answer_lost(self, operation, **params):
        out = real(self, operation, **params)
        if operation == "send_bonus":
            raise ProviderError("mturk send_bonus: connection reset")
        return out

    monkeypatch.setattr(MTurkProvider, "_call", answer_lost)
    with pytest.raises(ProviderError):
        quality.pay_bonus(a, "0.50", "great")
    monkeypatch.setattr(MTurkProvider, "_call", real)
    assert a.decisions.get(action="bonus").status == "failed" and len(fake_mturk.bonuses) == 1
    fake_mturk.advance(25 * 3600)  # MTurk no longer knows the token: only ListBonusPayments tells
    done = quality.pay_bonus(a, "0.50", "great")
    assert done.status == "done" and "found_done_on_platform" in done.metrics
    assert len(fake_mturk.bonuses) == 1
    a.refresh_from_db()
    assert str(a.bonus_paid) == "0.50"
    second = quality.pay_bonus(a, "0.50", "again", key="second")  # a new bonus of the same amount is paid
    assert second.status == "done" and len(fake_mturk.bonuses) == 2


def test_publish_refuses_when_the_balance_does_not_cover_the_cost(fake_mturk):
    fake_mturk.balance = Decimal("5.00")
    batch, units = make_units(2, provider="mturk")
    with pytest.raises(InsufficientFunds):
        publishing.publish_batch(batch, reward="1.00", assignments_per_unit=3, provider_name="mturk")
    assert not fake_mturk.hits and batch.units.exclude(provider_ref="").count() == 0


def test_publish_is_rate_limited_and_resumes_after_a_crash(fake_mturk, monkeypatch):
    batch, units = make_units(3, provider="mturk")
    now = [100.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds

    limiter = publishing.RateLimiter(2, clock=lambda: now[0], sleep=sleep)
    provider = get_provider("mturk")
    real = provider.publish
    calls = {"n": 0}

    def crash_on_third(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise ProviderError("network went away")
        return real(*args, **kwargs)

    monkeypatch.setattr(provider, "publish", crash_on_third)
    with pytest.raises(ProviderError):
        publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1, provider=provider, limiter=limiter)
    assert batch.units.exclude(provider_ref="").count() == 2
    assert sleeps == [0.5, 0.5]  # three calls at 2/s, on a clock that only sleeping moves
    result = publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1, provider_name="mturk")
    assert len(result.published) == 1 and result.already_published == 2 and len(fake_mturk.hits) == 3


def _synced_submission(fake_mturk, worker_id: str) -> Assignment:
    """One unit published on the fake, submitted there by `worker_id`, synced: our assignment for it."""
    batch, units = make_units(1, provider="mturk")
    publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1)
    units[0].refresh_from_db()
    fake_mturk.submit(units[0].provider_ref, worker_id)
    publishing.sync_batch(batch)
    return Assignment.objects.get(worker__external_id=worker_id)


def test_approve_after_reject_overrides_and_is_logged_as_a_reversal(fake_mturk):
    a = _synced_submission(fake_mturk, "AW9")
    rejected = quality.reject(a, "Too fast.")
    reversal = quality.reverse_decision(rejected, "the gold item was wrong")
    assert reversal.action == "approve" and reversal.reverses_id == rejected.pk
    rejected.refresh_from_db()
    assert rejected.status == "reversed"
    assert fake_mturk.assignments[a.provider_assignment_id]["AssignmentStatus"] == "Approved"
    with pytest.raises(quality.QualityError):
        quality.reverse_decision(reversal, "cannot un-pay")


def test_a_failed_bonus_is_retried_with_the_same_token(fake_mturk):
    a = _synced_submission(fake_mturk, "AW7")
    fake_mturk.throttle_next = 100  # the platform is down for good
    with pytest.raises(ProviderError):
        quality.pay_bonus(a, "0.50", "great", provider=MTurkProvider(max_attempts=1))
    failed = a.decisions.get(action="bonus")
    assert failed.status == "failed"
    fake_mturk.throttle_next = 0
    done = quality.pay_bonus(a, "0.50", "great")
    assert done.pk == failed.pk and done.status == "done"
    assert [b["UniqueRequestToken"] for b in fake_mturk.bonuses] == [failed.request_token]


def test_sync_reconciles_platform_verdicts_and_flags_submissions_our_api_never_got(fake_mturk, client):
    batch, units = make_units(2, provider="mturk")
    publishing.publish_batch(batch, reward="0.20", assignments_per_unit=1)
    for u in units:
        u.refresh_from_db()
    # unit 0: submitted to both; then MTurk auto-approves it
    a0 = fake_mturk.submit(units[0].provider_ref, "AWA")
    worker = Worker.objects.create(provider="mturk", external_id="AWA")
    Assignment.objects.create(unit=units[0], worker=worker, status="submitted", provider_assignment_id=a0)
    fake_mturk.assignments[a0]["AssignmentStatus"] = "Approved"
    # unit 1: our page made the assignment, but the labels never reached our API
    a1 = fake_mturk.accept(units[1].provider_ref, "AWB")
    wb = Worker.objects.create(provider="mturk", external_id="AWB")
    ours = Assignment.objects.create(unit=units[1], worker=wb, status="assigned", provider_assignment_id=a1)
    fake_mturk.external_submit({"assignmentId": a1, "factcrowd": "submitted"})

    result = publishing.sync_batch(batch)
    assert (result.updated, result.created, result.missing_labels) == (2, 0, [ours.pk])
    assert Assignment.objects.get(provider_assignment_id=a0).status == "approved"
    ours.refresh_from_db()
    assert ours.status == "submitted" and ours.submission == {"platform_answer": {"factcrowd": "submitted"}}


def test_html_questions_are_refused_before_anything_is_created(fake_mturk):
    """HTMLQuestion pages come from *.mturkcontent.com, shared by every requester: the unit page lets only MTurk's
    own worker sites frame it, so that mode is dropped with a clear error."""
    batch, units = make_units(1, provider="mturk")
    with pytest.raises(ProviderError, match="'html' is not supported"):
        get_provider("mturk").publish(batch, units, reward=Decimal("0.5"), assignments_per_unit=1, question="html")
    assert not fake_mturk.hits


def test_turk_submit_to_must_be_an_mturk_worker_site(settings):
    settings.MTURK_SUBMIT_TEST_ORIGIN = ""
    provider = get_provider("mturk")
    base = {"assignmentId": "A1", "hitId": "H1", "workerId": "W1"}
    for origin in ("https://www.mturk.com", "https://workersandbox.mturk.com", "https://www.mturk.com/"):
        ctx = provider.parse_entry({**base, "turkSubmitTo": origin})
        assert ctx.submit_to == origin.rstrip("/") + "/mturk/externalSubmit"
    for forged in ("https://evil.example", "https://www.mturk.com.evil.example", "http://www.mturk.com",
                   "https://www.mturk.com/elsewhere", "https://user@www.mturk.com", "javascript:alert(1)"):
        assert provider.parse_entry({**base, "turkSubmitTo": forged}) is None, forged
    settings.MTURK_SUBMIT_TEST_ORIGIN = "http://127.0.0.1:9"
    assert provider.parse_entry({**base, "turkSubmitTo": "http://127.0.0.1:9"}).submit_to


def test_http_unit_pages_are_refused_outside_loopback(fake_mturk, settings):
    settings.PUBLIC_BASE_URL = "http://factcrowd.example.org"
    batch, units = make_units(1, provider="mturk")
    with pytest.raises(ProviderError, match="HTTPS"):
        get_provider("mturk").publish(batch, units, reward=Decimal("0.5"), assignments_per_unit=1)
