"""Plain items in JSONL and CSV: sources (text or passages, question), tokenized responses, idempotency."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from annotation_tasks.importers.tokenize import split_sentences, tokenize
from annotation_tasks.models import Response, Source
from annotation_tasks.services.imports import import_items
from tests.importers.helpers import row_counts

pytestmark = pytest.mark.django_db
SAMPLE = Path(__file__).resolve().parents[2] / "annotation_tasks" / "demo" / "items.sample.jsonl"


def test_the_committed_sample_imports_and_reimports_idempotently():
    rows = [json.loads(x) for x in SAMPLE.read_text().splitlines() if x.strip()]
    result = import_items(SAMPLE, "items")
    assert result.created["responses"] == len(rows)
    assert result.created["sources"] == len({r["source_id"] for r in rows})
    rag = Source.objects.get(external_id="sample-2")
    assert rag.passages == rows[2]["passages"] and rag.question == rows[2]["question"] and rag.text == ""
    for r in rows:
        resp = Response.objects.get(external_id=f"{r['source_id']}:{r['system']}")
        assert resp.text == r["response"]
        assert all(resp.text[s:e] == tok for tok, s, e in resp.tokens)
        assert [t for s in resp.sentences for t in resp.tokens[s["start"] : s["end"]]] == resp.tokens
    before = row_counts()
    assert import_items(SAMPLE, "items").skipped == len(rows)
    assert row_counts() == before


def test_csv_items_with_passages_as_json_array(tmp_path):
    path = tmp_path / "items.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source_id", "passages", "question", "system", "response", "response_id"])
        w.writerow(["q1", json.dumps(["First passage.", "Second, with a comma."]), "Why?", "rag", "Because. It is.", "r-1"])
        w.writerow(["q1", json.dumps(["First passage.", "Second, with a comma."]), "Why?", "other", "No idea.", ""])
        w.writerow(["q2", "One plain passage", "", "rag", "Fine.", ""])
    import_items(path, "csv")
    assert Source.objects.get(external_id="q1").passages == ["First passage.", "Second, with a comma."]
    assert Source.objects.get(external_id="q2").passages == ["One plain passage"]
    assert sorted(Response.objects.values_list("external_id", flat=True)) == ["q1:other", "q2:rag", "r-1"]
    assert len(Response.objects.get(external_id="r-1").sentences) == 2


def test_tokenizer_offsets_and_sentences():
    text = "Smith didn't pay $3.50 in 2021. Then he left!\nNew line here"
    tokens = tokenize(text)
    assert [t[0] for t in tokens][:7] == ["Smith", "did", "n't", "pay", "$", "3.50", "in"]
    assert all(text[s:e] == t for t, s, e in tokens)
    sentences = split_sentences(text, tokens)
    assert [s["text"] for s in sentences] == ["Smith didn't pay $3.50 in 2021.", "Then he left!", "New line here"]
    assert [(s["start"], s["end"]) for s in sentences] == [(0, 9), (9, 13), (13, 16)]


def test_csv_written_by_a_spreadsheet_with_a_bom(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes("\ufeffsource_id,source,system,response\ns1,Text.,m,Reply.\n".encode())
    import_items(path, "bom")
    assert Source.objects.get().external_id == "s1"


def test_lookups_are_chunked_for_big_files(django_assert_num_queries):
    from annotation_tasks.importers.common import BULK, existing_response_ids
    from annotation_tasks.models import Project

    project = Project.objects.create(name="big")
    with django_assert_num_queries(3):  # 2 full chunks + 1: never one IN (...) larger than SQLite allows
        assert existing_response_ids(project, (f"r{i}" for i in range(2 * BULK + 1))) == set()
