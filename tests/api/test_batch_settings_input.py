"""A batch's settings and the cost estimate's reward are checked where they come in (a 400 naming the field, nothing
written), and settings stored before the API checked them (bad values in old databases) do not break the annotator
queue or the estimate: their readers fall back to the default."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from annotation_tasks.models import Assignment, Batch, Job, ProjectMembership
from annotation_tasks.services import queue, sessions
from tests.api.conftest import client_for

pytestmark = pytest.mark.django_db

BAD_SETTINGS = [
    ("assignment_duration_minutes", "abc"),
    ("assignment_duration_minutes", "30"),  # a number, but as text: the wrong type
    ("assignment_duration_minutes", 10**12),
    pytest.param("assignment_duration_minutes", 10**400, id="assignment_duration_minutes-10**400"),
    ("assignment_duration_minutes", 0),
    ("assignment_duration_minutes", -5),
    ("assignment_duration_minutes", 2.5),
    ("assignment_duration_minutes", True),
    ("assignment_duration_minutes", {}),
    ("estimated_minutes_per_unit", "abc"),
    ("estimated_minutes_per_unit", {}),
    ("estimated_minutes_per_unit", 0),
    ("estimated_minutes_per_unit", -1),
    ("estimated_minutes_per_unit", 1e300),
    ("units_per_place", "ten"),
    ("units_per_place", 0),
    ("units_per_place", 10**9),
    ("minutes_per_place", [5]),
    ("lifetime_s", "a week"),
    ("title", 5),
    ("retest", "yes"),
    ("quality", "strict"),
    ("quality.gold_rate", "lots"),
    ("qualifications", ["trained"]),
]


def _setting(field: str, value: object) -> dict:
    """{"quality.gold_rate": v} as the nested setting it names."""
    key, _, inner = field.partition(".")
    return {key: {inner: value}} if inner else {key: value}


@pytest.mark.parametrize("field, value", BAD_SETTINGS)
def test_a_bad_setting_is_refused_on_create_naming_it(world, as_user, field, value):
    before = Batch.objects.count()
    r = as_user("alice").post("/api/batches/", {"project": world.a.pk, "name": "x", "provider": "local",
                                                "settings": _setting(field, value)}, format="json")
    assert r.status_code == 400, r.content
    assert list(r.json()) == ["settings"] and field in r.json()["settings"], r.json()
    assert Batch.objects.count() == before


@pytest.mark.parametrize("field, value", BAD_SETTINGS)
def test_a_bad_setting_is_refused_on_patch_and_put(world, as_user, field, value):
    client = as_user("alice")
    Batch.objects.filter(pk=world.batch_a.pk).update(settings={"assignment_duration_minutes": 30})
    url = f"/api/batches/{world.batch_a.pk}/"
    patched = client.patch(url, {"settings": _setting(field, value)}, format="json")
    put = client.put(url, {"project": world.a.pk, "name": "batch-a", "provider": "local",
                           "settings": _setting(field, value)}, format="json")
    for r in (patched, put):
        assert r.status_code == 400 and field in r.json()["settings"], r.content
    assert Batch.objects.get(pk=world.batch_a.pk).settings == {"assignment_duration_minutes": 30}


def test_every_bad_setting_is_named_at_once(world, as_user):
    r = as_user("alice").post("/api/batches/", {"project": world.a.pk, "name": "x", "settings": {
        "assignment_duration_minutes": "abc", "estimated_minutes_per_unit": -1}}, format="json")
    assert r.status_code == 400
    assert set(r.json()["settings"]) == {"assignment_duration_minutes", "estimated_minutes_per_unit"}


def test_good_settings_are_kept_and_used(world, as_user):
    good = {"assignment_duration_minutes": 30, "estimated_minutes_per_unit": 1.5, "units_per_place": 5,
            "minutes_per_place": 45, "title": "Judge texts", "retest": False, "quality": {"gold_rate": 0.2},
            "qualifications": {"trained": 1}, "locales": ["US"], "unknown_note": "kept as it was",
            "assignment_duration_minutes_note": None}
    client = as_user("bob")  # project B has no timed work: its estimate reads estimated_minutes_per_unit
    r = client.post("/api/batches/", {"project": world.b.pk, "name": "good", "settings": good}, format="json")
    assert r.status_code == 201, r.content
    batch = Batch.objects.get(pk=r.json()["id"])
    assert batch.settings == good
    assert queue.timeout_of(batch.pk, batch.settings) == timedelta(minutes=30)
    assert sessions.seconds_per_unit(batch) == (90.0, "researcher's estimate")
    assert (sessions.units_per_place(batch), sessions.minutes_per_place(batch)) == (5, 45)
    patched = client.patch(f"/api/batches/{batch.pk}/", {"settings": {"assignment_duration_minutes": 7.0,
                                                                       "estimated_minutes_per_unit": None}},
                           format="json")
    assert patched.status_code == 200, patched.content  # a whole float is whole; null means "the default"
    batch.refresh_from_db()
    assert queue.timeout_of(batch.pk, batch.settings) == timedelta(minutes=7)


STORED_BAD = ["abc", 10**12, pytest.param(10**400, id="10**400"), -5, 0, None, [1], {"x": 1}, "1e999", "nan", True]


@pytest.mark.parametrize("value", STORED_BAD)
def test_a_bad_duration_stored_before_the_check_still_serves_work(world, users, value):
    """An old database's bad value: the queue hands out work with the default timeout instead of a 500."""
    Batch.objects.filter(pk=world.batch_a.pk).update(status=Batch.Status.PUBLISHED,
                                                     settings={"assignment_duration_minutes": value})
    carol = get_user_model().objects.create_user("carol", password="pw")
    ProjectMembership.objects.create(project=world.a, user=carol, role=ProjectMembership.Role.ANNOTATOR)
    r = client_for(carol).post("/api/work/next", {"project": world.a.pk}, format="json")
    assert r.status_code == 200, r.content
    assignment = Assignment.objects.get(pk=r.json()["assignment_id"])
    expected = timezone.now() + timedelta(minutes=settings.ASSIGNMENT_TIMEOUT_MINUTES)
    assert assignment.expires_at is not None and abs(assignment.expires_at - expected) < timedelta(minutes=1)


