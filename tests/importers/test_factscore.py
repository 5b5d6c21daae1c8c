"""FActScore labeled import: byte-exact round trip of both shared files, representation, idempotency."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from annotation_tasks.exporters.factscore import export_lines
from annotation_tasks.models import AtomicFact, FactLabel, Project, Response, Source, Unit
from annotation_tasks.services.imports import import_factscore
from tests.conftest import committed_import, shared_file
from tests.importers.helpers import factscore_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def files():
    return [shared_file("factscore_labeled", "InstructGPT.jsonl"), shared_file("factscore_labeled", "ChatGPT.jsonl")]


@pytest.mark.shared_data
class TestBothSharedFiles:
    """Both tests read one import of the two shared files (committed once for the class: ~2 MB, the slow part),
    each in its own rolled-back transaction; it is removed before the next test of the module."""

    @pytest.fixture(scope="class")
    def imported(self, files, django_db_setup, django_db_blocker) -> Iterator[list]:
        with committed_import(django_db_blocker, "fs", lambda: import_factscore(files, "fs")) as results:
            yield results

    def test_round_trip_every_line_of_both_files_is_byte_identical(self, files, imported):
        # both files in one project (two systems): each line as its file has it, its system (the stem) after its keys
        original = [f'{line[:-1]}, "system": "{f.stem}"}}' for f in files
                    for line in f.read_text(encoding="utf-8").split("\n") if line]
        exported = list(export_lines(Project.objects.get(name="fs")))
        assert len(exported) == len(original)
        for n, (want, got) in enumerate(zip(original, exported, strict=True), start=1):
            assert got == want, f"record {n} differs"

    def test_representation_and_idempotency(self, files, imported):
        results = imported
        lines = {f.stem: [json.loads(x) for x in f.read_text(encoding="utf-8").split("\n") if x] for f in files}
        assert [r.lines for r in results] == [len(v) for v in lines.values()]
        assert Source.objects.count() == len({d["topic"] for v in lines.values() for d in v})
        for system, records in lines.items():
            for d in records:
                r = Response.objects.get(external_id=f"{system}:{d['topic']}")
                assert (r.system, r.text, r.metadata["abstained"]) == (system, d["output"], d["annotations"] is None)
                assert r.source.external_id == d["topic"] and r.source.text == ""
        human = [f for v in lines.values() for d in v for s in d["annotations"] or []
                 for f in s["human-atomic-facts"] or []]
        model = [f for v in lines.values() for d in v for s in d["annotations"] or []
                 for f in s["model-atomic-facts"] or []]
        assert AtomicFact.objects.filter(kind="human").count() == len(human)
        assert AtomicFact.objects.filter(kind="model").count() == len(model)
        for label in ("S", "NS", "IR"):
            assert FactLabel.objects.filter(label=label).count() == sum(f["label"] == label for f in human)
        assert set(FactLabel.objects.values_list("assignment__worker__external_id", flat=True)) == {"factscore-expert"}
        before = row_counts()
        again = import_factscore(files, "fs")
        assert all(r.skipped == r.lines for r in again)
        assert row_counts() == before


def test_system_option_abstention_and_irrelevant_sentences(tmp_path):
    abstained = factscore_line("Nobody")
    abstained["annotations"] = None
    path = write_jsonl(tmp_path / "gpt.jsonl", [factscore_line("Ada"), abstained])
    import_factscore([path], "fs", system="my-llm")
    ada = Response.objects.get(external_id="my-llm:Ada")
    assert ada.sentences[1]["is_relevant"] is False and ada.sentences[1]["human_facts_null"] is True
    assert ada.tokens and all(ada.text[s:e] == t for t, s, e in ada.tokens)
    assert (ada.sentences[0]["start"], ada.sentences[0]["end"]) == (0, 5)  # "Ada was a mathematician ."
    facts = list(AtomicFact.objects.filter(response=ada).values_list("kind", "sentence_index", "order", "text"))
    assert ("human", 0, 0, "Ada was a mathematician.") in facts and ("model", 1, 0, "She liked tea.") in facts
    unit = Unit.objects.get()
    assert unit.mode == "factscore" and list(unit.responses.all()) == [ada]
    assert Response.objects.get(external_id="my-llm:Nobody").metadata["abstained"] is True
    assert Project.objects.get(name="fs").protocol == ["fact_labeling"]
    exported = [json.loads(x) for x in export_lines(Project.objects.get(name="fs"))]
    assert exported == [factscore_line("Ada"), abstained]
