"""Platform entries are checked against the unit, and the work counts only once sync finds it on the platform.

Anyone can type a platform's query string: /work/unit/<ref>/?PROLIFIC_PID=<any>&STUDY_ID=<any>&SESSION_ID=<any>
(or MTurk's hitId / workerId / assignmentId). The ids must be the unit's own study or HIT, and work whose
participant and submission the platform does not list (or whose Prolific completion code is not that
participant's own) is unverified: out of the frames, the exporters' votes and auto-approval, its slot given back,
and shown to the researcher (monitor overview, assignments API).
"""
from __future__ import annotations

import re
from datetime import timedelta
from html import unescape
from urllib.parse import parse_qs, urlparse

import pytest
import requests
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from annotation_tasks.crowd.entry import study_entry_url, unit_entry_url
from annotation_tasks.crowd.prolific import ProlificError, ProlificProvider, completion_code
from annotation_tasks.exporters.base import level_votes
from annotation_tasks.models import QA, Assignment, ProjectMembership, Unit
from annotation_tasks.services import frames, publishing, quality
from tests.crowd.test_full_path import label_everything, open_unit
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _published(name: str, provider: str, wanted: int = 2) -> Unit:
    """One unit published; on Prolific the batch's study has one unit a place."""
    unit = make_unit(name, n_qas=2, n_responses=1, wanted=wanted, provider=provider)
    publishing.publish_batch(unit.batch, reward="1.00", assignments_per_unit=wanted,
                             **({"units_per_place": 1} if provider == "prolific" else {}))
    unit.refresh_from_db()
    return unit


def _prolific_link(unit: Unit, pid: str, study: str, session: str) -> str:
    """The batch study's entry link with Prolific's parameters filled in."""
    return f"{study_entry_url(unit.batch, 'prolific')}&PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session}"


def _complete_place(client, fake, unit: Unit, started: dict) -> str:
    """After the place's unit: the entry page shows the completion code and Prolific's completion link, which the
    participant follows; answers the code."""
    page = client.get(urlparse(started["url"]).path + "?" + urlparse(started["url"]).query).content.decode()
    link = unescape(re.search(r'data-testid="completion-link" href="([^"]+)"', page).group(1))
    assert requests.get(link, timeout=10).status_code == 200
    return parse_qs(urlparse(link).query)["cc"][0]


def _counted_assignments(unit: Unit) -> set[int]:
    labels = frames.labels_frame(unit.project)
    qa_ids = list(QA.objects.filter(response__project=unit.project).values_list("id", flat=True))
    return set(labels["assignment_id"]) | {a for _lv, _i, a, _l in level_votes("qa", qa_ids)}


def test_made_up_prolific_sessions_are_refused_at_the_door(client, fake_prolific):
    unit = _published("Forged at the door", "prolific")
    for i in range(2):  # the study id is easy to learn; participant and session are invented
        resp = client.get(_prolific_link(unit, f"FAKE{i}", unit.provider_ref, f"made-up-{i}").removeprefix(
            "https://factcrowd.example.org"))
        assert resp.status_code == 403 and b"Prolific does not know this session" in resp.content
    assert not Assignment.objects.exists()


@pytest.fixture
def prolific_unreachable(monkeypatch):
    """Prolific cannot be asked about sessions (down, slow): entries are let in, and sync has the last word."""
    def down(self, session_id):
        raise ProlificError("prolific GET submissions: connection refused")

    monkeypatch.setattr(ProlificProvider, "session_of", down)


def test_made_up_prolific_participants_count_nowhere_and_give_their_slots_back(client, fake_prolific,
                                                                               prolific_unreachable):
    unit = _published("Forged Prolific", "prolific")
    batch = unit.batch
    for i in range(2):  # let in while Prolific cannot be asked: participant and session are invented
        element = open_unit(client, _prolific_link(unit, f"FAKE{i}", unit.provider_ref, f"made-up-{i}"))
        label_everything(client, element["token"])
    forged = set(Assignment.objects.filter(worker__external_id__startswith="FAKE").values_list("pk", flat=True))
    assert len(forged) == 2
    assert set(Assignment.objects.filter(pk__in=forged).values_list("verification", flat=True)) == {"pending"}
    assert _counted_assignments(unit) == set()  # nothing counts before the platform vouches for it

    result = publishing.sync_batch(batch)
    assert set(result.unverified) == forged
    rows = Assignment.objects.filter(pk__in=forged)
    assert {(a.verification, a.verification_note) for a in rows} == {
        ("unverified", "the platform does not list this submission")}
    unit.refresh_from_db()
    assert unit.status == "open"  # their slots are free again

    started = fake_prolific.start_submission(unit.provider_ref, "REAL")
    element = open_unit(client, started["url"])
    label_everything(client, element["token"])
    _complete_place(client, fake_prolific, unit, started)
    publishing.sync_batch(batch)
    real = Assignment.objects.get(worker__external_id="REAL")
    assert (real.verification, real.status) == ("verified", "submitted")
    assert _counted_assignments(unit) == {real.pk}

    later = timezone.now() + timedelta(days=30)  # long past auto_approve_days
    assert quality.apply_approval_policy(batch, now=later) == {"approved": 1, "waiting": 0, "unverified": 2}
    assert set(Assignment.objects.filter(status="approved").values_list("pk", flat=True)) == {real.pk}


