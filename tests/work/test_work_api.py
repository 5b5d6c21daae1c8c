"""The element's API: unit payload, drafts, submissions (docs/annotator-api.md)."""
from __future__ import annotations

import json

import pytest
from django.core import signing

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    FactLabel,
    PairwisePreference,
    QALabel,
    SpanLabel,
    Unit,
)
from annotation_tasks.services.tokens import ASSIGNMENT_SALT, assignment_token, invite_token
from tests.work.builders import GOLD_EXPLANATION, SECRET_META, SECRET_SYSTEM, make_unit
from tests.work.conftest import new_assignment
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db


def get_unit(client, token):
    return client.get(f"/api/work/{token}/unit")


def submit(client, token, labels, ms=1000):
    return client.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": ms}, format="json")


def test_unit_payload_follows_the_contract(client_api, assignment):
    a, token = assignment
    r = get_unit(client_api, token)
    assert r.status_code == 200
    data = r.json()
    assert data["assignment"] == {"id": a.pk, "status": "assigned", "mode": "qasem", "preview": False}
    assert data["project"]["protocol"] == ["span_coverage", "qa_support", "pairwise"]
    assert [x["label"] for x in data["responses"]] == ["Response A", "Response B"]
    resp = data["responses"][0]
    assert resp["tokens"][0] == ["Anna", 0, 4]
    # a tokenized text is shown detokenized ("Lima ." -> "Lima."): a sentence's text is its tokens' shown span
    assert resp["sentences"][0] == {"start": 0, "end": 4, "text": resp["text"][: resp["tokens"][3][2]]}
    assert resp["text"].startswith("Anna visited Lima. ")
    assert len(resp["qas"]) == 2 and len(resp["spans"]) == 2
    assert resp["spans"][0]["qa_ids"] == [resp["qas"][0]["id"]]
    assert resp["predicates"][0]["verb_form"] == "visit"
    assert data["draft"] is None
    a.refresh_from_db()
    assert a.started_at is not None
    assert a.shown["qas"] == [q["id"] for x in data["responses"] for q in x["qas"]]
    assert a.shown["spans"] == [s["id"] for x in data["responses"] for s in x["spans"]]
    assert a.shown["responses"] == [x["id"] for x in data["responses"]]


def test_payload_leaks_no_gold_system_metadata_or_other_workers_work(client_api, unit):
    other, other_token = new_assignment(unit, "other")
    payload = get_unit(client_api, other_token).json()
    labels = qasem_labels(payload)
    labels["qas"][0]["note"] = "other-worker-private-note"
    assert submit(client_api, other_token, labels).status_code == 200
    fs_unit = make_unit("FS", protocol=["fact_labeling"], with_facts=True, n_responses=1)
    fs_other, fs_other_token = new_assignment(fs_unit, "other")
    fs_payload = get_unit(client_api, fs_other_token).json()
    facts = [{"fact_id": f["id"], "label": "S"} for f in fs_payload["responses"][0]["facts"][1:]]
    first = fs_payload["responses"][0]["facts"][0]
    facts.append({"text": "other-worker-human-fact", "sentence_index": 0,
                  "response_id": fs_payload["responses"][0]["id"], "edited_from": [first["id"]], "label": "NS"})
    assert submit(client_api, fs_other_token, {"facts": facts}).status_code == 200

    for u in (unit, fs_unit):
        _, token = new_assignment(u, "me")
        raw = json.dumps(get_unit(client_api, token).json())
        for secret in (SECRET_SYSTEM, SECRET_META, GOLD_EXPLANATION, "other-worker-private-note",
                       "other-worker-human-fact", "is_relevant", "gold", "system", "metadata", "covered",
                       "supported"):
            assert secret not in raw, secret


