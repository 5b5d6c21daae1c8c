"""Researchers read text as people wrote it too: the review, adjudication and validation payloads of a tokenized
import carry the shown text (protocols/display.py, the element's detokenization) with every stored token at its
offsets in it, so the screens highlight the right words without a second detokenizer."""
from __future__ import annotations

import re

import pytest

from annotation_tasks.models import QA, Assignment, Project, Response
from annotation_tasks.services.imports import import_qasem_release
from tests.importers.helpers import release_line, write_jsonl
from tests.review.conftest import client_for, member

pytestmark = pytest.mark.django_db

SUMMARY = [["Riverton", "'s", "mayor", "paid", "$", "4", "million", "."], ["He", "was", "n't", "there", "in", "March", "."]]
SOURCE = "Riverton 's mayor said it cost $ 4 million in March .".split()
TOKEN_SPACES = re.compile(r" 's| n't| \.|\$ | ,")  # what a space-joined tokenized text shows


def import_tokenized(folder) -> Project:
    """A QASem release unit stored as tokens (the release's form): two QAs and two spans, votes that disagree."""
    line = release_line()
    line["source"], line["summary"] = SOURCE, SUMMARY
    line["qas"] = [
        {"qa_id": 0, "sent_id": 0, "predicate_idx": 3, "predicate_pos": "VERB", "predicate": "paid",
         "question": "Who paid something ?", "answer_idx": "0-3", "answer": "Riverton 's mayor", "annotations": [0, 0, 1]},
        {"qa_id": 1, "sent_id": 0, "predicate_idx": 3, "predicate_pos": "VERB", "predicate": "paid",
         "question": "What did someone pay ?", "answer_idx": "4-7", "answer": "$ 4 million", "annotations": [1, 1, 0]},
    ]
    line["spans"] = [{"id": 0, "start": 0, "end": 3, "qaIds": [0], "annotations": [1, 0, 1]},
                     {"id": 1, "start": 4, "end": 7, "qaIds": [1], "annotations": [0, 1, 0]}]
    import_qasem_release(write_jsonl(folder / "dev.jsonl", [line]), "tokenized")
    return Project.objects.get(name="tokenized")


@pytest.fixture
def release(tmp_path, people):
    project = import_tokenized(tmp_path)
    member(project, people["alice"])
    return project, client_for(people["alice"])


def _holds(shown: dict, response: Response) -> None:
    """The shown text has no token spaces, and each stored token sits at its offsets in it, in order."""
    assert not TOKEN_SPACES.search(shown["text"]), shown["text"]
    assert [t[0] for t in shown["tokens"]] == [t[0] for t in response.tokens]
    assert all(shown["text"][a:b] == w for w, a, b in shown["tokens"])


def _slice(shown: dict, start: int, end: int) -> str:
    return shown["text"][shown["tokens"][start][1]: shown["tokens"][end - 1][2]]


def test_the_review_payload_shows_the_text_as_written_with_offsets(release) -> None:
    project, client = release
    response = Response.objects.get(project=project)
    assignment = Assignment.objects.filter(unit__project=project).order_by("id").first()
    body = client.get(f"/api/assignments/{assignment.pk}/review/").json()
    (served,) = body["payload"]["responses"]
    assert served["text"] == "Riverton's mayor paid $4 million. He wasn't there in March."
    _holds(served, response)
    assert body["payload"]["source"]["text"] == "Riverton's mayor said it cost $4 million in March."
    items = [i for i in body["items"] if i["level"] in ("qa", "span")]
    assert {i["level"] for i in items} == {"qa", "span"}
    for item in items:
        start, end = (item["start"], item["end"]) if item["level"] == "span" else (item["answer_start"], item["answer_end"])
        shown = item["text"] if item["level"] == "span" else item["answer_text"]
        assert shown == _slice(served, start, end) and not TOKEN_SPACES.search(shown)
    assert sorted(i["question"] for i in items if i["level"] == "qa") == ["What did someone pay?", "Who paid something?"]


def test_the_adjudication_context_shows_the_text_as_written_with_offsets(release) -> None:
    project, client = release
    response = Response.objects.get(project=project)
    queue = client.get(f"/api/projects/{project.pk}/adjudication/queue/", {"include_agreed": "true"}).json()
    rows = [r for r in queue["results"] if r["level"] in ("qa", "span")]
    assert {r["level"] for r in rows} == {"qa", "span"}
    for row in rows:
        context = row["context"]
        _holds(context["display"], response)
        assert context["source_text"] == "Riverton's mayor said it cost $4 million in March."
        if row["level"] == "qa":
            assert context["answer_text"] == _slice(context["display"], context["answer_start"], context["answer_end"])
            assert not context["question"].endswith(" ?")
        else:
            assert context["text"] == _slice(context["display"], context["start"], context["end"])
            assert all(not q.endswith(" ?") for q in context["questions"])
    # the stored texts stay tokenized: exports and analysis read them, not the display
    assert Response.objects.get(project=project).text.startswith("Riverton 's")
    assert QA.objects.filter(response__project=project, answer="Riverton 's mayor").exists()


def test_the_validation_screen_reads_the_same_display(release) -> None:
    project, client = release
    response = Response.objects.get(project=project)
    body = client.get(f"/api/responses/{response.pk}/").json()
    assert body["text"] == response.text  # the stored field is unchanged: the display is beside it
    _holds(body["display"], response)
    qas = client.get("/api/qas/", {"project": project.pk}).json()["results"]
    assert sorted(q["question_shown"] for q in qas) == ["What did someone pay?", "Who paid something?"]
    assert sorted(q["question"] for q in qas) == ["What did someone pay ?", "Who paid something ?"]
