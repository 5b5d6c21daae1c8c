"""A forged platform entry takes no slot of a unit: the platform is asked at the door, before any slot is counted.

Anyone can type /work/unit/<ref>/?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=.. or MTurk's assignmentId / hitId /
workerId. Prolific lists a participant's session from the moment they start (an ACTIVE submission), so a made-up
one is refused; MTurk reports an assignment only once it is submitted (GetAssignment), so an entry it cannot
vouch for yet is let in but holds no slot (MTurk itself never lets more real workers in than MaxAssignments), and
none is let in while MTurk says nobody holds the HIT. When the platform cannot be asked, the worker is let in
unverified, but such entries never take more than the unit's free slots, and verified work always wins a slot.
"""
from __future__ import annotations

from urllib.parse import urlparse

import pytest
from django.core.cache import cache

from annotation_tasks.crowd.entry import study_entry_url, unit_entry_url
from annotation_tasks.crowd.prolific import completion_code
from annotation_tasks.models import Assignment, Unit
from annotation_tasks.services import publishing, queue
from tests.crowd.conftest import element_attrs
from tests.crowd.test_full_path import label_everything, open_unit
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()  # cached platform answers must not leak between tests
    yield
    cache.clear()


def _published(name: str, provider: str, wanted: int = 2) -> Unit:
    """One unit published; on Prolific the batch's study has one unit a place, so each place is the unit."""
    unit = make_unit(name, n_qas=2, n_responses=1, wanted=wanted, provider=provider)
    publishing.publish_batch(unit.batch, reward="1.00", assignments_per_unit=wanted,
                             **({"units_per_place": 1} if provider == "prolific" else {}))
    unit.refresh_from_db()
    return unit


def _get(client, url: str):
    parsed = urlparse(url)
    return client.get(f"{parsed.path}?{parsed.query}")


def _mturk_link(unit: Unit, fake, assignment_id: str, worker_id: str) -> str:
    return (f"{unit_entry_url(unit, 'mturk')}&assignmentId={assignment_id}&hitId={unit.provider_ref}"
            f"&workerId={worker_id}&turkSubmitTo={fake.url}")


def _prolific_link(unit: Unit, pid: str, session: str) -> str:
    """The batch study's entry link (the study's URL with Prolific's placeholders filled in)."""
    return (f"{study_entry_url(unit.batch, 'prolific')}&PROLIFIC_PID={pid}&STUDY_ID={unit.provider_ref}"
            f"&SESSION_ID={session}")


# -- MTurk --------------------------------------------------------------------------------------------------------
def test_made_up_mturk_workers_cannot_fill_a_unit_and_real_workers_still_get_in(client, fake_mturk, settings):
    settings.UNVERIFIED_ENTRIES_PER_CLIENT = 10  # all come from the test client's one address: that cap is below
    unit = _published("MTurk forged slots", "mturk", wanted=2)
    first = fake_mturk.accept(unit.provider_ref, "AREAL1")  # a real worker holds the HIT on MTurk
    for i in range(5):  # more strangers than the unit has slots, each submitting a full set of labels
        element = open_unit(client, _mturk_link(unit, fake_mturk, f"MADEUPASSIGNMENT{i:02d}", f"ASTRANGER{i}"))
        label_everything(client, element["token"])
    forged = Assignment.objects.filter(worker__external_id__startswith="ASTRANGER")
    assert forged.count() == 5 and set(forged.values_list("verification", flat=True)) == {"pending"}
    assert queue.active_count(unit.pk) == 0  # none of them holds a slot
    unit.refresh_from_db()
    assert unit.status == "open"  # their submits did not complete the unit

    second = fake_mturk.accept(unit.provider_ref, "AREAL2")
    for aid in (first, second):  # both real workers get in, label and submit on MTurk
        element = open_unit(client, fake_mturk.worker_url(aid))
        label_everything(client, element["token"])
        fake_mturk.external_submit({"assignmentId": aid, "factcrowd": "submitted"})
    publishing.sync_batch(unit.batch)
    real = Assignment.objects.filter(worker__external_id__startswith="AREAL")
    assert set(real.values_list("verification", flat=True)) == {"verified"}
    assert set(forged.values_list("verification", flat=True)) == {"unverified"}
    unit.refresh_from_db()
    assert unit.status == "complete"  # complete exactly with its verified work
    # a real worker reopening their submitted HIT is recognised by MTurk (GetAssignment)
    assert open_unit(client, fake_mturk.worker_url(first))["token"]


