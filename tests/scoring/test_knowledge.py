"""Knowledge sources: import (located errors, all or nothing), BM25 retrieval per fact, passages for the panel,
and the scorers verifying facts against the retrieved passages."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import AtomicFact, ItemScore, KnowledgeSource, Passage, Project, RetrievedPassage
from annotation_tasks.scoring.retrieval import BM25Index, chunk_document, matched_offsets, retriever_name
from annotation_tasks.services import knowledge, scoring
from annotation_tasks.services.imports import import_factscore
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


def test_chunks_keep_sentences_whole_and_bounded():
    text = " ".join(f"Sentence {i} has five words." for i in range(10))
    parts = chunk_document(text, words=12)
    assert all(len(p.split()) <= 12 for p in parts)
    assert " ".join(parts) == text  # nothing lost, nothing repeated
    assert all(p.endswith(".") for p in parts)
    long = "word " * 30
    assert [len(p.split()) for p in chunk_document(long.strip(), words=12)] == [12, 12, 6]


def test_bm25_ranks_the_passage_sharing_rare_words_first():
    passages = ["Obiri won the gold medal in London.", "Muir studied veterinary medicine in Glasgow.",
                "The weather in London was mild."]
    index = BM25Index(passages)
    assert [i for i, _ in index.top("Muir studies medicine", 3)] == [1]  # only passages sharing a word come back
    assert index.top("London gold", 3)[0][0] == 0
    assert matched_offsets(passages[1], "Muir studies medicine") == [(0, 4), (5, 12), (24, 32)]
    assert retriever_name(3).endswith(":k3")


def _knowledge_file(tmp_path, documents) -> str:
    path = tmp_path / "wiki.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    return str(path)


@pytest.fixture
def factscore_project(tmp_path) -> tuple[Project, str, str]:
    """The first 12 lines of the ChatGPT FActScore file, and a knowledge file with one topic's page written from its own human facts
    (so retrieval has something true to find) and one unrelated page."""
    lines = shared_file("factscore_labeled", "ChatGPT.jsonl").read_text(encoding="utf-8").splitlines()[:12]
    path = tmp_path / "ChatGPT.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_factscore([path], "f")
    project = Project.objects.get(name="f")
    fact = AtomicFact.objects.filter(response__project=project, kind="human").order_by("id").first()
    topic = fact.response.metadata["topic"]
    facts = AtomicFact.objects.filter(response=fact.response, kind="human").values_list("text", flat=True)
    page = " ".join(t if t.endswith(".") else t + "." for t in facts)
    file = _knowledge_file(tmp_path, [{"title": topic, "text": page},
                                      {"title": "Unrelated", "text": "A lake in the mountains froze early."}])
    return project, topic, file


def test_import_retrieve_and_score_against_the_passages(factscore_project):
    project, topic, file = factscore_project
    out = StringIO()
    call_command("import_knowledge", file, "--project", "f", "--top-k", "3", "--topic-only", stdout=out)
    assert "knowledge source 'wiki' imported" in out.getvalue()
    source = KnowledgeSource.objects.get(project=project)
    topic_facts = AtomicFact.objects.filter(response__project=project, response__metadata__topic=topic)
    retrieved = RetrievedPassage.objects.filter(fact__response__project=project)
    assert set(retrieved.values_list("fact__response__metadata__topic", flat=True)) == {topic}
    assert set(retrieved.values_list("passage__title", flat=True)) == {topic}
    assert retrieved.values("fact").distinct().count() <= topic_facts.count()
    assert all(r <= 2 for r in retrieved.values_list("rank", flat=True))
    # The panel's passages: best first, with offsets that really cover words of the fact.
    fact = retrieved.order_by("fact_id").first().fact
    panel = knowledge.passages_for_fact(fact)
    assert [p["rank"] for p in panel] == sorted(p["rank"] for p in panel)
    fact_words = {w.lower().strip(".,") for w in fact.text.split()}
    for p in panel:
        assert any(p["text"][a:b].lower() in fact_words for a, b in p["matches"])
    # Scoring: the topic's facts are checked against exactly their retrieved passages; the others have no reference.
    target = scoring.fact_targets(project, [fact.pk])[0]
    assert list(target.reference.passages) == [p["text"] for p in panel]
    result = scoring.score_items(project, scoring.get_scorer("overlap"))
    scored = set(ItemScore.objects.filter(scorer="overlap").values_list("fact_id", flat=True))
    assert scored == set(retrieved.values_list("fact_id", flat=True))
    assert result["no_reference"] == AtomicFact.objects.filter(response__project=project).count() - len(scored)
    assert source.passages.count() == Passage.objects.count()
    # Importing the same file again changes nothing.
    again = StringIO()
    call_command("import_knowledge", file, "--project", "f", "--no-retrieve", stdout=again)
    assert "already present" in again.getvalue() and KnowledgeSource.objects.count() == 1


def test_without_topic_only_unmatched_topics_search_the_whole_corpus(factscore_project):
    project, topic, file = factscore_project
    knowledge.import_knowledge(file, project)
    counts = knowledge.retrieve_for_facts(project, k=2)
    assert counts["topics_matched"] == 1 and counts["topics_unmatched"] > 0
    other = RetrievedPassage.objects.exclude(fact__response__metadata__topic=topic)
    assert other.exists()  # some facts of other people share words with the corpus


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"title": "A", "text": "x"}', '{"title": "B"}'], "line 2, field text: missing field"),
        (['{"title": "", "text": "x"}'], "line 1, field title: empty title"),
        (['{"title": "A", "text": 3}'], "line 1, field text: expected string, got integer"),
        (['{"title": "A", "text": "x"}', "not json"], "line 2, field \\(json\\): invalid JSON"),
    ],
)
def test_bad_knowledge_files_write_nothing(tmp_path, lines, message):
    Project.objects.create(name="k")
    path = tmp_path / "wiki.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError, match=f"nothing imported: wiki.jsonl, {message}"):
        call_command("import_knowledge", str(path), "--project", "k", stdout=StringIO())
    assert not KnowledgeSource.objects.exists() and not Passage.objects.exists()


def test_unknown_project_and_bad_arguments(tmp_path):
    path = _knowledge_file(tmp_path, [{"title": "A", "text": "x"}])
    with pytest.raises(CommandError, match="no project named 'nope'"):
        call_command("import_knowledge", path, "--project", "nope", stdout=StringIO())
    Project.objects.create(name="k")
    with pytest.raises(CommandError, match="--passage-words must be between"):
        call_command("import_knowledge", path, "--project", "k", "--passage-words", "3", stdout=StringIO())
    with pytest.raises(CommandError, match="--top-k must be between"):
        call_command("import_knowledge", path, "--project", "k", "--top-k", "0", stdout=StringIO())
