"""import_facts: atomic facts made elsewhere onto existing responses; located errors, all or nothing, idempotent."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.models import AtomicFact, Project, Response, Source
from annotation_tasks.models.content import Origin
from annotation_tasks.services.imports import import_facts
from tests.importers.helpers import row_counts, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def project() -> Project:
    """Two responses of one source (systems a and b), two sentences each; parser facts on response a."""
    project = Project.objects.create(name="p")
    source = Source.objects.create(project=project, external_id="doc-7", text="Ada wrote. Ada died.")
    sentences = [{"start": 0, "end": 3, "text": "Ada wrote."}, {"start": 3, "end": 6, "text": "She died."}]
    a = Response.objects.create(project=project, source=source, external_id="a:doc-7", system="a",
                                text="Ada wrote. She died.", sentences=sentences)
    Response.objects.create(project=project, source=source, external_id="b:doc-7", system="b",
                            text="Ada wrote. She died.", sentences=sentences)
    for s_index, text in ((0, "Ada wrote."), (1, "She died.")):
        AtomicFact.objects.create(response=a, sentence_index=s_index, text=text, origin=Origin.PARSER, kind="model")
    return project


def facts_of(external_id: str) -> list[tuple[int, str, str, str]]:
    return list(
        AtomicFact.objects.filter(response__external_id=external_id)
        .order_by("sentence_index", "order")
        .values_list("sentence_index", "text", "origin", "kind")
    )


def test_facts_replace_the_parsers_by_response_id_or_by_source_and_system(project: Project, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "facts.jsonl", [
        {"response_id": "a:doc-7", "sentence_index": 1, "facts": [" Ada died. ", "Ada is dead."]},
        {"source_id": "doc-7", "system": "b", "sentence_index": 0, "facts": ["Ada wrote."], "kind": "human"},
    ])
    result = import_facts(path, "p")
    assert result.created["atomic_facts"] == 3 and result.created["replaced parser facts"] == 1
    assert facts_of("a:doc-7") == [
        (0, "Ada wrote.", Origin.PARSER, "model"),  # the other sentence keeps the parser's fact
        (1, "Ada died.", Origin.IMPORTED, "model"),
        (1, "Ada is dead.", Origin.IMPORTED, "model"),
    ]
    assert facts_of("b:doc-7") == [(0, "Ada wrote.", Origin.IMPORTED, "human")]
    before = row_counts()
    again = import_facts(path, "p")  # the same facts again: nothing to do
    assert again.skipped == 2 and not again.created and row_counts() == before
    assert "2 records, 0 imported, 2 already present" in again.summary()


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        ([{"sentence_index": 0, "facts": ["x."]}], "line 1, field response_id: missing field"),
        ([{"response_id": "a:doc-7", "source_id": "doc-7", "sentence_index": 0, "facts": ["x."]}],
         "line 1, field source_id: give response_id, or source_id with system, not both"),
        ([{"source_id": "doc-7", "sentence_index": 0, "facts": ["x."]}], "line 1, field system: missing field"),
        ([{"response_id": "a:doc-7", "sentence_index": -1, "facts": ["x."]}], "line 1, field sentence_index: must be 0"),
        ([{"response_id": "a:doc-7", "sentence_index": "0", "facts": ["x."]}],
         "line 1, field sentence_index: expected integer, got string"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x.", " "]}], "line 1, field facts[1]: empty fact"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": []}], "line 1, field facts: empty list"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."], "kind": "gold"}],
         "line 1, field kind: unknown kind 'gold'"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."], "score": 1}],
         "line 1, field score: unexpected field"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."]}, "{oops"], "line 2, field (json): invalid JSON"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."]},
          {"response_id": "a:doc-7", "sentence_index": 0, "facts": ["y."]}],
         "line 2, field sentence_index: facts for this response and sentence are already on line 1"),
        # checked against the project, before anything is written
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."]},
          {"response_id": "c:doc-7", "sentence_index": 0, "facts": ["x."]}],
         "line 2, field response_id: no response 'c:doc-7' in project 'p'"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."]},
          {"source_id": "doc-8", "system": "a", "sentence_index": 0, "facts": ["x."]}],
         "line 2, field source_id: no response of system 'a' for source 'doc-8'"),
        ([{"response_id": "a:doc-7", "sentence_index": 0, "facts": ["x."]},
          {"response_id": "b:doc-7", "sentence_index": 2, "facts": ["x."]}],
         "line 2, field sentence_index: response 'b:doc-7' has 2 sentences (0 to 1)"),
    ],
)
def test_bad_records_name_file_line_and_field_and_nothing_is_written(project: Project, tmp_path: Path, rows, where) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    before = row_counts()
    with pytest.raises(ImportFormatError) as info:
        import_facts(path, "p")
    assert str(info.value).startswith("bad.jsonl, ") and where in str(info.value)
    assert row_counts() == before
    assert facts_of("a:doc-7")[0] == (0, "Ada wrote.", Origin.PARSER, "model")


def test_facts_from_elsewhere_are_never_overwritten(project: Project, tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "one.jsonl", [{"response_id": "b:doc-7", "sentence_index": 0, "facts": ["A."]}])
    import_facts(first, "p")
    other = write_jsonl(tmp_path / "two.jsonl", [
        {"response_id": "a:doc-7", "sentence_index": 0, "facts": ["Ada wrote books."]},
        {"response_id": "b:doc-7", "sentence_index": 0, "facts": ["B."]},
    ])
    before = row_counts()
    with pytest.raises(ImportFormatError, match=r"two\.jsonl, line 2, field sentence_index: sentence 0 of 'b:doc-7' "
                                               r"already has 1 facts"):
        import_facts(other, "p")
    assert row_counts() == before and facts_of("a:doc-7")[0][1] == "Ada wrote."  # line 1 was not written either


def test_command_prints_the_summary_and_refuses_an_unknown_project(project: Project, tmp_path: Path, capsys) -> None:
    path = write_jsonl(tmp_path / "f.jsonl", [{"response_id": "b:doc-7", "sentence_index": 1, "facts": ["Ada died."]}])
    call_command("import_facts", str(path), "--project", "p")
    assert "f.jsonl: 1 records, 1 imported, 0 already present; created 1 atomic_facts" in capsys.readouterr().out
    with pytest.raises(CommandError, match="nothing imported: --project: no project named 'q'"):
        call_command("import_facts", str(path), "--project", "q")