def test_old_readable_values_keep_working():
    """What int() read before (a number as text, a fraction) is read the same: only unusable values fall back."""
    assert queue.timeout_of(1, {"assignment_duration_minutes": "30"}) == timedelta(minutes=30)
    assert queue.timeout_of(1, {"assignment_duration_minutes": 2.5}) == timedelta(minutes=2)
    assert queue.timeout_of(1, ["not", "an", "object"]) == timedelta(minutes=settings.ASSIGNMENT_TIMEOUT_MINUTES)  # type: ignore[arg-type]
    assert sessions.units_per_place(Batch(settings={"units_per_place": "4"})) == 4
    assert sessions.units_per_place(Batch(settings={"units_per_place": "many"})) == sessions.DEFAULT_UNITS_PER_PLACE
    assert sessions.units_per_place(Batch(settings={"units_per_place": 10**400})) == sessions.DEFAULT_UNITS_PER_PLACE
    assert sessions.minutes_per_place(Batch(settings={"minutes_per_place": "soon"})) is None
    assert sessions.minutes_per_place(Batch(settings={"minutes_per_place": -3})) is None


@pytest.mark.parametrize("value", ["abc", [1], {"x": 1}, -1, 0, pytest.param(10**400, id="10**400"), "1e999",
                                   True])
def test_a_bad_minutes_estimate_stored_before_the_check_still_estimates(world, as_user, value):
    """Project B has no timed work, so its estimate reads the researcher's estimate: the default (3 minutes) here."""
    Batch.objects.filter(pk=world.batch_b.pk).update(settings={"estimated_minutes_per_unit": value})
    r = as_user("bob").get(f"/api/batches/{world.batch_b.pk}/estimate/", {"reward": "1.00"})
    assert r.status_code == 200, r.content
    rate = r.json()["hourly_rate"]
    assert (rate["seconds_per_unit"], rate["source"]) == (180.0, "researcher's estimate")


def test_a_good_minutes_estimate_is_read(world, as_user):
    Batch.objects.filter(pk=world.batch_b.pk).update(settings={"estimated_minutes_per_unit": "1.5"})
    r = as_user("bob").get(f"/api/batches/{world.batch_b.pk}/estimate/", {"reward": "1.00"})
    assert r.status_code == 200 and r.json()["hourly_rate"]["seconds_per_unit"] == 90.0


BAD_REWARDS = ["NaN", "-NaN", "sNaN", "Infinity", "-Infinity", "1e30", "99999999999999999999", "1e-30", "-1",
               "-0.01", "abc", "", "0.001",
               pytest.param("1" * 2000, id="2000-digits")]


@pytest.mark.parametrize("reward", BAD_REWARDS)
def test_a_bad_estimate_reward_is_a_400_naming_it(world, as_user, reward):
    r = as_user("alice").get(f"/api/batches/{world.batch_a.pk}/estimate/", {"reward": reward})
    assert r.status_code == 400, r.content
    assert list(r.json()) == ["reward"], r.json()


def test_a_missing_estimate_reward_is_a_400_naming_it(world, as_user):
    r = as_user("alice").get(f"/api/batches/{world.batch_a.pk}/estimate/")
    assert r.status_code == 400 and list(r.json()) == ["reward"], r.content


@pytest.mark.parametrize("per_unit", ["abc", "0", "-1", "2.5", "99999999999999999999", "51"])
def test_a_bad_estimate_assignments_per_unit_is_a_400_naming_it(world, as_user, per_unit):
    r = as_user("alice").get(f"/api/batches/{world.batch_a.pk}/estimate/",
                             {"reward": "1.00", "assignments_per_unit": per_unit})
    assert r.status_code == 400, r.content
    assert list(r.json()) == ["assignments_per_unit"], r.json()


@pytest.mark.parametrize("reward", ["1.00", "0", "0.5", "999999.99"])
def test_a_good_estimate_reward_is_estimated(world, as_user, reward):
    r = as_user("alice").get(f"/api/batches/{world.batch_a.pk}/estimate/",
                             {"reward": reward, "assignments_per_unit": 2})
    assert r.status_code == 200, r.content
    assert r.json()["units"] == 1 and r.json()["assignments_per_unit"] == 2


@pytest.mark.parametrize("reward", [*BAD_REWARDS, 1e30, -1, None, True, [1]])
def test_a_bad_publish_reward_is_a_400_naming_it_and_nothing_starts(world, as_user, reward):
    jobs = Job.objects.count()
    r = as_user("alice").post(f"/api/batches/{world.batch_a.pk}/publish/", {"confirm": True, "reward": reward},
                              format="json")
    assert r.status_code == 400, r.content
    assert list(r.json()) == ["reward"], r.json()
    assert Job.objects.count() == jobs and Batch.objects.get(pk=world.batch_a.pk).status == Batch.Status.DRAFT