def test_no_mturk_entry_is_let_in_while_nobody_holds_the_hit(client, fake_mturk):
    unit = _published("MTurk nobody", "mturk", wanted=2)
    resp = _get(client, _mturk_link(unit, fake_mturk, "MADEUPASSIGNMENT00", "ASTRANGER"))
    assert resp.status_code == 403 and b"MTurk" in resp.content
    assert not Assignment.objects.exists()


def test_a_submitted_mturk_assignment_of_another_worker_or_hit_opens_nothing(client, fake_mturk):
    unit = _published("MTurk stolen id", "mturk", wanted=2)
    other = _published("MTurk other", "mturk", wanted=2)
    aid = fake_mturk.submit(other.provider_ref, "AOTHER")  # a real, submitted assignment of another HIT
    fake_mturk.accept(unit.provider_ref, "AREAL1")
    resp = _get(client, _mturk_link(unit, fake_mturk, aid, "AOTHER"))
    assert resp.status_code == 403 and b"not this unit" in resp.content.lower()
    own = fake_mturk.submit(unit.provider_ref, "AOWNER")
    resp = _get(client, _mturk_link(unit, fake_mturk, own, "ATHIEF"))  # the right HIT, another worker's id
    assert resp.status_code == 403
    assert not Assignment.objects.exists()


# -- Prolific -----------------------------------------------------------------------------------------------------
def test_made_up_prolific_participants_cannot_fill_a_unit(client, fake_prolific):
    unit = _published("Prolific forged slots", "prolific", wanted=2)
    real_a = fake_prolific.start_submission(unit.provider_ref, "PREAL1")
    for i in range(4):
        resp = _get(client, _prolific_link(unit, f"PFAKE{i}", f"made-up-{i}"))
        assert resp.status_code == 403
    # a real session under another participant's id, and a real participant with a made-up session
    assert _get(client, _prolific_link(unit, "PFAKE", real_a["id"])).status_code == 403
    assert _get(client, _prolific_link(unit, "PREAL1", "made-up")).status_code == 403
    assert not Assignment.objects.exists()

    real_b = fake_prolific.start_submission(unit.provider_ref, "PREAL2")
    for started in (real_a, real_b):
        element = open_unit(client, started["url"])
        label_everything(client, element["token"])
    assert set(Assignment.objects.values_list("verification", flat=True)) == {"admitted"}
    assert queue.active_count(unit.pk) == 2


def test_a_returned_prolific_session_opens_nothing(client, fake_prolific):
    unit = _published("Prolific returned", "prolific", wanted=2)
    started = fake_prolific.start_submission(unit.provider_ref, "PGONE")
    fake_prolific.submissions[started["id"]]["status"] = "RETURNED"
    assert _get(client, started["url"]).status_code == 403
    assert not Assignment.objects.exists()


