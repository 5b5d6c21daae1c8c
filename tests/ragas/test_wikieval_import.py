"""import_wikieval: rows in Ragas' WikiEval layout (a question, one or two contexts, several answers) as sources
with one response per answer; located errors that write nothing; importing twice changes nothing.

The rows are written here by hand in WikiEval's columns (no published data is copied).
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.models import Project, Response, Source
from annotation_tasks.services.imports import import_wikieval
from tests.importers.helpers import row_counts

pytestmark = pytest.mark.django_db


def wikieval_row(k: int = 0, **changes) -> dict:
    """One row as WikiEval has it: contexts are lists of passages, three answers."""
    row = {
        "question": f"When did the bridge number {k} open?",
        "context_v1": [f"The bridge number {k} opened in 2021 after three years of work."],
        "context_v2": [f"The bridge number {k} opened in 2021 after three years of work.",
                       "The river it crosses floods most springs."],
        "answer": f"Bridge {k} opened in 2021.",
        "ungrounded_answer": f"Bridge {k} opened in 1998.",
        "poor_answer": "Bridges cross rivers.",
        "source": f"https://en.wikipedia.org/wiki/Bridge_{k}",
    }
    row.update(changes)
    return {key: value for key, value in row.items() if value is not KeyError}


def write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_rows_become_sources_with_contexts_and_one_response_per_answer(tmp_path):
    rows = [wikieval_row(0), wikieval_row(1), wikieval_row(2, context_v2=KeyError, poor_answer=KeyError)]
    result = import_wikieval(write_jsonl(tmp_path / "wikieval.jsonl", rows), "wikieval")
    assert result.created["sources"] == 3 and result.created["responses"] == 3 + 3 + 2
    project = Project.objects.get(name="wikieval")
    assert project.protocol == ["ragas_pairwise"]
    for row, source in zip(rows, Source.objects.filter(project=project).order_by("id"), strict=True):
        assert source.question == row["question"]
        assert source.passages == ["\n\n".join(c) for c in (row["context_v1"], row.get("context_v2")) if c]
        assert source.metadata["wikipedia_page"] == row["source"]
        answers = {r.system: r.text for r in source.responses.all()}
        assert answers == {k: row[k] for k in ("answer", "ungrounded_answer", "poor_answer") if k in row}
        for response in source.responses.all():
            assert response.external_id == f"{source.external_id}:{response.system}"
            assert all(response.text[s:e] == tok for tok, s, e in response.tokens)


def test_answer_order_is_shuffled_per_row_and_the_same_on_every_import(tmp_path):
    """Units show responses in creation order: the grounded answer must not always come first."""
    rows = [wikieval_row(k) for k in range(12)]
    path = write_jsonl(tmp_path / "w.jsonl", rows)
    import_wikieval(path, "first")
    import_wikieval(path, "second")

    def orders(name: str) -> list[list[str]]:
        return [[r.system for r in s.responses.order_by("id")] for s in Source.objects.filter(project__name=name)
                .order_by("id")]

    assert orders("first") == orders("second")
    assert len({tuple(o) for o in orders("first")}) > 1
    assert {o[0] for o in orders("first")} != {"answer"}


def test_csv_with_contexts_as_json_arrays_or_plain_text_and_an_id_column(tmp_path):
    path = tmp_path / "wikieval.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "context_v1", "context_v2", "answer", "poor_answer", "ungrounded_answer"])
        w.writerow(["7", "Who built it?", json.dumps(["Ada built it.", "In 1900."]), "Ada built it in 1900, in Rome.",
                    "Ada.", "It is old.", "Bob."])
    import_wikieval(path, "csv")
    source = Source.objects.get(project__name="csv")
    assert source.external_id == "7"
    assert source.passages == ["Ada built it.\n\nIn 1900.", "Ada built it in 1900, in Rome."]
    assert source.responses.count() == 3


def test_csv_written_by_pandas_keeps_list_contexts_as_python_lists(tmp_path):
    """pandas' to_csv of the WikiEval frame writes a list cell as its Python repr (single quotes)."""
    path = tmp_path / "pandas.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question", "context_v1", "context_v2", "answer", "poor_answer"])
        w.writerow(["Who built it?", repr(["Ada's team built it.", "In 1900."]), repr(["Ada built it."]), "Ada.", "Old."])
    import_wikieval(path, "pandas")
    source = Source.objects.get(project__name="pandas")
    assert source.passages == ["Ada's team built it.\n\nIn 1900.", "Ada built it."]