def test_invalid_qas_never_reach_crowd_units(client_api, assignment):
    a, token = assignment
    qa = QA.objects.filter(response__units=a.unit).order_by("id").first()
    qa.validity = QA.Validity.INVALID
    qa.save()
    data = get_unit(client_api, token).json()
    qa_ids = [q["id"] for r in data["responses"] for q in r["qas"]]
    span_qa_ids = [i for r in data["responses"] for s in r["spans"] for i in s["qa_ids"]]
    assert qa.pk not in qa_ids and qa.pk not in span_qa_ids
    assert len(qa_ids) == 3
    # its span had no other QA, so the span is gone too
    span = AnswerSpan.objects.get(qas=qa)
    assert span.pk not in [s["id"] for r in data["responses"] for s in r["spans"]]


def test_token_of_a_cannot_read_or_write_b(client_api, unit):
    a, token_a = new_assignment(unit, "wa")
    b, _ = new_assignment(unit, "wb")
    forged = signing.dumps({"a": b.pk, "w": a.worker_id}, salt=ASSIGNMENT_SALT, compress=True)
    for token in (forged, token_a[:-2] + ("xy" if not token_a.endswith("xy") else "zz"), invite_token(unit.project),
                  signing.dumps({"a": b.pk, "w": b.worker_id}, salt="other-salt")):
        assert get_unit(client_api, token).status_code == 403
        assert client_api.put(f"/api/work/{token}/draft", {"draft": {"x": 1}}, format="json").status_code == 403
        assert submit(client_api, token, {"spans": []}).status_code == 403
    b.refresh_from_db()
    assert b.draft is None and b.status == "assigned"
    # A's own token reads A only
    assert get_unit(client_api, token_a).json()["assignment"]["id"] == a.pk


def test_draft_round_trip_and_conflict_after_submit(client_api, assignment):
    a, token = assignment
    payload = get_unit(client_api, token).json()
    draft = {"step": 2, "spans": {"1": True}, "nested": [1, 2, {"x": None}]}
    r = client_api.put(f"/api/work/{token}/draft", {"draft": draft}, format="json")
    assert r.status_code == 200 and r.json()["saved_at"]
    again = get_unit(client_api, token).json()
    assert again["draft"] == draft and again["draft_saved_at"]
    assert submit(client_api, token, qasem_labels(payload)).status_code == 200
    assert client_api.put(f"/api/work/{token}/draft", {"draft": draft}, format="json").status_code == 409


def test_submit_writes_exactly_the_labels_and_is_idempotent(client_api, assignment):
    a, token = assignment
    payload = get_unit(client_api, token).json()
    r0, r1 = payload["responses"]
    uncovered = {r0["spans"][1]["id"]}
    unsupported = {r1["qas"][0]["id"]}
    labels = qasem_labels(payload, uncovered=uncovered, unsupported=unsupported, pairwise=4)
    r = submit(client_api, token, labels, ms=4321)
    assert r.status_code == 200, r.json()
    assert r.json() == {"status": "submitted", "duplicate": False}
    spans = dict(SpanLabel.objects.filter(assignment=a).values_list("span_id", "covered"))
    assert spans == {s["span_id"]: s["covered"] for s in labels["spans"]}
    qas = {q.qa_id: (q.supported, q.derived_from_span) for q in QALabel.objects.filter(assignment=a)}
    assert qas == {q["qa_id"]: (q["supported"], q["derived_from_span"]) for q in labels["qas"]}
    assert qas[r0["spans"][1]["qa_ids"][0]] == (False, True)
    pref = PairwisePreference.objects.get(assignment=a)
    assert (pref.aspect, pref.score, pref.response_a_id, pref.response_b_id) == ("consistency", 4, r0["id"], r1["id"])
    a.refresh_from_db()
    assert a.status == "submitted" and a.time_on_task_ms == 4321 and a.submitted_at
    assert a.submission["labels"]["spans"] == labels["spans"]

    r = submit(client_api, token, labels)
    assert r.status_code == 200 and r.json() == {"status": "submitted", "duplicate": True}
    assert SpanLabel.objects.filter(assignment=a).count() == 4
    assert QALabel.objects.filter(assignment=a).count() == 4
    assert PairwisePreference.objects.filter(assignment=a).count() == 1


