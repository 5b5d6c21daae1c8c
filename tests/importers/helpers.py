"""Small valid records of each format, built in code so bad-input tests need no shared data."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    FactLabel,
    Predicate,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    UnitResponse,
    Worker,
)

MODELS = [
    Project, Source, Response, Predicate, QA, AnswerSpan, AtomicFact, Batch, Unit, UnitResponse, Worker,
    Assignment, QALabel, SpanLabel, FactLabel,
]


def row_counts() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in MODELS}


def release_line(source_id: Any = 7, model: str = "bart") -> dict[str, Any]:
    """A two-sentence summary with one predicate, two QAs and two spans, three votes each."""
    return {
        "source_id": source_id,
        "source": ["A", "man", "died", "of", "measles", "in", "May", "."],
        "summary": [["A", "man", "died", "of", "measles", "."], ["He", "was", "old", "."]],
        "model": model,
        "datasource": "xsum",
        "dataset": "cliff",
        "qas": [
            {"qa_id": 0, "sent_id": 0, "predicate_idx": 2, "predicate_pos": "VERB", "predicate": "died",
             "question": "Who died?", "answer_idx": "0-2", "answer": "A man", "annotations": [0, 0, 1]},
            {"qa_id": 1, "sent_id": 0, "predicate_idx": 2, "predicate_pos": "VERB", "predicate": "died",
             "question": "What did someone die of?", "answer_idx": "4-5", "answer": "measles", "annotations": [1, 1, 0]},
        ],
        "spans": [
            {"id": 0, "start": 0, "end": 2, "qaIds": [0], "annotations": [1, 1, 1]},
            {"id": 1, "start": 4, "end": 5, "qaIds": [1], "annotations": [0, 1, 0]},
        ],
    }


def factscore_line(topic: str = "Ada Lovelace") -> dict[str, Any]:
    return {
        "input": f"Question: Tell me a bio of {topic}.",
        "output": f"{topic} was a mathematician. She liked tea.",
        "topic": topic,
        "cat": ["rare", "Europe"],
        "annotations": [
            {"text": f"{topic} was a mathematician.", "is-relevant": True,
             "model-atomic-facts": [{"text": f"{topic} was a mathematician."}],
             "human-atomic-facts": [{"text": f"{topic} was a mathematician.", "label": "S"}]},
            {"text": "She liked tea.", "is-relevant": False, "model-atomic-facts": [{"text": "She liked tea."}],
             "human-atomic-facts": None},
        ],
    }


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path
