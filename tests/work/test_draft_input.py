"""The draft PUT checks the parsed draft, whatever the content type brought it: an infinite number, a NUL or a
lone surrogate is a 400 naming `draft` and the place in it, and nothing is written. A draft stored before that
check does not make the unit or the review answer a 500."""
from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, ProjectMembership
from tests.work.builders import make_unit
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db

FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def api() -> APIClient:
    client = APIClient()
    client.raise_request_exception = False  # a 500 is an answer to assert on, not an exception in the test
    return client


@pytest.fixture
def open_assignment(db) -> tuple[Assignment, str]:
    return new_assignment(make_unit(n_qas=1), "w")


def put(api: APIClient, token: str, body: str | bytes, content_type: str = "application/json"):
    return api.generic("PUT", f"/api/work/{token}/draft", body, content_type=content_type)


def put_form(api: APIClient, token: str, draft_json: str, **more: str):
    """As an HTML form posts it: the draft's JSON text in a form field."""
    return put(api, token, urlencode({"draft": draft_json, **more}), FORM)


def errors_of(response) -> list[tuple[str, str]]:
    return [(e["field"], e["message"]) for e in response.json().get("errors", [])]


def assert_nothing_written(assignment: Assignment) -> None:
    assignment = Assignment.objects.get(pk=assignment.pk)
    assert assignment.draft is None and assignment.draft_version == 0 and assignment.draft_saved_at is None


@pytest.mark.parametrize(("body", "field"), [
    ('{"draft": 1e999}', "draft"),
    ('{"draft": -1e999}', "draft"),
    ('{"draft": {"spans": [{"span_id": 1}, {"span_id": 1E400}]}}', "draft.spans[1].span_id"),
    ('{"draft": {"x": ' + "1" * 400 + ".5}}", "draft.x"),  # no exponent, still beyond a float's range
])
def test_a_number_beyond_a_floats_range_in_a_json_body_is_a_located_400(api, open_assignment, body, field):
    assignment, token = open_assignment
    r = put(api, token, body)
    assert r.status_code == 400, r.content
    [(where, message)] = errors_of(r)
    assert where == field and "finite" in message
    assert_nothing_written(assignment)


@pytest.mark.parametrize(("draft_json", "field", "says"), [
    ('{"a": 1e999}', "draft.a", "finite"),
    ('{"a": [0, -1e400]}', "draft.a[1]", "finite"),
    ('{"a": "x\\u0000y"}', "draft.a", "NUL"),
    ('{"a": "\\ud800"}', "draft.a", "surrogate"),
    ('{"a": {"b": ["ok", "lone \\udc00 low"]}}', "draft.a.b[1]", "surrogate"),
    ('{"\\ud800": 1}', "draft.\\ud800", "surrogate"),  # a key, named printably
    ('{"a\\u0000": 1}', "draft.a\\u0000", "NUL"),
])
def test_a_form_encoded_draft_is_checked_once_parsed(api, open_assignment, draft_json, field, says):
    assignment, token = open_assignment
    r = put_form(api, token, draft_json)
    assert r.status_code == 400, r.content
    [(where, message)] = errors_of(r)
    assert where == field and says in message, (where, message)
    assert_nothing_written(assignment)


@pytest.mark.parametrize("literal", ["NaN", '{"a": Infinity}', '[-Infinity]'])
def test_nan_and_infinity_literals_in_a_form_field_are_refused_on_the_draft(api, open_assignment, literal):
    assignment, token = open_assignment
    r = put_form(api, token, literal)
    assert r.status_code == 400 and [f for f, _ in errors_of(r)] == ["draft"], r.content
    assert_nothing_written(assignment)


@pytest.mark.parametrize(("body", "field"), [
    ('{"draft": {"a": "\\ud800"}}', "draft.a"),
    ('{"draft": {"a": "x\\u0000"}}', "draft.a"),
    ('{"draft": {"a": 1e999}}', "draft.a"),
])
def test_a_utf16_json_body_is_checked_like_a_utf8_one(api, open_assignment, body, field):
    assignment, token = open_assignment
    r = put(api, token, body.encode("utf-16"), "application/json; charset=utf-16")
    assert r.status_code == 400, r.content
    assert [f for f, _ in errors_of(r)] == [field]
    assert_nothing_written(assignment)