def test_incomplete_or_inconsistent_submissions_write_nothing(client_api, assignment):
    a, token = assignment
    payload = get_unit(client_api, token).json()
    full = qasem_labels(payload)

    missing_qa = {**full, "qas": full["qas"][1:]}
    r = submit(client_api, token, missing_qa)
    assert r.status_code == 400
    assert any(e["field"] == "labels.qas" for e in r.json()["errors"])

    uncovered_but_supported = json.loads(json.dumps(full))
    uncovered_but_supported["spans"][0]["covered"] = False
    r = submit(client_api, token, uncovered_but_supported)
    assert r.status_code == 400
    assert r.json()["errors"][0]["field"] == "labels.qas[0].supported"

    for bad in ({**full, "pairwise": []}, {**full, "pairwise": [{"aspect": "consistency", "score": 6}]},
                {**full, "spans": full["spans"] + [{"span_id": 999999, "covered": True}]},
                {**full, "qas": [{**full["qas"][0], "supported": "yes"}] + full["qas"][1:]}):
        assert submit(client_api, token, bad).status_code == 400
    assert not SpanLabel.objects.filter(assignment=a).exists()
    assert not QALabel.objects.filter(assignment=a).exists()
    a.refresh_from_db()
    assert a.status == "assigned"


def test_rag_units_ask_for_faithfulness_and_relevance(client_api):
    unit = make_unit("RAG", passages=["Anna visited Paris."])
    _, token = new_assignment(unit, "w")
    payload = get_unit(client_api, token).json()
    labels = qasem_labels(payload, pairwise=None)
    labels["pairwise"] = [{"aspect": "consistency", "score": 3}]
    assert submit(client_api, token, labels).status_code == 400
    labels["pairwise"] = [{"aspect": "faithfulness", "score": 1}, {"aspect": "relevance", "score": 5}]
    assert submit(client_api, token, labels).status_code == 200
    assert set(PairwisePreference.objects.values_list("aspect", "score")) == {("faithfulness", 1), ("relevance", 5)}


def test_factscore_edit_split_merge_and_add(client_api):
    unit = make_unit("FS", protocol=["fact_labeling"], with_facts=True, n_responses=1)
    a, token = new_assignment(unit, "w")
    payload = get_unit(client_api, token).json()
    assert payload["assignment"]["mode"] == "factscore"
    resp = payload["responses"][0]
    f = [x["id"] for x in resp["facts"]]  # sentence 0: f0, f1; sentence 1: f2, f3
    assert len(f) == 4 and resp["qas"] == [] and resp["spans"] == []
    rid = resp["id"]
    facts = [
        {"fact_id": f[0], "label": "S"},
        {"text": "Anna visited.", "sentence_index": 0, "response_id": rid, "edited_from": [f[1]], "label": "S"},
        {"text": "Paris is a city.", "sentence_index": 0, "response_id": rid, "edited_from": [f[1]], "label": "IR"},
        {"text": "Boris visited Lyon.", "sentence_index": 1, "response_id": rid, "edited_from": [f[2], f[3]],
         "label": "NS"},
        {"text": "A fact nobody split.", "sentence_index": 1, "response_id": rid, "edited_from": [], "label": "NS"},
    ]
    r = submit(client_api, token, {"facts": facts})
    assert r.status_code == 200, r.json()
    human = list(AtomicFact.objects.filter(created_by_assignment=a).order_by("order"))
    assert [h.text for h in human] == ["Anna visited.", "Paris is a city.", "Boris visited Lyon.", "A fact nobody split."]
    assert all(h.kind == "human" and h.origin == "human" for h in human)
    assert [sorted(h.edited_from.values_list("id", flat=True)) for h in human] == [[f[1]], [f[1]], [f[2], f[3]], []]
    got = {fl.fact_id: fl.label for fl in FactLabel.objects.filter(assignment=a)}
    assert got == {f[0]: "S", human[0].pk: "S", human[1].pk: "IR", human[2].pk: "NS", human[3].pk: "NS"}
    assert not FactLabel.objects.filter(fact_id__in=f[1:]).exists()