def test_importing_twice_changes_nothing_and_new_rows_are_added(tmp_path):
    path = write_jsonl(tmp_path / "w.jsonl", [wikieval_row(0), wikieval_row(1)])
    import_wikieval(path, "w")
    before = row_counts()
    again = import_wikieval(path, "w")
    assert again.skipped == 2 and not any(again.created.values())
    assert row_counts() == before
    more = import_wikieval(write_jsonl(tmp_path / "w2.jsonl", [wikieval_row(0), wikieval_row(5)]), "w")
    assert more.skipped == 1 and more.created["sources"] == 1 and more.created["responses"] == 3


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"question": KeyError}, "question", "missing field"),
        ({"question": "  "}, "question", "empty value"),
        ({"question": 3}, "question", "expected string"),
        ({"context_v1": KeyError}, "context_v1", "missing context"),
        ({"context_v1": [1, 2]}, "context_v1[0]", "expected string"),
        ({"context_v2": {"text": "x"}}, "context_v2", "expected string or array"),
        ({"context": "also one"}, "context", "not both"),
        ({"answer": ["a"]}, "answer", "expected string"),
        ({"grounded_answer": "x"}, "grounded_answer", "unknown column"),
        ({"context_v2": KeyError, "poor_answer": KeyError, "ungrounded_answer": KeyError}, "answer",
         "nothing to compare"),
        ({"id": True}, "id", "expected string or integer"),
        ({"question": "When did the bridge number 0 open?"}, "question", "already on line 1"),
    ],
)
def test_a_bad_row_names_file_line_and_field_and_writes_nothing(tmp_path, changes, field, words):
    path = write_jsonl(tmp_path / "bad.jsonl", [wikieval_row(0), wikieval_row(1), wikieval_row(2, **changes)])
    before = row_counts()
    with pytest.raises(ImportFormatError) as err:
        import_wikieval(path, "bad")
    assert (err.value.file, err.value.line, err.value.field) == ("bad.jsonl", 3, field)
    assert words in str(err.value)
    assert row_counts() == before and not Project.objects.filter(name="bad").exists()


def test_a_row_id_that_names_another_question_in_the_project_is_refused(tmp_path):
    import_wikieval(write_jsonl(tmp_path / "a.jsonl", [wikieval_row(0, id="r1")]), "p")
    before = row_counts()
    with pytest.raises(ImportFormatError) as err:
        import_wikieval(write_jsonl(tmp_path / "b.jsonl", [wikieval_row(1, id="r2"), wikieval_row(2, id="r1")]), "p")
    assert (err.value.line, err.value.field) == (2, "question") and "another question" in str(err.value)
    assert row_counts() == before and not Response.objects.filter(external_id__startswith="r2").exists()


def test_files_that_are_not_wikieval_rows(tmp_path):
    bad_json = tmp_path / "broken.jsonl"
    bad_json.write_text(json.dumps(wikieval_row(0)) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        import_wikieval(bad_json, "p")
    assert (err.value.line, err.value.field) == (2, "(json)")
    not_object = write_jsonl(tmp_path / "list.jsonl", [["question", "answer"]])
    with pytest.raises(ImportFormatError, match="line 1: expected object"):
        import_wikieval(not_object, "p")
    with pytest.raises(ImportFormatError, match="use .jsonl or .csv"):
        import_wikieval(tmp_path / "w.parquet", "p")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ImportFormatError, match="no rows"):
        import_wikieval(empty, "p")
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text('question,context_v1,answer,poor_answer\nQ?,"[""unclosed",A.,B.\n', encoding="utf-8")
    with pytest.raises(ImportFormatError) as err:
        import_wikieval(csv_path, "p")
    assert (err.value.line, err.value.field) == (2, "context_v1") and "invalid JSON array" in str(err.value)
    assert not Project.objects.filter(name="p").exists()


def test_the_command_prints_a_summary_and_turns_errors_into_command_errors(tmp_path, capsys):
    good = write_jsonl(tmp_path / "w.jsonl", [wikieval_row(0)])
    call_command("import_wikieval", str(good), "--project", "cmd")
    assert "created 3 responses, 1 sources" in capsys.readouterr().out
    bad = write_jsonl(tmp_path / "bad.jsonl", [wikieval_row(1, question=KeyError)])
    with pytest.raises(CommandError, match=r"nothing imported: bad.jsonl, line 1, field question: missing field"):
        call_command("import_wikieval", str(bad), "--project", "cmd")
