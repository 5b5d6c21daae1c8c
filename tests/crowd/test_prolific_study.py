"""Prolific, one study per batch: each place is a session in which our queue hands out units, then the code.

Against the fake, which rate-limits workspaces that create many studies with few places (as Prolific's Studies page
warns), a 2,000-unit batch publishes as one study in seconds; places follow units x assignments / units per place
and are raised only when the work left needs more; studies of older batches (one per unit) keep working.
"""
from __future__ import annotations

import time
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from annotation_tasks.crowd import ProviderError, get_provider
from annotation_tasks.crowd.entry import unit_entry_url
from annotation_tasks.crowd.prolific import completion_code, internal_name
from annotation_tasks.models import Assignment, PlaceSession, Response, Source, Unit, UnitResponse
from annotation_tasks.services import publishing
from tests.crowd.conftest import element_attrs, enter_place, make_units, work_through_place
from tests.crowd.fakes import fake_prolific as fake_module
from tests.crowd.test_full_path import label_everything, open_unit
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _study(name: str, n: int, *, wanted: int, per_place: int, **options):
    units = make_unit(name, n_qas=1, n_responses=1, wanted=wanted, provider="prolific", n_sources=n)
    units = units if isinstance(units, list) else [units]
    batch = units[0].batch
    publishing.publish_batch(batch, reward="1.00", assignments_per_unit=wanted, units_per_place=per_place, **options)
    batch.refresh_from_db()
    return batch, units


def test_many_small_studies_are_throttled_as_prolific_warns(fake_prolific):
    """What one study per unit ran into: the sixth small study within a minute answers 429."""
    provider = get_provider("prolific")
    batch, _units = make_units(1, provider="prolific")
    body = provider.study_body(batch, reward=Decimal("0.5"), places=3, options={})
    for i in range(fake_module.FEW_STUDIES):
        provider._request("POST", "studies/", json={**body, "internal_name": f"small-{i}"})
    with pytest.raises(ProviderError, match="429"):
        provider._request("POST", "studies/", json={**body, "internal_name": "one-too-many"})
    # a study with many places is not what the limit is about
    provider._request("POST", "studies/", json={**body, "internal_name": "big", "total_available_places": 500})


def test_a_2000_unit_batch_publishes_as_one_study_in_seconds(fake_prolific):
    batch, _ = make_units(0, provider="prolific", batch_name="big")
    project = batch.project
    sources = Source.objects.bulk_create(
        [Source(project=project, external_id=f"s{i}", text=f"Source {i}.") for i in range(2000)])
    responses = Response.objects.bulk_create(
        [Response(project=project, source=s, external_id=f"r{s.external_id}", system="sys", text="A text .")
         for s in sources])
    units = Unit.objects.bulk_create([Unit(project=project, batch=batch, source=s, assignments_wanted=3)
                                      for s in sources])
    UnitResponse.objects.bulk_create([UnitResponse(unit=u, response=r, position=0) for u, r in zip(units, responses,
                                                                                                    strict=True)])
    fake_prolific.created_at = [(time.monotonic(), 1)] * fake_module.FEW_STUDIES  # the workspace is at its limit
    started = time.monotonic()
    result = publishing.publish_batch(batch, reward="0.40", assignments_per_unit=3, units_per_place=10)
    elapsed = time.monotonic() - started
    batch.refresh_from_db()
    assert len(result.published) == 2000 and elapsed < 20, elapsed
    assert list(fake_prolific.studies) == [batch.provider_ref]
    assert [m for m, p in fake_prolific.requests if p == "/api/v1/studies/"].count("POST") == 1
    assert fake_prolific.studies[batch.provider_ref]["total_available_places"] == 600  # 2000 x 3 / 10
    assert not batch.units.filter(provider_ref="").exists()