def test_factscore_needs_a_label_per_listed_fact_and_allows_deletions(client_api):
    unit = make_unit("FS", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=1)
    a, token = new_assignment(unit, "w")
    resp = get_unit(client_api, token).json()["responses"][0]
    f0, f1 = (x["id"] for x in resp["facts"])
    r = submit(client_api, token, {"facts": [{"fact_id": f0, "label": "S"}, {"fact_id": f1, "label": None}]})
    assert r.status_code == 400 and r.json()["errors"][0]["field"] == "labels.facts[1].label"
    assert submit(client_api, token, {"facts": []}).status_code == 400
    assert not FactLabel.objects.exists()
    # f1 deleted by the annotator (a wrong decomposition): accepted, only f0 labeled
    assert submit(client_api, token, {"facts": [{"fact_id": f0, "label": "S"}]}).status_code == 200
    assert list(FactLabel.objects.values_list("fact_id", "label")) == [(f0, "S")]


def test_validation_units_set_qa_validity(client_api):
    from annotation_tasks.models import Batch
    from annotation_tasks.services.units import compose_validation_units

    unit = make_unit("V", n_responses=1)
    batch = Batch.objects.create(project=unit.project, name="validation")
    vunit = compose_validation_units(batch)[0]
    assert vunit.mode == "validation" and vunit.assignments_wanted == 1
    _, token = new_assignment(vunit, "expert")
    payload = get_unit(client_api, token).json()
    q0, q1 = (q["id"] for q in payload["responses"][0]["qas"])
    r = submit(client_api, token, {"validation": [{"qa_id": q0, "valid": True}, {"qa_id": q1, "valid": False}]})
    assert r.status_code == 200
    assert QA.objects.get(pk=q0).validity == "valid" and QA.objects.get(pk=q1).validity == "invalid"
    _, crowd_token = new_assignment(unit, "crowd")
    shown = [q["id"] for q in get_unit(client_api, crowd_token).json()["responses"][0]["qas"]]
    assert shown == [q0]


def test_unit_completes_when_enough_submissions(client_api):
    unit = make_unit("C", wanted=2)
    for ext in ("w1", "w2"):
        _, token = new_assignment(unit, ext)
        assert submit(client_api, token, qasem_labels(get_unit(client_api, token).json())).status_code == 200
    unit.refresh_from_db()
    assert unit.status == Unit.Status.COMPLETE


def test_preview_token_reads_but_never_writes(client_api, unit):
    from annotation_tasks.services.tokens import preview_token

    token = preview_token(unit)
    data = get_unit(client_api, token).json()
    assert data["assignment"]["preview"] is True and data["assignment"]["id"] is None
    assert data["responses"][0]["qas"]
    assert client_api.put(f"/api/work/{token}/draft", {"draft": {}}, format="json").status_code == 403
    assert submit(client_api, token, {}).status_code == 403
    assert not Assignment.objects.exists()


def test_expired_assignment_is_revived_while_the_unit_has_room(client_api, assignment):
    from datetime import timedelta

    from django.utils import timezone

    from annotation_tasks.services.queue import expire_abandoned

    a, token = assignment
    Assignment.objects.filter(pk=a.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert expire_abandoned() == 1
    assert get_unit(client_api, token).status_code == 200
    a.refresh_from_db()
    assert a.status == "assigned" and a.expires_at > timezone.now()
    # when the unit filled up meanwhile, the expired token is refused
    Assignment.objects.filter(pk=a.pk).update(status="expired")
    unit = a.unit
    for ext in ("x1", "x2", "x3"):
        new_assignment(unit, ext)
    assert get_unit(client_api, token).status_code == 403


def test_token_is_bound_to_the_assignment_token_helper(assignment):
    a, token = assignment
    assert token == assignment_token(a)


def test_saving_a_draft_keeps_a_working_annotator_from_expiring(client_api, assignment):
    from datetime import timedelta

    from django.utils import timezone

    a, token = assignment
    soon = timezone.now() + timedelta(seconds=5)
    Assignment.objects.filter(pk=a.pk).update(expires_at=soon)
    assert client_api.put(f"/api/work/{token}/draft", {"draft": {"x": 1}}, format="json").status_code == 200
    a.refresh_from_db()
    assert a.expires_at > soon + timedelta(minutes=30)
