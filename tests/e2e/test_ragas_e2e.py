"""Ragas units in real Chromium: a worker compares a WikiEval row's answers and contexts by keyboard and submits;
a FActScore worker sees each fact's knowledge passages with the matching words marked."""
from __future__ import annotations

import json

import pytest

from annotation_tasks.models import Batch, PairwisePreference, Project, RetrievedPassage
from annotation_tasks.services import knowledge
from annotation_tasks.services.imports import import_wikieval
from annotation_tasks.services.units import compose_units
from tests.e2e.helpers import new_token, open_unit, press, progress
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

ROW = {
    "question": "When did the Riverside bridge open?",
    "context_v1": ["The Riverside bridge opened in 2021 after three years of work."],
    "context_v2": ["The Riverside bridge opened in 2021 after three years of work.", "The river floods most springs."],
    "answer": "The Riverside bridge opened in 2021.",
    "ungrounded_answer": "The Riverside bridge opened in 1998.",
    "poor_answer": "Bridges cross rivers.",
}


def test_a_ragas_unit_labeled_by_keyboard_and_submitted(live_server, page, shot, tmp_path):
    path = tmp_path / "wikieval.jsonl"
    path.write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    import_wikieval(path, "E2E Ragas")
    (unit,) = compose_units(Batch.objects.create(project=Project.objects.get(name="E2E Ragas"), name="b"))
    system = {r.pk: r.system for r in unit.responses.all()}
    a, token = new_token(unit)

    open_unit(page, live_server.url, token)
    press(page, "Enter")
    assert "0 / 3 comparisons" in progress(page)
    assert ROW["question"] in page.get_by_test_id("ragas-question").inner_text()

    def current_sides() -> list[str]:
        return page.locator('[data-current="true"] [data-testid="ragas-side"] p').all_inner_texts()

    # faithfulness: the grounded answer against the one written without the context
    assert sorted(current_sides()) == sorted([ROW["answer"], ROW["ungrounded_answer"]])
    grounded_first = current_sides()[0] == ROW["answer"]
    shot(page, "ragas-faithfulness")
    press(page, "1" if grounded_first else "5")
    assert sorted(current_sides()) == sorted([ROW["answer"], ROW["poor_answer"]])  # answer relevance
    press(page, "2")
    contexts = ["\n\n".join(ROW["context_v1"]), "\n\n".join(ROW["context_v2"])]
    a.refresh_from_db()
    swapped = a.shown["sides"]["context_relevance"]  # sides are drawn per assignment (issue 23 item 10)
    assert current_sides() == (contexts[::-1] if swapped else contexts)  # context relevance, as drawn
    shot(page, "ragas-context")
    press(page, "3")
    assert "3 / 3 comparisons" in progress(page)
    press(page, "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    shot(page, "ragas-submitted")

    a.refresh_from_db()
    assert a.status == "submitted"
    got = {p.aspect: p for p in PairwisePreference.objects.filter(assignment=a)}
    assert set(got) == {"faithfulness", "answer_relevance", "context_relevance"}
    faith = got["faithfulness"]
    assert {system[faith.response_a_id], system[faith.response_b_id]} == {"answer", "ungrounded_answer"}
    assert system[faith.response_a_id if faith.score == 1 else faith.response_b_id] == "answer"  # the grounded won
    assert {system[got["answer_relevance"].response_a_id], system[got["answer_relevance"].response_b_id]} == {
        "answer", "poor_answer"}
    assert got["answer_relevance"].score == 2
    ctx = got["context_relevance"]
    assert (ctx.context_a, ctx.context_b, ctx.score, ctx.response_a_id) == ((1, 0) if swapped else (0, 1)) + (3, None)


def test_fact_labels_with_knowledge_passages_in_the_reference_panel(live_server, page, shot, tmp_path):
    unit = make_unit("E2E evidence", protocol=["fact_labeling"], with_facts=True, n_qas=2, n_responses=1)
    wiki = tmp_path / "wiki.jsonl"
    wiki.write_text(json.dumps({"title": unit.source.external_id,
                                "text": "Anna visited Paris in spring. " * 6 + "Boris visited Lyon for the food. " * 6})
                    + "\n", encoding="utf-8")
    knowledge.import_knowledge(wiki, unit.project, passage_words=30)
    knowledge.retrieve_for_facts(unit.project, k=2)
    a, token = new_token(unit)
    open_unit(page, live_server.url, token)
    press(page, "Enter")
    panel = page.get_by_test_id("knowledge-passage")
    panel.first.wait_for()
    marked = page.locator('[data-testid="knowledge-passage"] mark').all_inner_texts()
    assert "Anna visited" in marked or {"Anna", "visited"} <= set(marked), marked
    shot(page, "evidence")
    press(page, "s", "s", "n", "s")
    press(page, "Control+Enter")
    page.get_by_test_id("submitted-message").wait_for()
    a.refresh_from_db()
    assert a.status == "submitted"
    retrieved = set(RetrievedPassage.objects.filter(fact_id__in=a.shown["facts"]).values_list("fact_id", flat=True))
    assert retrieved and set(a.shown["passages"]) == {str(f) for f in retrieved}  # a fact no passage matches has none