def test_a_place_hands_out_units_up_to_units_per_place_then_the_completion_code(client, fake_prolific):
    batch, units = _study("Place flow", 3, wanted=2, per_place=2)
    assert fake_prolific.studies[batch.provider_ref]["total_available_places"] == 3  # ceil(3 x 2 / 2)
    started, done, page = work_through_place(client, fake_prolific, batch, "P1", label_everything)
    assert done == [units[0].pk, units[1].pk]  # oldest first, two units a place
    code = completion_code(batch.provider_ref, started["id"], "P1")
    html = page.content.decode()
    assert page.status_code == 200 and code in html and f"{fake_prolific.url}/submissions/complete?cc={code}" in html
    again = client.get(page.request["PATH_INFO"] + "?" + page.request["QUERY_STRING"])
    assert code in again.content.decode() and not element_attrs(again)  # reopening shows the code again
    assignments = Assignment.objects.filter(worker__external_id="P1")
    assert {a.provider_assignment_id for a in assignments} == {f"{started['id']}/{u}" for u in done}
    assert set(assignments.values_list("verification", flat=True)) == {"admitted"}

    # P2 gets what is left for them: units 1 and 2 still want one more worker each
    _s2, done2, _ = work_through_place(client, fake_prolific, batch, "P2", label_everything)
    assert done2 == [units[0].pk, units[1].pk]
    # P3: only unit 3 is left; the place ends after it with the code (work done is paid)
    s3, done3, page3 = work_through_place(client, fake_prolific, batch, "P3", label_everything)
    assert done3 == [units[2].pk] and completion_code(batch.provider_ref, s3["id"], "P3") in page3.content.decode()
    # the three places are taken and unit 3 still wants a worker: sync raises the places by one, no more
    study = fake_prolific.studies[batch.provider_ref]
    publishing.sync_batch(batch)
    assert study["total_available_places"] == 4
    s4, page4 = enter_place(client, fake_prolific, batch, "P4")
    assert element_attrs(page4)  # P4 holds unit 3
    # a place the researcher opened by hand while every unit is full or held: nothing to do, asked to return
    study["total_available_places"] = 5
    s5, done5, page5 = work_through_place(client, fake_prolific, batch, "P5", label_everything)
    assert done5 == [] and "Please return the study" in page5.content.decode()
    assert "completion-code" not in page5.content.decode()
    assert PlaceSession.objects.get(session_id=s5["id"]).status == "no_work"


def test_minutes_per_place_end_a_place_and_places_are_raised_for_the_work_left(client, fake_prolific):
    batch, units = _study("Minutes", 2, wanted=1, per_place=2, minutes_per_place=10)
    study = fake_prolific.studies[batch.provider_ref]
    assert study["total_available_places"] == 1
    started, page = enter_place(client, fake_prolific, batch, "SLOW")
    label_everything(client, element_attrs(page)["token"])
    PlaceSession.objects.update(started_at=timezone.now() - timedelta(minutes=11))  # the place's time is up
    page = client.get(page.request["PATH_INFO"] + "?" + page.request["QUERY_STRING"])
    assert not element_attrs(page) and completion_code(batch.provider_ref, started["id"], "SLOW") in page.content.decode()
    fake_prolific.complete_by_code(completion_code(batch.provider_ref, started["id"], "SLOW"), "SLOW")

    publishing.sync_batch(batch)  # unit 2 still wants a worker and the one place is used: one more place
    batch.refresh_from_db()
    assert study["total_available_places"] == 2 == batch.settings["places"]
    publishing.sync_batch(batch)  # nothing more is needed: never over-spent
    assert study["total_available_places"] == 2
    _s, done, _ = work_through_place(client, fake_prolific, batch, "NEXT", label_everything)
    assert done == [units[1].pk]


