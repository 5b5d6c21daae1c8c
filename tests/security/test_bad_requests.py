"""Bad input on the element's API and anywhere under /api/: a 4xx in JSON naming the field, never a 500.

Runs on SQLite and PostgreSQL (DATABASE_URL): PostgreSQL refuses NUL characters that SQLite stores."""
from __future__ import annotations

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, QALabel
from tests.work.builders import make_unit
from tests.work.conftest import new_assignment
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def put_draft(api, token: str, body: str):
    return api.generic("PUT", f"/api/work/{token}/draft", body, content_type="application/json")


def post_submit(api, token: str, labels) -> object:
    """As the browser sends it: JSON with \\u escapes (a lone surrogate travels as \\ud800)."""
    body = json.dumps({"labels": labels, "time_on_task_ms": 1000})
    return api.generic("POST", f"/api/work/{token}/submit", body, content_type="application/json")


def fields_of(response) -> list[str]:
    return [e["field"] for e in response.json().get("errors", [])]


def nested(depth: int) -> str:
    return '{"draft": ' + "[" * depth + "]" * depth + "}"


def test_a_deeply_nested_draft_is_refused_before_and_after_the_token(api):
    unit = make_unit(n_qas=1)
    _, token = new_assignment(unit, "w")
    stranger = put_draft(api, "not-a-token", nested(100_000))
    assert stranger.status_code == 403 and stranger["Content-Type"] == "application/json"
    deep = put_draft(api, token, nested(100_000))  # beyond Python's parser: a 400, not a RecursionError
    assert deep.status_code == 400 and "nested too deeply" in deep.json()["detail"]
    capped = put_draft(api, token, nested(50))  # parseable, but deeper than a draft may be
    assert capped.status_code == 400 and fields_of(capped) == ["draft"]
    assert put_draft(api, token, json.dumps({"draft": {"spans": [{"span_id": 1}]}})).status_code == 200


def test_an_oversized_body_gets_a_json_413_with_a_message(api, settings):
    unit = make_unit(n_qas=1)
    _, token = new_assignment(unit, "w")
    big = json.dumps({"draft": {"note": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}})
    r = put_draft(api, token, big)
    assert r.status_code == 413 and r["Content-Type"] == "application/json" and "too large" in r.json()["detail"]
    form = Client().post("/api/auth/token/", "a=" + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10),
                         content_type="application/x-www-form-urlencoded")
    assert form.status_code == 413 and "too large" in form.json()["detail"]
    # over the field-count limit: Django's TooManyFieldsSent, answered in JSON too
    many = Client().post("/api/auth/token/", "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)),
                         content_type="application/x-www-form-urlencoded")
    assert many.status_code in (400, 413) and many["Content-Type"] == "application/json"
    assert "detail" in many.json()


def test_unknown_api_urls_answer_json(api):
    r = api.get("/api/no-such-thing/")
    assert r.status_code == 404 and r.json() == {"detail": "Not found."}


@pytest.mark.parametrize("bad", [[1], {"id": 1}, [], {}, "1", 1.0, True])
def test_qasem_ids_that_are_lists_objects_or_not_ints_name_the_field(api, bad):
    unit = make_unit(n_qas=2)
    a, token = new_assignment(unit, "w")
    payload = api.get(f"/api/work/{token}/unit").json()
    for key, id_key, index in (("spans", "span_id", 0), ("qas", "qa_id", 1), ("pairwise", "aspect", 0)):
        labels = qasem_labels(payload)
        labels[key][index][id_key] = bad
        r = post_submit(api, token, labels)
        assert r.status_code == 400, (key, bad, r.content)
        assert f"labels.{key}[{index}].{id_key}" in fields_of(r)
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.ASSIGNED and not QALabel.objects.exists()


def factscore_assignment(api, worker: str) -> tuple[str, dict]:
    """A FActScore unit's assignment token, and a valid new fact edited from one of its facts."""
    unit = make_unit("FS", protocol=["fact_labeling"], with_facts=True, n_responses=1)
    _, token = new_assignment(unit, worker)
    resp = api.get(f"/api/work/{token}/unit").json()["responses"][0]
    f = [x["id"] for x in resp["facts"]]
    return token, {"text": "Anna visited.", "sentence_index": 0, "response_id": resp["id"], "edited_from": [f[1]],
                   "label": "S"}


def factscore_id_cases(bad, good_new: dict) -> list[tuple[list[dict], str]]:
    """Fact submissions with `bad` in each id field, and the field path the error must name."""
    return [([{"fact_id": bad, "label": "S"}], "labels.facts[0].fact_id"),
            ([{**good_new, "response_id": bad}], "labels.facts[0].response_id"),
            ([{**good_new, "edited_from": [bad]}], "labels.facts[0].edited_from")]


