"""Bad input: the error names file, line and field, and nothing at all is written."""
from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.importers import ImportFormatError
from annotation_tasks.models import SpanLabel
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


# -- issue 10: limits, located errors for hostile values, nothing half-right ---------------------------------


def test_a_line_over_the_byte_limit_is_located_before_it_is_parsed(tmp_path, settings):
    settings.IMPORT_MAX_LINE_BYTES = 2000
    rows = [{"source_id": "s1", "source": "x", "system": "m", "response": "short"},
            {"source_id": "s2", "source": "x", "system": "m", "response": "y" * 5000}]
    with pytest.raises(ImportFormatError, match=r"^long\.jsonl, line 2: line longer than 2000 bytes \(IMPORT_MAX_LINE_BYTES\)"):
        import_items(write_jsonl(tmp_path / "long.jsonl", rows), "i")
    assert all(n == 0 for n in row_counts().values())


def test_a_text_over_the_field_limit_names_the_field(tmp_path, settings):
    settings.IMPORT_MAX_TEXT_CHARS = 100
    line = release_line(7, "a")
    line["qas"][1]["question"] = "Why? " * 50
    with pytest.raises(ImportFormatError, match=r"line 1, field qas\[1\]\.question: text of 250 characters, longer than"):
        import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [line]), "p")
    csv_path = tmp_path / "items.csv"
    csv_path.write_text("source_id,source,system,response\ns1,ok,m1," + "z" * 150 + "\n")
    with pytest.raises(ImportFormatError, match=r"items\.csv, line 2.*(IMPORT_MAX_TEXT_CHARS)"):
        import_items(csv_path, "i")
    assert all(n == 0 for n in row_counts().values())


def test_a_huge_number_is_a_located_json_error(tmp_path):
    line = json.dumps(release_line(12345, "a")).replace('"source_id": 12345', '"source_id": ' + "9" * 5000)
    with pytest.raises(ImportFormatError, match=r"^big\.jsonl, line 1, field \(json\): invalid JSON: a number with too many"):
        import_qasem_release(write_jsonl(tmp_path / "big.jsonl", [line]), "p")


@pytest.mark.parametrize(("bad", "words"), [("\x00", "NUL character"), ("\ud800", "lone surrogate")])
def test_nul_and_lone_surrogates_are_located_on_every_database(tmp_path, bad, words):
    line = release_line(7, "a")
    line["qas"][0]["question"] = f"Who{bad}died?"
    with pytest.raises(ImportFormatError) as err:
        import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [line]), "p")
    assert str(err.value).startswith("r.jsonl, line 1, field qas[0].question: ") and words in str(err.value)
    items = [{"source_id": "s", "source": f"x{bad}y", "system": "m", "response": "r"}]
    with pytest.raises(ImportFormatError, match=rf"^i\.jsonl, line 1, field source: .*{words}"):
        import_items(write_jsonl(tmp_path / "i.jsonl", items), "i")
    fs = factscore_line("A")
    fs["annotations"][0]["human-atomic-facts"][0]["text"] = f"A fact{bad}."
    with pytest.raises(ImportFormatError, match=rf"field annotations\[0\]\.human-atomic-facts\[0\]\.text: .*{words}"):
        import_factscore([write_jsonl(tmp_path / "F.jsonl", [fs])], "f")
    if bad == "\x00":
        csv_path = tmp_path / "nul.csv"
        csv_path.write_text("source_id,source,system,response\ns1,ok,m1,a\x00b\n")
        with pytest.raises(ImportFormatError, match=r"^nul\.csv, line 2, field response: .*NUL"):
            import_items(csv_path, "i")
    assert all(n == 0 for n in row_counts().values())


def test_a_whitespace_only_response_is_refused(tmp_path):
    rows = [{"source_id": "s", "source": "x", "system": "m", "response": " \t "}]
    with pytest.raises(ImportFormatError, match=r"line 1, field response: only whitespace"):
        import_items(write_jsonl(tmp_path / "w.jsonl", rows), "i")