def test_sync_verifies_a_place_by_its_completion_code_and_a_wrong_code_unverifies_it(client, fake_prolific):
    batch, units = _study("Codes", 2, wanted=1, per_place=1)
    good, _d, _p = work_through_place(client, fake_prolific, batch, "GOOD", label_everything)
    bad, _d, _p = work_through_place(client, fake_prolific, batch, "BAD", label_everything)
    fake_prolific.complete_by_code(completion_code(batch.provider_ref, good["id"], "GOOD"), "GOOD")
    fake_prolific.complete_by_code("SHARED-CODE", "BAD")
    result = publishing.sync_batch(batch)
    assert result.seen == 2 and result.verified == 1
    assert Assignment.objects.get(worker__external_id="GOOD").verification == "verified"
    assert Assignment.objects.get(worker__external_id="BAD").verification == "unverified"
    assert [u.status for u in Unit.objects.filter(batch=batch).order_by("id")] == ["complete", "open"]


def test_a_returned_place_frees_its_units_at_sync(client, fake_prolific):
    batch, units = _study("Returned at sync", 1, wanted=1, per_place=1)
    started, page = enter_place(client, fake_prolific, batch, "QUITTER")
    assert element_attrs(page)
    fake_prolific.leave(started["id"], "TIMED-OUT")
    publishing.sync_batch(batch)
    assert Assignment.objects.get().status == "returned"
    _s, done, _ = work_through_place(client, fake_prolific, batch, "NEXT", label_everything)
    assert done == [units[0].pk]


def test_studies_of_older_batches_one_per_unit_keep_working(client, fake_prolific):
    """A batch published before: its unit's own study, entered at the unit page, synced per unit."""
    unit = make_unit("Legacy", n_qas=1, n_responses=1, wanted=1, provider="prolific")
    provider = get_provider("prolific")
    study = provider._request("POST", "studies/", json={
        **provider.study_body(unit.batch, reward=Decimal("1"), places=1, options={}),
        "internal_name": internal_name(unit.batch_id, unit.pk),
        "external_study_url": unit_entry_url(unit, "prolific")
        + "&PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"})
    provider._request("POST", f"studies/{study['id']}/transition/", json={"action": "PUBLISH"})
    Unit.objects.filter(pk=unit.pk).update(provider_ref=study["id"])
    unit.batch.status = "published"
    unit.batch.save()
    started = fake_prolific.start_submission(study["id"], "OLD")
    element = open_unit(client, started["url"])
    label_everything(client, element["token"])
    fake_prolific.complete_by_code(completion_code(study["id"], started["id"], "OLD"), "OLD")
    result = publishing.sync_batch(unit.batch)
    assert result.verified == 1
    assert Assignment.objects.get().verification == "verified"


@pytest.mark.parametrize("rate", [1.0, 0.0])
def test_attention_checks_come_at_the_batchs_gold_rate_and_look_like_any_unit(client, fake_prolific, rate):
    """Gold units are mixed into a place at the batch's own rate (settings["quality"]), and the unit payload a
    participant gets does not say which units are gold."""
    units = make_unit(f"Attention {rate}", n_qas=1, n_responses=1, wanted=1, provider="prolific", n_sources=6)
    gold = {u.pk for u in units[1::2]}
    Unit.objects.filter(pk__in=[u.pk for u in units]).update(is_gold=False)
    Unit.objects.filter(pk__in=gold).update(is_gold=True)
    batch = units[0].batch
    batch.settings = {"quality": {"gold_rate": rate, "gold_rate_initial": rate, "gold_initial_units": 0}}
    batch.save()
    publishing.publish_batch(batch, reward="1.00", assignments_per_unit=1, units_per_place=3)
    batch.refresh_from_db()
    payloads = []

    def label(c, token):
        payloads.append(c.get(f"/api/work/{token}/unit").content.decode())
        label_everything(c, token)

    _s, done, _page = work_through_place(client, fake_prolific, batch, "ATTENTIVE", label)
    assert len(done) == 3
    assert set(done) == (gold if rate == 1.0 else {u.pk for u in units} - gold)
    assert not any("gold" in p.lower() for p in payloads)
