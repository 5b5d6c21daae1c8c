"""Answer-span merging for step 1: annotators judge each distinct span once, whatever QAs it answers.

Several predicates often share an argument ("Both were shot ... and have been recovering": "Both" answers a QA
of each verb); showing it twice would double the work and split the labels, so identical spans become one
MergedSpan listing every (frame, QA) it answers. Only identical spans merge: overlapping but different spans
are different claims about the text.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from parser.types import PredicateFrame


@dataclass(slots=True)
class MergedSpan:
    start: int
    end: int
    text: str
    qa_refs: list[tuple[int, int]] = field(default_factory=list)  # (frame index, QA index)


def merge_answer_spans(frames: Iterable[PredicateFrame]) -> list[MergedSpan]:
    """Distinct answer spans in text order, each with the QAs it answers (in frame, QA order)."""
    merged: dict[tuple[int, int], MergedSpan] = {}
    for f_index, frame in enumerate(frames):
        for q_index, qa in enumerate(frame.qas):
            for answer in qa.answers:
                key = (answer.start, answer.end)
                span = merged.get(key)
                if span is None:
                    span = merged[key] = MergedSpan(answer.start, answer.end, answer.text)
                if (f_index, q_index) not in span.qa_refs:
                    span.qa_refs.append((f_index, q_index))
    return sorted(merged.values(), key=lambda s: (s.start, s.end))