@pytest.mark.parametrize("bad", [1.0, True])
def test_ids_that_are_floats_or_booleans_are_not_taken_as_integers(tmp_path, bad):
    line = release_line(7, "a")
    line["spans"][1]["qaIds"] = [bad]
    with pytest.raises(ImportFormatError, match=r"field spans\[1\]\.qaIds\[0\]: expected integer or string"):
        import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [line]), "p")
    items = [{"source_id": bad, "source": "x", "system": "m", "response": "r"}]
    with pytest.raises(ImportFormatError, match=r"field source_id: expected string"):
        import_items(write_jsonl(tmp_path / "i.jsonl", items), "i")


def test_uneven_vote_counts_in_a_line_are_read_and_a_bad_adjudication_is_located(tmp_path):
    """Uneven votes are routine (a rejected assignment, a response split over units): read, not refused (issue 23
    item 2). A malformed `adjudication` (our export's expert decision) is refused by field, nothing written."""
    line = release_line(7, "a")
    line["spans"][1]["annotations"] = [1, 0]
    line["qas"][0]["adjudication"] = {"label": "maybe", "reason": "x", "decided_by": None,
                                      "decided_at": "2026-12-01T10:00:00+00:00"}
    with pytest.raises(ImportFormatError, match=r"line 1, field qas\[0\]\.adjudication\.label: unknown label 'maybe'"):
        import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [line]), "p")
    assert all(n == 0 for n in row_counts().values())
    line["qas"][0]["adjudication"]["label"] = "supported"
    import_qasem_release(write_jsonl(tmp_path / "r.jsonl", [line]), "p")
    assert SpanLabel.objects.count() == 3 + 2


def test_an_unterminated_csv_quote_is_named_as_such(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('source_id,source,system,response\ns1,"unterminated,m1,A reply.\ns2,x,m,r\n')
    with pytest.raises(ImportFormatError, match=r"^q\.csv, line 2: unterminated quote"):
        import_items(path, "i")


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_an_empty_file_through_the_cli_creates_nothing(tmp_path, content):
    for command, name in (("import_items", "e.jsonl"), ("import_qasem_release", "e.jsonl")):
        path = tmp_path / name
        path.write_text(content)
        with pytest.raises(CommandError, match=r"nothing imported: e\.jsonl: no records in the file"):
            call_command(command, str(path), "--project", "empty")
    assert all(n == 0 for n in row_counts().values())


def test_reimporting_a_changed_line_says_so(tmp_path):
    rows = [{"source_id": "s", "source": "x", "system": "m", "response": "First answer."},
            {"source_id": "t", "source": "y", "system": "m", "response": "Other."}]
    import_items(write_jsonl(tmp_path / "a.jsonl", rows), "i")
    rows[1]["response"] = "A corrected answer."
    again = import_items(write_jsonl(tmp_path / "a.jsonl", rows), "i")
    assert again.skipped == 2 and again.changed == ["line 2: t:m"]
    assert "1 of the lines already present differ" in again.summary() and "NOT applied" in again.summary()
    same = import_items(write_jsonl(tmp_path / "b.jsonl", rows[:1]), "i")
    assert same.changed == [] and "differ" not in same.summary()


def test_update_applies_changed_lines_only_where_nothing_depends_on_them(tmp_path):
    from annotation_tasks.models import Predicate, Response

    rows = [{"source_id": "s", "source": "x", "system": "m", "response": "First answer."},
            {"source_id": "t", "source": "y", "system": "m", "response": "Other."}]
    path = write_jsonl(tmp_path / "a.jsonl", rows)
    call_command("import_items", str(path), "--project", "i")
    rows[1]["response"] = "A corrected answer."
    write_jsonl(path, rows)
    call_command("import_items", str(path), "--project", "i", "--update")
    fixed = Response.objects.get(external_id="t:m")
    assert fixed.text == "A corrected answer." and [t[0] for t in fixed.tokens][:2] == ["A", "corrected"]
    assert Response.objects.get(external_id="s:m").text == "First answer."
    Predicate.objects.create(response=fixed, token_index=1, text="corrected", verb_form="correct")  # parsed now
    rows[1]["response"] = "Changed again."
    write_jsonl(path, rows)
    with pytest.raises(CommandError, match=r"line 2, field response: response 't:m' is already parsed or in a unit"):
        call_command("import_items", str(path), "--project", "i", "--update")
    assert Response.objects.get(external_id="t:m").text == "A corrected answer."
