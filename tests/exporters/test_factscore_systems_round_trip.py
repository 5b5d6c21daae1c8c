"""A FActScore export of a project with more than one system imports back (export then import is lossless).

The FActScore schema has no system: a released file is one system's, named by its stem or --system. The export
wrote one line per response with the same `topic` for every system and nothing naming the system, so importing
it was refused ("topic 'Ada' already on line 1") and the systems could not have come back anyway. Now the export
of a multi-system project gives each line its `system`, and the importer puts each line's response under it.
"""
from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.importers.base import ImportFormatError
from annotation_tasks.models import AtomicFact, FactLabel, Project, Response
from annotation_tasks.services.exports import export_lines
from annotation_tasks.services.imports import import_factscore
from tests.importers.helpers import factscore_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


def _line(topic: str, system: str, labels: tuple[str, str]) -> dict[str, Any]:
    """One generation of `system` about `topic`: its own output and facts, its human facts labelled `labels`."""
    return {
        "input": f"Question: Tell me a bio of {topic}.",
        "output": f"{topic} was a {system} mathematician. {topic} liked {system} tea.",
        "topic": topic,
        "cat": ["rare", "Europe"],
        "annotations": [
            {"text": f"{topic} was a {system} mathematician.", "is-relevant": True,
             "model-atomic-facts": [{"text": f"{topic} was a mathematician."}, {"text": f"{topic} was {system}."}],
             "human-atomic-facts": [{"text": f"{topic} was a mathematician.", "label": labels[0]},
                                    {"text": f"{topic} was {system}.", "label": labels[1]}]},
            {"text": f"{topic} liked {system} tea.", "is-relevant": False,
             "model-atomic-facts": [{"text": f"{topic} liked tea."}], "human-atomic-facts": None},
        ],
    }


def _two_system_project(tmp_path: Path) -> Project:
    """Systems A and B on the same topics (plus one topic of A's alone and an abstention of B's), labelled."""
    a = write_jsonl(tmp_path / "a.jsonl", [_line("Ada", "A", ("S", "NS")), _line("Bob", "A", ("S", "S")),
                                            _line("Cy", "A", ("IR", "NS"))])
    abstained = _line("Bob", "B", ("S", "S"))
    abstained["annotations"] = None
    b = write_jsonl(tmp_path / "b.jsonl", [_line("Ada", "B", ("NS", "IR")), abstained])
    import_factscore([a], "two", system="A")
    import_factscore([b], "two", system="B")
    return Project.objects.get(name="two")


def _content(project: Project) -> dict[str, Any]:
    """Per system: its responses (by topic) with their text, sentences, metadata, facts and the facts' labels."""
    out: dict[str, Any] = {}
    for r in Response.objects.filter(project=project).select_related("source").order_by("system", "external_id"):
        facts = [(f.kind, f.sentence_index, f.order, f.text,
                  sorted(FactLabel.objects.filter(fact=f).values_list("label", flat=True)))
                 for f in AtomicFact.objects.filter(response=r).order_by("kind", "sentence_index", "order")]
        out.setdefault(r.system, {})[r.source.external_id] = {
            "external_id": r.external_id, "text": r.text, "tokens": r.tokens, "sentences": r.sentences,
            "abstained": r.metadata["abstained"], "facts": facts,
        }
    return out


def test_a_two_system_export_imports_back_with_each_response_under_its_system(tmp_path):
    project = _two_system_project(tmp_path)
    before = _content(project)
    assert set(before) == {"A", "B"} and set(before["A"]) == {"Ada", "Bob", "Cy"} and set(before["B"]) == {"Ada", "Bob"}
    first = list(export_lines(project.name, "factscore"))
    assert [json.loads(line)["system"] for line in first] == ["A", "A", "A", "B", "B"]
    assert all(list(json.loads(line))[-1] == "system" for line in first)  # after the FActScore keys
    path = write_jsonl(tmp_path / "two.jsonl", first)

    results = import_factscore([path], "copy")  # the file's stem ("two") is not the system: the lines say it
    assert [(r.lines, r.skipped) for r in results] == [(5, 0)]
    copy = Project.objects.get(name="copy")
    assert _content(copy) == before
    assert FactLabel.objects.filter(fact__response__project=copy).count() == 8  # 3 x 2 of A, 2 of B
    assert list(export_lines("copy", "factscore")) == first  # byte for byte

    again = import_factscore([path], "copy")  # nothing twice
    assert [r.skipped for r in again] == [5] and _content(copy) == before