def test_while_prolific_is_down_unverified_entries_never_take_more_than_the_free_slots(client, fake_prolific):
    unit = _published("Prolific down", "prolific", wanted=2)
    fake_prolific.down = True
    let_in = 0
    for i in range(4):  # strangers arrive during an outage: let in unverified, but only into free slots
        resp = _get(client, _prolific_link(unit, f"PFAKE{i}", f"made-up-{i}"))
        assert resp.status_code == 200  # a unit, or the request to return the place
        let_in += bool(element_attrs(resp))
    assert let_in == 2
    assert set(Assignment.objects.values_list("verification", flat=True)) == {"pending"}
    assert queue.active_count(unit.pk) == 0

    fake_prolific.down = False  # Prolific answers again: verified participants win the slots
    for pid in ("PREAL1", "PREAL2"):
        element = open_unit(client, fake_prolific.start_submission(unit.provider_ref, pid)["url"])
        label_everything(client, element["token"])
    unit.refresh_from_db()
    assert unit.status == "complete" and queue.active_count(unit.pk) == 2


def test_a_prolific_submission_counts_only_once_prolific_lists_it_as_completed_with_its_own_code(
        client, fake_prolific):
    """The code the study registers is one per study; each participant's own code proves nothing by itself: work
    counts when Prolific lists that participant's submission awaiting review (or approved) with their code."""
    unit = _published("Prolific counts late", "prolific", wanted=2)
    started = fake_prolific.start_submission(unit.provider_ref, "PREAL")
    element = open_unit(client, started["url"])
    label_everything(client, element["token"])
    publishing.sync_batch(unit.batch)  # still ACTIVE on Prolific: the participant has not completed there
    a = Assignment.objects.get()
    assert a.verification == "admitted"
    assert not Assignment.objects.filter(Assignment.counted_q()).exists()
    assert fake_prolific.complete_by_code(completion_code(unit.provider_ref, started["id"], "PREAL"), "PREAL")
    publishing.sync_batch(unit.batch)
    a.refresh_from_db()
    assert a.verification == "verified" and Assignment.objects.filter(Assignment.counted_q()).count() == 1


def test_a_positive_prolific_answer_is_cached_briefly(client, fake_prolific):
    unit = _published("Prolific cached", "prolific", wanted=2)
    started = fake_prolific.start_submission(unit.provider_ref, "PREAL")
    asked = lambda: sum(1 for m, p in fake_prolific.requests if m == "GET" and "/submissions/" in p)  # noqa: E731
    open_unit(client, started["url"])
    before = asked()
    open_unit(client, started["url"])  # a reload of the page
    assert asked() == before >= 1


# -- the provider interface ----------------------------------------------------------------------------------------
def test_verify_entry_answers_per_provider(fake_mturk, fake_prolific):
    from annotation_tasks.crowd import EntryVerdict, get_provider

    unit = _published("Verify MTurk", "mturk", wanted=2)
    mturk = get_provider("mturk")
    query = {"hitId": unit.provider_ref, "workerId": "AW", "turkSubmitTo": fake_mturk.url}
    made_up = mturk.parse_entry({**query, "assignmentId": "MADEUPASSIGNMENT00"})
    assert mturk.verify_entry(unit, made_up).verdict == EntryVerdict.UNKNOWN  # nobody holds the HIT
    aid = fake_mturk.accept(unit.provider_ref, "AW")
    assert mturk.verify_entry(unit, mturk.parse_entry({**query, "assignmentId": aid})).verdict == \
        EntryVerdict.AFTER_SUBMIT
    fake_mturk.external_submit({"assignmentId": aid, "done": "1"})
    assert mturk.verify_entry(unit, mturk.parse_entry({**query, "assignmentId": aid})).verdict == \
        EntryVerdict.VERIFIED

    study_unit = _published("Verify Prolific", "prolific", wanted=2)
    prolific = get_provider("prolific")
    started = fake_prolific.start_submission(study_unit.provider_ref, "PW")
    query = {"PROLIFIC_PID": "PW", "STUDY_ID": study_unit.provider_ref, "SESSION_ID": started["id"]}
    assert prolific.verify_entry(study_unit, prolific.parse_entry(query)).verdict == EntryVerdict.VERIFIED
    made_up = prolific.parse_entry({**query, "SESSION_ID": "nope"})
    assert prolific.verify_entry(study_unit, made_up).verdict == EntryVerdict.UNKNOWN
    fake_prolific.down = True
    assert prolific.verify_entry(study_unit, made_up).verdict == EntryVerdict.UNAVAILABLE


