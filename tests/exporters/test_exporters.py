"""Exporters: streaming (generators, bounded queries per chunk), qa-jsonl fields and its split by source."""
from __future__ import annotations

import inspect
import json
from collections import Counter, defaultdict

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation_tasks.analysis.splits import split_of
from annotation_tasks.exporters import factscore, qa_jsonl, qasem_release
from annotation_tasks.models import Assignment, Project
from annotation_tasks.services.exports import ExportError, export_lines, export_to_path
from annotation_tasks.services.imports import import_qasem_release
from tests.conftest import shared_file
from tests.importers.helpers import release_line, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_project(tmp_path) -> Project:
    rows = [release_line(sid, model) for sid in (1, 2, 3) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "small.jsonl", rows), "small")
    return Project.objects.get(name="small")


@pytest.mark.parametrize("module", [qasem_release, factscore, qa_jsonl])
def test_exporters_are_generators(module, small_project):
    lines = module.export_lines(small_project)
    assert inspect.isgenerator(lines)


@pytest.mark.parametrize("module", [qasem_release, factscore, qa_jsonl])
def test_output_does_not_depend_on_chunk_size_and_queries_do_not_grow_with_rows(module, small_project, tmp_path):
    whole = list(module.export_lines(small_project, chunk_size=1000))
    assert list(module.export_lines(small_project, chunk_size=4)) == whole
    with CaptureQueriesContext(connection) as small:
        list(module.export_lines(small_project, chunk_size=1000))
    more = [release_line(sid, model) for sid in range(10, 30) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "more.jsonl", more), "small")
    with CaptureQueriesContext(connection) as large:
        assert len(list(module.export_lines(small_project, chunk_size=1000))) > len(whole)
    # one chunk costs a fixed number of queries whatever its size: nothing is loaded row by row
    assert len(large.captured_queries) == len(small.captured_queries)
    with CaptureQueriesContext(connection) as chunked:
        list(module.export_lines(small_project, chunk_size=10))
    per_chunk = len(small.captured_queries) - 1  # less the final empty page
    assert len(chunked.captured_queries) <= per_chunk * 5 + 1  # 46 responses → 5 chunks


def test_qa_jsonl_fields_majority_votes_and_offsets(small_project):
    lines = [json.loads(x) for x in qa_jsonl.export_lines(small_project)]
    assert len(lines) == 6 * 2
    first = lines[0]
    assert (first["source_id"], first["response_id"], first["system"]) == ("1", "1:a", "a")
    assert (first["predicate"], first["question"], first["answer"]) == ("died", "Who died?", "A man")
    text = "A man died of measles . He was old ."
    assert text[first["answer_char_start"] : first["answer_char_end"]] == first["answer"]
    # release votes [0, 0, 1]: QA 0 = supported
    assert first["votes"] == ["supported", "supported", "not_supported"] and first["label"] == "supported"
    assert lines[1]["votes"] == ["not_supported", "not_supported", "supported"] and lines[1]["label"] == "not_supported"
    assert {x["split"] for x in lines if x["source_id"] == "2"} == {split_of("2")}


def test_rejected_assignments_do_not_count(small_project):
    Assignment.objects.filter(worker__external_id="qasem-release:1:2").update(status=Assignment.Status.REJECTED)
    first = json.loads(next(qa_jsonl.export_lines(small_project)))
    assert first["votes"] == ["supported", "supported"]


@pytest.mark.shared_data
def test_split_is_deterministic_by_source_and_about_half():
    import_qasem_release(shared_file("qasem_consistency", "dev.jsonl"), "qasem")
    project = Project.objects.get(name="qasem")
    lines = [json.loads(x) for x in qa_jsonl.export_lines(project)]
    assert [json.loads(x) for x in qa_jsonl.export_lines(project)] == lines
    splits = defaultdict(set)
    for x in lines:
        splits[x["source_id"]].add(x["split"])
    assert all(len(s) == 1 for s in splits.values()), "a source is split across dev and test"
    per_source = Counter(next(iter(s)) for s in splits.values())
    assert set(per_source) == {"dev", "test"}
    assert 0.3 <= per_source["dev"] / len(splits) <= 0.7
    synthetic = Counter(split_of(f"source-{i}") for i in range(4000))
    assert 0.46 <= synthetic["dev"] / 4000 <= 0.54


