"""The commands exactly as later checks call them, and the idempotent demo loader."""
from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import authenticate
from django.core.management import CommandError, call_command

from annotation_tasks.models import Project, ProjectMembership, Response, Unit
from tests.importers.helpers import factscore_line, release_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_and_export_commands(tmp_path):
    release = write_jsonl(tmp_path / "rel.jsonl", [release_line(1, "a"), release_line(2, "b")])
    assert "2 imported" in run("import_qasem_release", str(release), "--project", "P")
    out = tmp_path / "gold.jsonl"
    run("export", "--project", "P", "--format", "qasem-release", "-o", str(out), "--no-majority")
    assert out.read_text().splitlines() == [qasem_dump(release_line(1, "a")), qasem_dump(release_line(2, "b"))]
    stdout = run("export", "--project", "P", "--format", "qa-jsonl", "-o", "-")
    assert len(stdout.splitlines()) == 4 and json.loads(stdout.splitlines()[0])["response_id"] == "1:a"

    fs = write_jsonl(tmp_path / "GPT.jsonl", [factscore_line("Ada")])
    run("import_factscore", str(fs), "--project", "F")
    assert Response.objects.get(project__name="F").system == "GPT"
    run("import_factscore", str(fs), "--project", "F2", "--system", "other")
    assert Response.objects.get(project__name="F2").external_id == "other:Ada"
    stdout = run("export", "--project", "F", "--format", "factscore", "-o", "-")
    assert json.loads(stdout) == factscore_line("Ada")

    items = write_jsonl(tmp_path / "items.jsonl", [{"source_id": "s", "source": "Text.", "system": "m", "response": "Hi."}])
    run("import_items", str(items), "--project", "I")
    assert Project.objects.get(name="I").sources.count() == 1
    with pytest.raises(CommandError, match="no project named"):
        run("export", "--project", "missing", "--format", "qa-jsonl", "-o", "-")


def qasem_dump(obj) -> str:
    return json.dumps(obj, separators=(",", ":")).replace("/", "\\/")


def test_load_demo_is_idempotent_and_usable():
    run("load_demo")
    before = row_counts()
    run("load_demo")
    assert row_counts() == before
    user = authenticate(username="demo", password="demo")
    assert user is not None
    demo = Project.objects.get(name="Demo")
    assert ProjectMembership.objects.get(project=demo, user=user).role == "researcher"
    assert demo.sources.count() == 3 and demo.responses.count() == 6
    for response in demo.responses.all():
        assert response.qas.exists() and response.answer_spans.exists() and response.predicates.exists()
        assert all(response.text[s:e] == t for t, s, e in response.tokens)
        for qa in response.qas.all():
            assert " ".join(t[0] for t in response.tokens[qa.answer_start : qa.answer_end]) == qa.answer
    facts = Project.objects.get(name="Demo FActScore")
    assert facts.responses.count() == 2
    assert all(s.text for s in facts.sources.all())
    # demo-news-3's two summaries hold 13 spans, over the 12-span unit cap (services.units): two units for it
    assert Unit.objects.filter(project=demo).count() == 4 and Unit.objects.filter(project=facts).count() == 2


@pytest.mark.shared_data
def _slice(source, dest, lines: slice):
    """The file's lines `lines`, byte for byte, under the same name (the FActScore system is the file's stem)."""
    dest.mkdir(exist_ok=True)
    out = dest / source.name
    out.write_bytes(b"".join(source.read_bytes().splitlines(keepends=True)[lines]))
    return out


def test_cli_round_trip_of_the_shared_files_is_byte_identical(tmp_path):
    """The commands' file path (-o FILE) writes the bytes the import read. Every line of the whole files round-trips
    in test_qasem_release.py and test_factscore.py through the same services; here slices of the real files, chosen
    to hold each kind of line: dev lines 30-69 span the cliff, factscore and verifiability datasets (sentence lists,
    flat summaries, repeated source ids), the first 12 FActScore records hold answered and abstained ones, and both
    files share their topics (one source each)."""
    from tests.conftest import shared_file

    dev = _slice(shared_file("qasem_consistency", "dev.jsonl"), tmp_path / "in", slice(30, 70))
    assert {json.loads(line)["dataset"] for line in dev.read_text().splitlines()} == {"cliff", "factscore", "verifiability"}
    run("import_qasem_release", str(dev), "--project", "release")
    out = tmp_path / "dev.out.jsonl"
    run("export", "--project", "release", "--format", "qasem-release", "--no-majority", "-o", str(out))
    assert out.read_bytes() == dev.read_bytes()

    files = [_slice(shared_file("factscore_labeled", n), tmp_path / "in", slice(0, 12))
             for n in ("InstructGPT.jsonl", "ChatGPT.jsonl")]
    records = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    assert {r["annotations"] is None for r in records} == {True, False}
    run("import_factscore", *map(str, files), "--project", "factscore")
    out = tmp_path / "fs.out.jsonl"
    run("export", "--project", "factscore", "--format", "factscore", "-o", str(out))
    # two systems in one project: each line as the file has it, with its system (the file's stem) after its keys
    assert out.read_bytes() == b"".join(line[:-2] + b', "system": "' + f.stem.encode() + b'"}\n'
                                        for f in files for line in f.read_bytes().splitlines(keepends=True))
    run("import_factscore", str(out), "--project", "factscore-again")
    again = tmp_path / "fs.again.jsonl"
    run("export", "--project", "factscore-again", "--format", "factscore", "-o", str(again))
    assert again.read_bytes() == out.read_bytes()