def test_a_json_body_with_a_nul_or_a_surrogate_stays_a_located_400(api, open_assignment):
    assignment, token = open_assignment
    for text in ("a\x00b", "lone \ud800"):
        r = put(api, token, json.dumps({"draft": {"qas": [{"note": text}]}}))
        assert r.status_code == 400 and [f for f, _ in errors_of(r)] == ["draft.qas[0].note"], r.content
    assert_nothing_written(assignment)


GOOD: dict[str, Any] = {"qas": [{"qa_id": 1, "note": "Zürich 😀 \\u0000 is only text", "score": 0.5, "big": 1e300, "n": 10**30}],
        "empty": {}, "none": None, "flag": True}


def _as_floats(value: Any) -> Any:
    """PostgreSQL's jsonb keeps 1e300 as the decimal it reads (back as an int of 301 digits): the same number, not
    the same Python type, so stored drafts are compared with every number as a float."""
    if isinstance(value, dict):
        return {k: _as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_floats(v) for v in value]
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def test_good_drafts_are_saved_as_sent_by_json_or_form(api, open_assignment):
    assignment, token = open_assignment
    r = put(api, token, json.dumps({"draft": GOOD, "draft_version": 0}))
    assert r.status_code == 200 and r.json()["draft_version"] == 1, r.content
    assert _as_floats(Assignment.objects.get(pk=assignment.pk).draft) == _as_floats(GOOD)
    as_form = {**GOOD, "step": 2}
    r = put_form(api, token, json.dumps(as_form), draft_version="1")
    assert r.status_code == 200 and r.json()["draft_version"] == 2, r.content
    assert _as_floats(Assignment.objects.get(pk=assignment.pk).draft) == _as_floats(as_form)
    r = put(api, token, json.dumps({"draft": {"utf16": "ü"}}, ensure_ascii=False).encode("utf-16"),
            "application/json; charset=utf-16")
    assert r.status_code == 200 and Assignment.objects.get(pk=assignment.pk).draft == {"utf16": "ü"}, r.content
    assert api.get(f"/api/work/{token}/unit").json()["draft"] == {"utf16": "ü"}


def test_the_size_limit_still_names_the_draft(api, open_assignment, settings):
    assignment, token = open_assignment
    settings.WORK_DRAFT_MAX_BYTES = 100
    r = put(api, token, json.dumps({"draft": {"note": "x" * 200}}))
    assert r.status_code == 400 and [f for f, _ in errors_of(r)] == ["draft"] and "larger" in r.content.decode()
    assert_nothing_written(assignment)


def test_a_bad_draft_stored_before_the_check_does_not_break_the_unit_or_the_review(api, open_assignment):
    if connection.vendor != "sqlite":
        pytest.skip("only SQLite ever stored such a draft (PostgreSQL refuses NUL and lone surrogates in jsonb)")
    assignment, token = open_assignment
    stored = {"qas": [{"note": "before \ud800 after"}], "key\x00": "x\x00y", "kept": "ü"}
    Assignment.objects.filter(pk=assignment.pk).update(draft=stored)

    unit = api.get(f"/api/work/{token}/unit")
    assert unit.status_code == 200, unit.content
    mended = unit.json()["draft"]
    assert mended == {"qas": [{"note": "before \ufffd after"}], "key\ufffd": "x\ufffdy", "kept": "ü"}

    researcher = get_user_model().objects.create_user("rita")
    ProjectMembership.objects.create(project=assignment.unit.project, user=researcher,
                                     role=ProjectMembership.Role.RESEARCHER)
    client = APIClient()
    client.raise_request_exception = False
    client.force_login(researcher)
    review = client.get(f"/api/assignments/{assignment.pk}/review/")
    assert review.status_code == 200, review.content
    assert review.json()["payload"]["draft"] == mended

    page = api.get(f"/work/{token}/")  # the unit page embeds the same answer
    assert page.status_code == 200

    # the element saves back what it was shown: that draft is storable
    r = put(api, token, json.dumps({"draft": mended, "draft_version": unit.json()["draft_version"]}))
    assert r.status_code == 200 and Assignment.objects.get(pk=assignment.pk).draft == mended, r.content