def test_a_prolific_link_of_another_study_or_platform_opens_nothing(client, fake_prolific):
    unit = _published("Wrong study", "prolific")
    other = _published("Other study", "prolific")
    for study in ("made-up-study", other.provider_ref):
        resp = client.get(_prolific_link(unit, "P1", study, "s1").removeprefix("https://factcrowd.example.org"))
        assert resp.status_code == 403 and b"does not belong to this batch&#x27;s study" in resp.content
    mturk_query = "assignmentId=A1&hitId=H1&workerId=W1&turkSubmitTo=https://www.mturk.com"
    resp = client.get(f"{urlparse(unit_entry_url(unit, 'mturk')).path}?{mturk_query}")
    assert resp.status_code == 403 and b"not from the platform" in resp.content
    assert not Assignment.objects.exists()


def test_made_up_mturk_ids_are_refused_or_left_unverified(client, fake_mturk):
    unit = _published("Forged MTurk", "mturk")
    path = urlparse(unit_entry_url(unit, "mturk")).path
    turk = f"turkSubmitTo={fake_mturk.url}"
    resp = client.get(f"{path}?assignmentId=A1&hitId=MADEUPHIT&workerId=AW1&{turk}")
    assert resp.status_code == 403 and not Assignment.objects.exists()
    made_up = f"{path}?assignmentId=MADEUP1&hitId={unit.provider_ref}&workerId=ANOBODY&{turk}"
    resp = client.get(made_up)  # nobody holds the HIT on MTurk: no real worker can be at the door
    assert resp.status_code == 403 and not Assignment.objects.exists()
    resp = client.get(made_up.replace("workerId=ANOBODY", "workerId=NOBODY"))  # not even an MTurk worker id
    assert resp.status_code == 403 and b"not MTurk" in resp.content

    real_id = fake_mturk.accept(unit.provider_ref, "AREALWORKER")
    element = open_unit(client, made_up)  # while someone holds the HIT, MTurk cannot tell: let in, no slot held
    label_everything(client, element["token"])
    element = open_unit(client, fake_mturk.worker_url(real_id))
    label_everything(client, element["token"])
    fake_mturk.external_submit({"assignmentId": real_id, "factcrowd": "submitted"})

    publishing.sync_batch(unit.batch)
    by_worker = dict(Assignment.objects.values_list("worker__external_id", "verification"))
    assert by_worker == {"ANOBODY": "unverified", "AREALWORKER": "verified"}
    real = Assignment.objects.get(worker__external_id="AREALWORKER")
    assert _counted_assignments(unit) == {real.pk}


def test_a_passed_on_prolific_completion_code_does_not_verify(client, fake_prolific):
    """Each participant gets a code of their own: B completing with A's code (without working) is caught."""
    unit = _published("Shared code", "prolific")
    started_a = fake_prolific.start_submission(unit.provider_ref, "PA")
    element = open_unit(client, started_a["url"])
    label_everything(client, element["token"])
    code_a = _complete_place(client, fake_prolific, unit, started_a)
    started_b = fake_prolific.start_submission(unit.provider_ref, "PB")
    label_everything(client, open_unit(client, started_b["url"])["token"])
    assert fake_prolific.complete_by_code(code_a, "PB")  # A's code, passed on
    assert code_a != completion_code(unit.provider_ref, started_b["id"], "PB")

    result = publishing.sync_batch(unit.batch)
    rows = {a.worker.external_id: a for a in Assignment.objects.select_related("worker")}
    assert rows["PA"].verification == "verified"
    assert (rows["PB"].verification, rows["PB"].verification_note) == ("unverified", "wrong completion code")
    assert rows["PB"].pk in result.unverified
    later = timezone.now() + timedelta(days=30)
    assert quality.apply_approval_policy(unit.batch, now=later)["approved"] == 1
    rows["PB"].refresh_from_db()
    assert rows["PB"].status == "submitted"  # never paid without a person looking


def test_the_researcher_sees_unverified_work(client, fake_prolific, prolific_unreachable):
    unit = _published("Shown", "prolific")
    element = open_unit(client, _prolific_link(unit, "FAKE", unit.provider_ref, "made-up"))
    label_everything(client, element["token"])
    researcher = get_user_model().objects.create_user("res", password="pw")
    ProjectMembership.objects.create(project=unit.project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    api = APIClient()
    api.force_authenticate(researcher)
    overview = api.get(f"/api/projects/{unit.project_id}/overview/").json()
    assert overview["submitted_by_verification"] == {"pending": 1}
    publishing.sync_batch(unit.batch)
    overview = api.get(f"/api/projects/{unit.project_id}/overview/").json()
    assert overview["submitted_by_verification"] == {"unverified": 1}
    (row,) = api.get("/api/assignments/", {"project": unit.project_id}).json()["results"]
    assert (row["verification"], row["verification_note"]) == ("unverified", "the platform does not list this submission")
