"""Bad input: the error names file, line and field, and nothing at all is written."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.services.imports import import_factscore, import_items, import_qasem_release
from tests.importers.helpers import factscore_line, release_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


def broken_release(mutate) -> list:
    """Two good lines, then the mutated third: the good lines must not be written either."""
    bad = release_line(9, "bad")
    mutate(bad)
    return [release_line(7, "a"), release_line(8, "b"), bad]


def _set(path: str, value):
    def mutate(obj):
        *parents, last = path.split(".")
        for p in parents:
            obj = obj[int(p)] if p.isdigit() else obj[p]
        if value is KeyError:
            del obj[last]
        else:
            obj[int(last) if last.isdigit() else last] = value

    return mutate


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (_set("qas.1.question", KeyError), "qas[1].question", "missing field"),
        (_set("model", KeyError), "model", "missing field"),
        (_set("qas.0.answer_idx", "3-12"), "qas[0].answer_idx", "out of range"),
        (_set("qas.0.predicate_idx", 10), "qas[0].predicate_idx", "out of range"),
        (_set("spans.1.end", 11), "spans[1].end", "out of range"),
        (_set("qas.0.annotations.1", 2), "qas[0].annotations[1]", "unknown label 2"),
        (_set("spans.0.annotations.2", 2), "spans[0].annotations[2]", "unknown label 2"),
        (_set("qas.1.annotations.0", True), "qas[1].annotations[0]", "expected integer"),
        (_set("qas.0.predicate_pos", "ADJ"), "qas[0].predicate_pos", "unknown label 'ADJ'"),
        (_set("qas.1.qa_id", 0), "qas[1].qa_id", "duplicate"),
        (_set("source", "not a list"), "source", "expected array"),
    ],
)
def test_release_errors_name_file_line_field_and_write_nothing(tmp_path, mutate, field, words):
    path = write_jsonl(tmp_path / "release.jsonl", broken_release(mutate))
    before = row_counts()
    with pytest.raises(ImportFormatError) as err:
        import_qasem_release(path, "p")
    message = str(err.value)
    assert message.startswith(f"release.jsonl, line 3, field {field}: ")
    assert words in message
    assert (err.value.file, err.value.line, err.value.field) == ("release.jsonl", 3, field)
    assert row_counts() == before


def test_invalid_json_names_the_line(tmp_path):
    rows = [release_line(7, "a"), '{"source_id": 8, "source": [', release_line(9, "c")]
    path = write_jsonl(tmp_path / "broken.jsonl", rows)
    with pytest.raises(ImportFormatError, match=r"^broken\.jsonl, line 2, field \(json\): invalid JSON"):
        import_qasem_release(path, "p")
    assert row_counts()["Response"] == 0 and row_counts()["Project"] == 0


def test_duplicate_response_in_one_file_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "dup.jsonl", [release_line(7, "a"), release_line(7, "a")])
    with pytest.raises(ImportFormatError, match=r"line 2, field model: .*already on line 1"):
        import_qasem_release(path, "p")


def test_a_failure_while_writing_rolls_everything_back(tmp_path, monkeypatch):
    from annotation_tasks.importers import qasem_release

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(qasem_release, "_write_labels", explode)
    path = write_jsonl(tmp_path / "ok.jsonl", [release_line(7, "a")])
    with pytest.raises(RuntimeError):
        import_qasem_release(path, "p")
    assert all(n == 0 for n in row_counts().values())


@pytest.mark.parametrize(
    ("mutate", "field", "words"),
    [
        (_set("annotations.0.human-atomic-facts.0.label", "X"), "annotations[0].human-atomic-facts[0].label", "unknown label 'X'"),
        (_set("annotations.0.is-relevant", KeyError), "annotations[0].is-relevant", "missing field"),
        (_set("topic", KeyError), "topic", "missing field"),
        (_set("annotations.0.model-atomic-facts.0.label", "S"), "annotations[0].model-atomic-facts[0].label", "unexpected field"),
    ],
)
def test_factscore_errors_write_nothing_from_any_file(tmp_path, mutate, field, words):
    good = write_jsonl(tmp_path / "Good.jsonl", [factscore_line("A"), factscore_line("B")])
    bad_line = factscore_line("C")
    mutate(bad_line)
    bad = write_jsonl(tmp_path / "Bad.jsonl", [factscore_line("D"), bad_line])
    with pytest.raises(ImportFormatError) as err:
        import_factscore([good, bad], "f")
    assert str(err.value).startswith(f"Bad.jsonl, line 2, field {field}: ") and words in str(err.value)
    assert all(n == 0 for n in row_counts().values())


def test_items_errors_name_the_csv_line_and_field(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text("source_id,source,system,response\ns1,Some text.,m1,A reply.\ns2,Other text.,,Another.\n")
    with pytest.raises(ImportFormatError, match=r"^items\.csv, line 3, field system: empty value"):
        import_items(path, "i")
    assert all(n == 0 for n in row_counts().values())


def test_items_unknown_field_and_disagreeing_source(tmp_path):
    path = write_jsonl(tmp_path / "items.jsonl", [{"source_id": "s", "source": "x", "system": "m", "response": "r", "sytem": "m"}])
    with pytest.raises(ImportFormatError, match=r"line 1, field sytem: unknown field"):
        import_items(path, "i")
    rows = [
        {"source_id": "s", "source": "x", "system": "m", "response": "r"},
        {"source_id": "s", "source": "y", "system": "n", "response": "r"},
    ]
    with pytest.raises(ImportFormatError, match=r"line 2, field source: differs from line 1"):
        import_items(write_jsonl(tmp_path / "two.jsonl", rows), "i")
    assert row_counts()["Source"] == 0


def test_command_reports_the_error_and_writes_nothing(tmp_path):
    line = release_line(7, "a")
    line["spans"][0]["annotations"][0] = 2
    path = write_jsonl(tmp_path / "cmd.jsonl", [line])
    with pytest.raises(CommandError, match=r"nothing imported: cmd\.jsonl, line 1, field spans\[0\]\.annotations\[0\]"):
        call_command("import_qasem_release", str(path), "--project", "p")
    assert row_counts()["Project"] == 0
    assert json.loads(path.read_text())["model"] == "a"  # the file itself is untouched


@pytest.mark.parametrize("name", ["missing.jsonl", "missing.csv"])
def test_a_missing_or_undecodable_file_is_a_located_error(tmp_path, name):
    with pytest.raises(ImportFormatError, match=rf"^{name}: cannot open file"):
        import_items(tmp_path / name, "i")
    latin = tmp_path / "latin.csv"
    latin.write_bytes("source_id,source,system,response\ns1,caf\xe9,m,r\n".encode("latin-1"))
    with pytest.raises(ImportFormatError, match=r"^latin\.csv: not UTF-8 text"):
        import_items(latin, "i")
    with pytest.raises(ImportFormatError, match=r"line 1: expected object, got array"):
        import_qasem_release(write_jsonl(tmp_path / "arr.jsonl", [[1, 2]]), "p")
    assert row_counts()["Project"] == 0


def test_two_factscore_files_with_one_system_and_a_shared_topic_are_refused(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl", [factscore_line("Ada")])
    b = write_jsonl(tmp_path / "b.jsonl", [factscore_line("Bo"), factscore_line("Ada")])
    with pytest.raises(ImportFormatError, match=r"^b\.jsonl, line 2, field topic: response 'gpt:Ada' is also in a\.jsonl"):
        import_factscore([a, b], "f", system="gpt")
    assert row_counts()["Project"] == 0
    assert [r.lines for r in import_factscore([a, b], "f")] == [1, 2]  # file stems differ: two systems


def test_values_longer_than_the_database_allows_are_located_errors(tmp_path):
    """PostgreSQL would refuse them while SQLite silently stores them: both backends must behave alike."""
    line = release_line(7, "m" * 201)
    with pytest.raises(ImportFormatError, match=r"line 1, field model: longer than 200"):
        import_qasem_release(write_jsonl(tmp_path / "long.jsonl", [line]), "p")
    line = release_line(7, "a")
    line["qas"][0]["predicate"] = "p" * 201
    with pytest.raises(ImportFormatError, match=r"line 1, field qas\[0\]\.predicate: longer than 200"):
        import_qasem_release(write_jsonl(tmp_path / "long.jsonl", [line]), "p")
    rows = [{"source_id": "s" * 256, "source": "x", "system": "m", "response": "r"}]
    with pytest.raises(ImportFormatError, match=r"line 1, field source_id: longer than 255"):
        import_items(write_jsonl(tmp_path / "long_items.jsonl", rows), "i")
    with pytest.raises(ImportFormatError, match=r"line 1, field topic: system and topic together"):
        import_factscore([write_jsonl(tmp_path / "f.jsonl", [factscore_line("T" * 255)])], "f")
    assert all(n == 0 for n in row_counts().values())
