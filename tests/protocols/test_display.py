"""Workers read text as people wrote it: tokenized imports detokenized in the payload, token offsets kept."""
from __future__ import annotations

import json

import pytest

from annotation_tasks.exporters.qasem_release import export_lines
from annotation_tasks.importers.tokenize import tokenize
from annotation_tasks.models import Batch, Project, Response, Source
from annotation_tasks.protocols import payload as unit_payload
from annotation_tasks.protocols.display import Display, detokenize, is_space_joined, question
from annotation_tasks.services.imports import import_qasem_release
from annotation_tasks.services.units import compose_units
from tests.conftest import shared_file
from tests.importers.helpers import release_line, write_jsonl


def _offsets_hold(text: str, tokens: list[str], offsets: list[tuple[int, int]]) -> bool:
    return len(tokens) == len(offsets) and all(text[a:b] == w for w, (a, b) in zip(tokens, offsets, strict=True))


@pytest.mark.parametrize(("tokens", "shown"), [
    ("Riverton 's office".split(), "Riverton's office"),
    ("it cost $ 4 million".split(), "it cost $4 million"),
    ("It ended in March .".split(), "It ended in March."),
    ("they are n't sure , he said".split(), "they aren't sure, he said"),
    ('the 24 - year - old said " no " ( really )'.split(), 'the 24-year-old said "no" (really)'),
    (["First", "line", ".", "\n", "Second", "."], "First line.\nSecond."),  # a whitespace token stays, bare
])
def test_tokens_are_shown_as_written_with_offsets_into_the_shown_text(tokens, shown):
    text, offsets = detokenize(tokens)
    assert text == shown
    assert _offsets_hold(text, tokens, offsets)


def test_only_space_joined_texts_are_detokenized():
    natural = "It cost $4 million, in March."
    assert not is_space_joined(natural, tokenize(natural))
    display = Display(natural, tokenize(natural))
    assert not display.changed and display.text == natural and display.span(0, 2, "kept") == "kept"
    tokens = "It cost $ 4 million .".split()
    assert is_space_joined(" ".join(tokens), tokens)
    assert question("Who said something ?") == "Who said something?" and question("Who said?") == "Who said?"


@pytest.mark.shared_data
def test_every_text_of_the_release_keeps_its_tokens_at_their_offsets():
    changed = 0
    with shared_file("qasem_consistency", "dev.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            for tokens in (row["source"], [t for s in row["summary"] for t in s]):
                text, offsets = detokenize(tokens)
                assert _offsets_hold(text, tokens, offsets)
                changed += text != " ".join(tokens)
    assert changed > 0


@pytest.mark.django_db
def test_a_release_unit_is_served_detokenized_and_the_export_stays_byte_identical(tmp_path):
    line = release_line()
    line["source"] = "Riverton 's mayor said it cost $ 4 million in March .".split()
    line["summary"] = [["A", "man", "died", "of", "measles", "."], ["He", "was", "n't", "old", "."]]
    path = write_jsonl(tmp_path / "dev.jsonl", [line])
    import_qasem_release(path, "p")
    project = Project.objects.get(name="p")
    response = Response.objects.get(project=project)
    stored = (response.text, list(response.tokens))
    (unit,) = compose_units(Batch.objects.create(project=project, name="b"))
    data, _ = unit_payload.build(unit, {})
    r = data["responses"][0]
    assert r["text"] == "A man died of measles. He wasn't old."
    assert data["source"]["text"] == "Riverton's mayor said it cost $4 million in March."
    assert all(r["text"][a:b] == w for w, a, b in r["tokens"])  # the element highlights tokens by these offsets
    assert [s["text"] for s in r["sentences"]] == ["A man died of measles.", "He wasn't old."]
    assert sorted(q["answer"] for q in r["qas"]) == ["A man", "measles"]
    for span in r["spans"]:
        assert span["text"] == r["text"][r["tokens"][span["start"]][1] : r["tokens"][span["end"] - 1][2]]
    response.refresh_from_db()
    assert (response.text, response.tokens) == stored and Source.objects.get(project=project).text.startswith("Riverton 's")
    assert [json.loads(x) for x in export_lines(project, include_majority=False)] == [line]
