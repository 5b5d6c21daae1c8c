"""QASemConsistency release import: round trip on every shared line, representation, polarity, idempotency."""
from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from annotation_tasks.exporters.qasem_release import export_lines
from annotation_tasks.models import QA, Predicate, Project, QALabel, Response, Source, SpanLabel, Unit, Worker
from annotation_tasks.services.imports import import_qasem_release
from tests.conftest import shared_file
from tests.importers.helpers import release_line, row_counts, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev_file():
    return shared_file("qasem_consistency", "dev.jsonl")


@pytest.mark.shared_data
def test_round_trip_every_line_of_the_shared_dev_file_is_byte_identical(dev_file):
    import_qasem_release(dev_file, "qasem")
    original = [line for line in dev_file.read_text(encoding="utf-8").split("\n") if line]
    exported = list(export_lines(Project.objects.get(name="qasem"), include_majority=False))
    assert len(exported) == len(original)
    for n, (want, got) in enumerate(zip(original, exported, strict=True), start=1):
        assert got == want, f"line {n} differs"


@pytest.mark.shared_data
def test_majority_export_adds_the_majority_of_the_three_votes(dev_file):
    import_qasem_release(dev_file, "qasem")
    original = [json.loads(line) for line in dev_file.read_text(encoding="utf-8").split("\n") if line]
    exported = [json.loads(line) for line in export_lines(Project.objects.get(name="qasem"))]
    for want, got in zip(original, exported, strict=True):
        for level in ("qas", "spans"):
            for w, g in zip(want[level], got[level], strict=True):
                assert g["majority"] == int(sum(w["annotations"]) >= 2)
                assert {k: v for k, v in g.items() if k != "majority"} == w


@pytest.mark.shared_data
def test_representation_and_polarity_on_the_shared_file(dev_file):
    result = import_qasem_release(dev_file, "qasem")
    lines = [json.loads(line) for line in dev_file.read_text(encoding="utf-8").split("\n") if line]
    assert result.lines == len(lines) and result.skipped == 0
    n_qas = sum(len(d["qas"]) for d in lines)
    assert QA.objects.count() == n_qas
    # polarity: QA 0 = supported, span 1 = covered
    assert QALabel.objects.filter(supported=True).count() == sum(
        a == 0 for d in lines for q in d["qas"] for a in q["annotations"]
    )
    assert SpanLabel.objects.filter(covered=True).count() == sum(
        a == 1 for d in lines for s in d["spans"] for a in s["annotations"]
    )
    for d in lines:
        response = Response.objects.get(external_id=f"{d['source_id']}:{d['model']}")
        assert response.metadata["model"] == d["model"]
        if d["dataset"] != "verifiability":  # per-item model names: see the engine-grouping test below
            assert response.system == d["model"]
        assert response.metadata["dataset"] == d["dataset"]
        assert response.metadata["summary_shape"] == ("flat" if isinstance(d["summary"][0], str) else "sentences")
        assert response.source.metadata["source_id"] == d["source_id"]
        assert response.source.tokens == d["source"]
        assert response.source.external_id.split("#")[0] == str(d["source_id"])
        for tok, start, end in response.tokens:
            assert response.text[start:end] == tok
    # sources whose id repeats with different text (verifiability) stay separate sources
    assert Source.objects.count() == len({(str(d["source_id"]), json.dumps(d["source"])) for d in lines})
    assert Unit.objects.count() == Source.objects.count()
    assert Worker.objects.filter(provider="imported").count() == 3 * len({str(d["source_id"]) for d in lines})
    copulas = {(str(d["source_id"]), d["model"], q["predicate_idx"]) for d in lines for q in d["qas"] if q.get("copula")}
    for p in Predicate.objects.filter(kind=Predicate.Kind.COPULAR).select_related("response"):
        assert p.pos == "AUX" or (p.response.metadata["source_id"], p.response.system, p.token_index) in copulas


@pytest.mark.shared_data
def test_importing_the_same_file_again_changes_nothing(dev_file):
    import_qasem_release(dev_file, "qasem")
    before = row_counts()
    again = import_qasem_release(dev_file, "qasem")
    assert again.skipped == again.lines and not +again.created
    assert row_counts() == before


def test_labels_go_to_three_anonymous_workers_per_source(tmp_path):
    path = write_jsonl(tmp_path / "two.jsonl", [release_line(7, "bart"), release_line(7, "pegasus")])
    import_qasem_release(path, "p")
    unit = Unit.objects.get()
    assert unit.mode == "qasem" and unit.batch.name == "import:two.jsonl" and unit.batch.status == "imported"
    assert sorted(unit.responses.values_list("external_id", flat=True)) == ["7:bart", "7:pegasus"]
    workers = list(unit.assignments.order_by("id").values_list("worker__external_id", "status"))
    assert workers == [(f"qasem-release:7:{k}", "approved") for k in range(3)]
    qa = QA.objects.get(response__external_id="7:bart", external_id="1")
    assert [lab.supported for lab in qa.labels.order_by("assignment_id")] == [False, False, True]
    assert Project.objects.get(name="p").protocol == ["span_coverage", "qa_support"]


def test_a_new_file_with_the_same_source_id_but_other_text_gets_its_own_source(tmp_path):
    import_qasem_release(write_jsonl(tmp_path / "a.jsonl", [release_line(7, "bart")]), "p")
    other = release_line(7, "t5")
    other["source"] = ["Another", "text", "."]
    import_qasem_release(write_jsonl(tmp_path / "b.jsonl", [other]), "p")
    sources = dict(Source.objects.values_list("external_id", "text"))
    assert sources["7"] == "A man died of measles in May ."
    assert [t for k, t in sources.items() if k.startswith("7#")] == ["Another text ."]


def test_verifiability_lines_are_grouped_by_engine_not_per_item_model(db):
    """The release names verifiability models per item; the report must group them by engine."""
    path = shared_file("qasem_consistency", "dev.jsonl")
    call_command("import_qasem_release", str(path), "--project", "systems")
    systems = set(Response.objects.filter(project__name="systems", metadata__dataset="verifiability").values_list("system", flat=True))
    raw = {json.loads(line)["model"] for line in path.open() if json.loads(line)["dataset"] == "verifiability"}
    assert len(raw) > 50  # one name per item in the release
    assert systems == {m.split("-", 1)[1].rsplit("_", 1)[0] for m in raw}