def test_export_service_errors_and_atomic_file(small_project, tmp_path):
    with pytest.raises(ExportError, match="no project named 'nope'"):
        export_lines("nope", "qa-jsonl")
    with pytest.raises(ExportError, match="unknown format"):
        export_lines("small", "xml")
    out = tmp_path / "out" / "gold.jsonl"
    n = export_to_path("small", "qasem-release", out)
    assert n == 6 and len(out.read_text().splitlines()) == 6
    assert [p.name for p in out.parent.iterdir()] == ["gold.jsonl"]  # no temp file left


def test_qas_marked_invalid_are_left_out(small_project):
    from annotation_tasks.models import QA

    QA.objects.filter(response__external_id="1:a", external_id="1").update(validity=QA.Validity.INVALID)
    release = json.loads(next(qasem_release.export_lines(small_project)))
    assert [q["qa_id"] for q in release["qas"]] == [0]
    assert [s["qaIds"] for s in release["spans"]] == [[0], []]
    rows = [json.loads(x) for x in qa_jsonl.export_lines(small_project)]
    assert len(rows) == 11 and ("1:a", "What did someone die of?") not in {(r["response_id"], r["question"]) for r in rows}


def test_content_made_in_the_app_exports_in_both_schemas(tmp_path):
    """Items imported plain, QAs and facts added and labelled by local workers (no release metadata)."""
    from annotation_tasks.models import (
        QA,
        AnswerSpan,
        AtomicFact,
        FactLabel,
        Predicate,
        QALabel,
        Response,
        SpanLabel,
        Unit,
        Worker,
    )
    from annotation_tasks.services.imports import import_items

    items = write_jsonl(tmp_path / "i.jsonl", [{"source_id": "s", "source": "A man died.", "system": "m", "response": "A man died. He was old."}])
    import_items(items, "app")
    project = Project.objects.get(name="app")
    response = Response.objects.get()
    pred = Predicate.objects.create(response=response, token_index=2, text="died", kind="verbal")
    qa = QA.objects.create(response=response, predicate=pred, question="Who died?", answer="A man", answer_start=0, answer_end=2)
    span = AnswerSpan.objects.create(response=response, start=0, end=2, text="A man")
    span.qas.add(qa)
    fact = AtomicFact.objects.create(response=response, sentence_index=1, text="He was old.")
    unit = Unit.objects.create(project=project, source=response.source)
    for k, (supported, covered, label) in enumerate([(True, True, "S"), (False, True, "NS"), (False, False, "NS")]):
        a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=f"w{k}"), status="submitted")
        QALabel.objects.create(assignment=a, qa=qa, supported=supported)
        SpanLabel.objects.create(assignment=a, span=span, covered=covered)
        FactLabel.objects.create(assignment=a, fact=fact, label=label)
    line = json.loads(next(qasem_release.export_lines(project)))
    assert list(line) == ["source_id", "source", "summary", "model", "qas", "spans"]
    assert line["summary"] == [["A", "man", "died", "."], ["He", "was", "old", "."]]
    assert line["qas"][0]["annotations"] == [0, 1, 1] and line["qas"][0]["majority"] == 1
    assert line["qas"][0]["predicate_pos"] == "VERB" and line["qas"][0]["answer_idx"] == "0-2"
    assert line["spans"][0]["annotations"] == [1, 1, 0] and line["spans"][0]["majority"] == 1
    assert line["spans"][0]["qaIds"] == [qa.pk]
    fs = json.loads(next(factscore.export_lines(project)))
    assert [s["text"] for s in fs["annotations"]] == ["A man died.", "He was old."]
    assert fs["annotations"][1]["human-atomic-facts"] == [{"text": "He was old.", "label": "NS"}]
    assert fs["annotations"][1]["model-atomic-facts"] == [{"text": "He was old."}]
