"""FActScore units show the knowledge passages retrieved for each fact, with the words matching the fact marked,
and record which passages each fact was shown with; without a knowledge source nothing changes."""
from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, AtomicFact, Passage, UnitResponse, Worker
from annotation_tasks.services import knowledge
from annotation_tasks.services.tokens import assignment_token
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _unit_answer(unit, worker: str = "w1") -> tuple[Assignment, dict]:
    w, _ = Worker.objects.get_or_create(provider="local", external_id=worker)
    a = Assignment.objects.create(unit=unit, worker=w)
    r = APIClient().get(f"/api/work/{assignment_token(a)}/unit")
    assert r.status_code == 200, r.content
    a.refresh_from_db()
    return a, r.json()


def _with_knowledge(tmp_path, unit) -> None:
    """A page for the unit's topic (its source id): one passage on Anna and Paris, one on Boris and Lyon."""
    path = tmp_path / "wiki.jsonl"
    docs = [{"title": unit.source.external_id,
             "text": "Anna visited Paris in spring and wrote about the city. " * 3
                     + "Boris visited Lyon for the food and the river. " * 3},
            {"title": "Elsewhere", "text": "Rome is a city in Italy. " * 4}]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    knowledge.import_knowledge(path, unit.project, passage_words=30)
    knowledge.retrieve_for_facts(unit.project, k=2)


def test_each_fact_carries_its_passages_best_first_with_matching_words_and_the_ids_are_recorded(tmp_path):
    unit = make_unit("Evidence", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)
    _with_knowledge(tmp_path, unit)
    a, payload = _unit_answer(unit)
    (response,) = payload["responses"]
    texts = {p["id"]: p for p in response["knowledge"]}
    assert len(texts) == len(response["knowledge"])  # each passage's text travels once
    assert set(texts) <= set(Passage.objects.filter(knowledge__project=unit.project).values_list("id", flat=True))
    for fact in response["facts"]:
        expected = knowledge.passages_for_fact(fact["id"])
        assert [p["id"] for p in fact["passages"]] == [p["id"] for p in expected]  # best first
        assert fact["passages"], fact["text"]
        fact_words = {w.strip(".").lower() for w in fact["text"].split()}
        for shown in fact["passages"]:
            text = texts[shown["id"]]["text"]
            marked = {text[s:e].lower() for s, e in shown["matches"]}
            assert marked and marked <= fact_words | {"visit", "visited"}, (fact["text"], marked)
        assert texts[fact["passages"][0]["id"]]["title"] == unit.source.external_id
    assert a.shown["passages"] == {str(f["id"]): [p["id"] for p in f["passages"]] for f in response["facts"]}
    anna = next(f for f in response["facts"] if f["text"].startswith("Anna"))
    assert "Anna" in texts[anna["passages"][0]["id"]]["text"]  # the fact's own passage ranks first
    assert "Rome" not in json.dumps(payload)  # only the topic's page is searched when it has one


def test_without_a_knowledge_source_facts_have_no_passages_and_nothing_is_recorded():
    unit = make_unit("No evidence", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)
    a, payload = _unit_answer(unit)
    (response,) = payload["responses"]
    assert response["knowledge"] == [] and all(f["passages"] == [] for f in response["facts"])
    assert "passages" not in a.shown


def test_a_unit_holding_a_slice_of_a_response_shows_and_records_only_its_facts_evidence(tmp_path):
    unit = make_unit("Sliced evidence", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)
    _with_knowledge(tmp_path, unit)
    response = unit.responses.get()
    first = list(AtomicFact.objects.filter(response=response, sentence_index=0).values_list("id", flat=True))
    UnitResponse.objects.filter(unit=unit).update(items={"part": 0, "parts": 2, "spans": [], "qas": [], "facts": first})
    a, payload = _unit_answer(unit)
    (shown,) = payload["responses"]
    assert [f["id"] for f in shown["facts"]] == first
    assert set(a.shown["passages"]) == {str(f) for f in first}
    named = {p["id"] for f in shown["facts"] for p in f["passages"]}
    assert {p["id"] for p in shown["knowledge"]} == named