@pytest.mark.parametrize("bad", [[1], {"id": 1}, [[1]], [{"a": 1}], "x", 1.0, True])
def test_factscore_ids_that_are_lists_or_objects_name_the_field(api, bad):
    token, good_new = factscore_assignment(api, "w")
    cases = [*factscore_id_cases(bad, good_new),
             ([{**good_new, "edited_from": {"ids": bad}}], "labels.facts[0].edited_from")]
    for facts, field in cases:
        r = post_submit(api, token, {"facts": facts})
        assert r.status_code == 400, (field, bad, r.content)
        assert any(x.startswith(field) for x in fields_of(r)), (field, r.json())


@pytest.mark.parametrize("text", ["a\x00b", "lone \ud800 surrogate"])
def test_unstorable_text_in_a_note_a_fact_or_a_draft_is_a_located_400(api, text):
    unit = make_unit(n_qas=2)
    a, token = new_assignment(unit, "w")
    labels = qasem_labels(api.get(f"/api/work/{token}/unit").json())
    labels["qas"][1]["note"] = text
    r = post_submit(api, token, labels)
    assert r.status_code == 400 and "labels.qas[1].note" in fields_of(r), r.content
    labels["qas"][1]["note"] = ""
    labels["extra"] = {"anything": text}  # stored with the submission as sent: refused too
    r = post_submit(api, token, labels)
    assert r.status_code == 400 and fields_of(r) == ["labels.extra.anything"]
    d = put_draft(api, token, json.dumps({"draft": {"qas": [{"note": text}]}}))
    assert d.status_code == 400 and fields_of(d) == ["draft.qas[0].note"]
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.ASSIGNED

    fs = make_unit("FS", protocol=["fact_labeling"], with_facts=True, n_responses=1)
    _, fs_token = new_assignment(fs, "w2")
    resp = api.get(f"/api/work/{fs_token}/unit").json()["responses"][0]
    new_fact = {"text": text, "sentence_index": 0, "response_id": resp["id"], "edited_from": [], "label": "S"}
    r = post_submit(api, fs_token, {"facts": [{"fact_id": x["id"], "label": "S"} for x in resp["facts"]] + [new_fact]})
    assert r.status_code == 400 and any(x.endswith(".text") for x in fields_of(r)), r.content


def test_an_absurd_time_on_task_is_a_located_400(api):
    unit = make_unit(n_qas=1)
    _, token = new_assignment(unit, "w")
    labels = qasem_labels(api.get(f"/api/work/{token}/unit").json())
    r = api.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": 10**30}, format="json")
    assert r.status_code == 400 and fields_of(r) == ["time_on_task_ms"]


# integers past 64 bits: SQLite's driver raises OverflowError for them (PostgreSQL compares them as numeric);
# the ORM answers such a lookup with no row, and so must SQL the ORM compiled once (annotation_tasks.compiled_sql)
HUGE = [10**23, -(10**23), 2**63, -(2**63) - 1]


@pytest.mark.parametrize("huge", HUGE)
def test_a_project_id_past_64_bits_finds_no_project(huge):
    from django.contrib.auth import get_user_model

    from annotation_tasks.models import ProjectMembership

    unit = make_unit("H", wanted=1, n_qas=1)
    user = get_user_model().objects.create_user("ann", password="pw-123456")
    ProjectMembership.objects.create(project=unit.project, user=user, role="annotator")
    client = APIClient()
    client.force_login(user)
    r = client.post("/api/work/next", {"project": huge}, format="json")
    assert r.status_code in (400, 403, 404) and r["Content-Type"] == "application/json", r.content
    assert not Assignment.objects.exists()
    assert client.post("/api/work/next", {"project": unit.project_id}, format="json").status_code == 200


@pytest.mark.parametrize("huge", HUGE)
def test_ids_past_64_bits_in_a_submit_or_a_draft_are_located_400s(api, huge):
    unit = make_unit(n_qas=2)
    a, token = new_assignment(unit, "w")
    payload = api.get(f"/api/work/{token}/unit").json()
    for key, id_key, index in (("spans", "span_id", 0), ("qas", "qa_id", 1)):
        labels = qasem_labels(payload)
        labels[key][index][id_key] = huge
        r = post_submit(api, token, labels)
        assert r.status_code == 400 and f"labels.{key}[{index}].{id_key}" in fields_of(r), (key, r.content)
    d = put_draft(api, token, json.dumps({"draft": {"spans": [{"span_id": huge}]}}))
    assert d.status_code in (200, 400), d.content  # a draft is kept as sent; it is checked when submitted
    assert Assignment.objects.get(pk=a.pk).status == Assignment.Status.ASSIGNED and not QALabel.objects.exists()

    fs_token, good_new = factscore_assignment(api, "w2")
    for facts, field in factscore_id_cases(huge, good_new):
        r = post_submit(api, fs_token, {"facts": facts})
        assert r.status_code == 400 and any(x.startswith(field) for x in fields_of(r)), (field, r.content)