def test_the_cli_round_trip_of_a_two_system_project(tmp_path):
    _two_system_project(tmp_path)
    exported, again = tmp_path / "fs.jsonl", tmp_path / "again.jsonl"
    call_command("export", "--project", "two", "--format", "factscore", "-o", str(exported), stdout=io.StringIO())
    out = io.StringIO()
    call_command("import_factscore", str(exported), "--project", "rt-fs", stdout=out, stderr=io.StringIO())
    assert "5 imported" in out.getvalue()
    call_command("export", "--project", "rt-fs", "--format", "factscore", "-o", str(again), stdout=io.StringIO())
    assert again.read_bytes() == exported.read_bytes()


def test_a_single_system_export_is_unchanged(tmp_path):
    """One system: the export is the FActScore file as published (no `system` key), byte for byte."""
    lines = [_line("Ada", "A", ("S", "NS")), factscore_line("Bob")]
    path = write_jsonl(tmp_path / "GPT.jsonl", lines)
    import_factscore([path], "one")
    exported = list(export_lines("one", "factscore"))
    assert exported == [json.dumps(line) for line in lines]
    assert [r.system for r in Response.objects.filter(project__name="one")] == ["GPT", "GPT"]


def test_a_line_with_a_system_is_read_under_it_and_keeps_its_place(tmp_path):
    """A `system` key is taken over --system; where a file has it, the export writes it there again."""
    line = {"system": "X", **factscore_line("Ada")}
    path = write_jsonl(tmp_path / "f.jsonl", [line, factscore_line("Ada")])
    import_factscore([path], "p", system="Y")
    assert sorted(Response.objects.values_list("external_id", "system")) == [("X:Ada", "X"), ("Y:Ada", "Y")]
    assert list(export_lines("p", "factscore")) == [json.dumps(line), json.dumps({**factscore_line("Ada"), "system": "Y"})]
    assert "release_extra" not in Response.objects.get(system="X").metadata  # the system is not an unknown key


@pytest.mark.parametrize(("value", "words"), [(5, "expected string, got integer"), ("", "empty system name"),
                                               (" ", "empty system name"), (None, "expected string, got null"),
                                               ("s" * 201, "longer than 200 characters")],
                         ids=["number", "empty", "blank", "null", "too-long"])
def test_a_bad_system_is_a_located_error_and_nothing_is_written(tmp_path, value, words):
    good = write_jsonl(tmp_path / "good.jsonl", [factscore_line("Ada")])
    bad = write_jsonl(tmp_path / "bad.jsonl", [{**factscore_line("Ada"), "system": "A"},
                                               {**factscore_line("Bob"), "system": value}])
    with pytest.raises(ImportFormatError) as err:
        import_factscore([good, bad], "p")
    assert (err.value.file, err.value.line, err.value.field) == ("bad.jsonl", 2, "system")
    assert str(err.value).startswith("bad.jsonl, line 2, field system: ") and words in str(err.value)
    assert all(n == 0 for n in row_counts().values())
    with pytest.raises(CommandError, match=r"nothing imported: bad\.jsonl, line 2, field system: "):
        call_command("import_factscore", str(bad), "--project", "p", stdout=io.StringIO(), stderr=io.StringIO())
    assert all(n == 0 for n in row_counts().values())


def test_a_topic_comes_once_per_system(tmp_path):
    lines = [{**factscore_line("Ada"), "system": "A"}, {**factscore_line("Ada"), "system": "B"},
             {**factscore_line("Ada"), "system": "A"}]
    path = write_jsonl(tmp_path / "t.jsonl", lines)
    with pytest.raises(ImportFormatError, match=r"^t\.jsonl, line 3, field topic: topic 'Ada' of system 'A' already on line 1"):
        import_factscore([path], "p")
    assert all(n == 0 for n in row_counts().values())
    path = write_jsonl(tmp_path / "t.jsonl", lines[:2])
    assert [r.lines for r in import_factscore([path], "p")] == [2]
