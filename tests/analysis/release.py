"""Test helper: labels, QA-structure and FActScore frames read straight from the published JSONL files.

They mirror the frame contract of annotation_tasks.services.frames, so the pure analysis can be checked
against the published figures without a database.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from tests.conftest import shared_file


def qasem_rows() -> list[dict]:
    path: Path = shared_file("qasem_consistency", "dev.jsonl")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def qasem_frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(labels, qas, qa_spans) for the QASem dev file; ids are running integers, worker k of a source is k."""
    labels, qas, qa_spans = [], [], []
    next_qa = next_span = 0
    for response_id, row in enumerate(qasem_rows()):
        base = {
            "response_id": response_id,
            "source_id": str(row["source_id"]),
            "system": row["model"],
            "dataset": row["dataset"],
        }
        qa_ids: dict[int, int] = {}
        for qa in row["qas"]:
            qa_ids[qa["qa_id"]] = next_qa
            qas.append({**base, "item_id": next_qa, "predicate_id": f"{response_id}:{qa['predicate_idx']}"})
            for k, value in enumerate(qa["annotations"]):
                labels.append({**base, "level": "qa", "item_id": next_qa, "worker_id": f"{row['source_id']}:{k}",
                               "assignment_id": f"{row['source_id']}:{k}",
                               "label": "not_supported" if value == 1 else "supported", "derived_from_span": False})
            next_qa += 1
        for span in row["spans"]:
            for k, value in enumerate(span["annotations"]):
                labels.append({**base, "level": "span", "item_id": next_span, "worker_id": f"{row['source_id']}:{k}",
                               "assignment_id": f"{row['source_id']}:{k}",
                               "label": "covered" if value == 1 else "not_covered", "derived_from_span": False})
            for qa_id in span["qaIds"]:
                if qa_id not in qa_ids:  # 15 spans of the release name QAs that are not in the file
                    continue
                qa_spans.append({"qa_id": qa_ids[qa_id], "span_id": next_span})
            next_span += 1
    return pd.DataFrame(labels), pd.DataFrame(qas), pd.DataFrame(qa_spans)


def factscore_frames(systems: tuple[str, ...] = ("InstructGPT", "ChatGPT")) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(responses, facts) for the FActScore labeled files, stored the way the importer stores them."""
    responses, facts = [], []
    fact_id = 0
    for system in systems:
        path = shared_file("factscore_labeled", f"{system}.jsonl")
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                response_id = f"{system}:{row['topic']}"
                responses.append({"response_id": response_id, "system": system, "source_id": row["topic"],
                                  "dataset": "factscore", "abstained": row["annotations"] is None})
                for index, sentence in enumerate(row["annotations"] or []):
                    base = {"response_id": response_id, "sentence_index": index,
                            "sentence_relevant": bool(sentence["is-relevant"])}
                    for _fact in sentence.get("model-atomic-facts") or []:
                        facts.append({**base, "fact_id": fact_id, "kind": "model", "worker_id": None, "label": None})
                        fact_id += 1
                    for fact in sentence.get("human-atomic-facts") or []:
                        facts.append({**base, "fact_id": fact_id, "kind": "human", "worker_id": "factscore-expert",
                                      "label": fact["label"]})
                        fact_id += 1
    return pd.DataFrame(responses), pd.DataFrame(facts)


def assert_paper_factscore(rows: dict[str, dict]) -> None:
    """Rows by system (InstructGPT, ChatGPT) carry the FActScore paper's human-annotation figures."""
    assert abs(rows["InstructGPT"]["factscore"] - 42.5) <= 0.2
    assert abs(rows["ChatGPT"]["factscore"] - 58.3) <= 0.2
    assert round(rows["InstructGPT"]["percent_responding"], 1) == 99.5
    assert round(rows["ChatGPT"]["percent_responding"], 1) == 85.8
    assert round(rows["InstructGPT"]["facts_per_response"], 1) == 26.2
    assert round(rows["ChatGPT"]["facts_per_response"], 1) == 34.6