def test_one_client_cannot_make_up_mturk_workers_without_end(client, fake_mturk, settings):
    """MTurk cannot vouch for a worker before they submit, so such entries are let in holding no slot; one
    address may bring only a few such workers into a project per hour, and a real worker reopening is not
    counted again."""
    settings.UNVERIFIED_ENTRIES_PER_CLIENT = 3
    unit = _published("MTurk flood", "mturk", wanted=2)
    fake_mturk.accept(unit.provider_ref, "AREAL1")  # someone holds the HIT, so entries are let in unverified
    for i in range(3):
        assert _get(client, _mturk_link(unit, fake_mturk, f"MADEUPASSIGNMENT{i:02d}", f"ASTRANGER{i}")).status_code == 200
    refused = _get(client, _mturk_link(unit, fake_mturk, "MADEUPASSIGNMENT09", "ASTRANGER9"))
    assert refused.status_code == 429 and b"try later" in refused.content
    assert not Assignment.objects.filter(worker__external_id="ASTRANGER9").exists()
    # the same (made-up or real) worker reopening their page is not a new worker
    assert _get(client, _mturk_link(unit, fake_mturk, "MADEUPASSIGNMENT00", "ASTRANGER0")).status_code == 200
    # another address is counted on its own
    parsed = urlparse(_mturk_link(unit, fake_mturk, "MADEUPASSIGNMENT10", "AOTHERPLACE"))
    assert client.get(f"{parsed.path}?{parsed.query}", REMOTE_ADDR="10.0.0.9").status_code == 200


# -- a stranger's edge values in the entry link ----------------------------------------------------------------
EDGE = ["a\x00b", "x" * 5000, str(10**23), "", " ", "<script>alert(1)</script>", "../../etc/passwd", "%00"]


@pytest.mark.parametrize("value", EDGE)
def test_edge_values_in_an_entry_link_are_refused_without_a_500_or_a_slot(client, fake_prolific, fake_mturk, value):
    """Every platform parameter, and the unit reference itself, set to a value no platform sends: a 4xx page,
    never a 500, and no assignment (runs on SQLite and PostgreSQL: PostgreSQL's driver raises on a NUL)."""
    from urllib.parse import quote

    prolific = _published("Prolific edge", "prolific", wanted=2)
    mturk = _published("MTurk edge", "mturk", wanted=2)
    q = quote(value, safe="")
    links = [_prolific_link(prolific, q, "s1"), _prolific_link(prolific, "P1", q),
             f"{unit_entry_url(prolific, 'prolific')}&PROLIFIC_PID=P1&STUDY_ID={q}&SESSION_ID=s1",
             _mturk_link(mturk, fake_mturk, q, "W1"), _mturk_link(mturk, fake_mturk, "A1", q),
             f"{unit_entry_url(mturk, 'mturk')}&assignmentId=A1&hitId={q}&workerId=W1&turkSubmitTo={fake_mturk.url}",
             f"{unit_entry_url(mturk, 'mturk')}&assignmentId=A1&hitId={mturk.provider_ref}&workerId=W1&turkSubmitTo={q}"]
    for link in links:
        resp = _get(client, link)
        assert 400 <= resp.status_code < 500, (link[:200], resp.status_code)
    assert client.get(f"/work/unit/{q}/?PROLIFIC_PID=P1").status_code in (400, 403, 404)
    assert client.get(f"/work/study/{q}/?PROLIFIC_PID=P1").status_code in (400, 403, 404)
    assert client.get(f"/work/{q}/").status_code in (400, 403, 404)
    assert client.get(f"/invite/{q}/").status_code in (400, 403, 404)
    assert not Assignment.objects.exists()
