"""Answer-span merging for step 1."""
from __future__ import annotations

from parser.spans import merge_answer_spans
from parser.types import Answer, PredicateFrame, QAPair


def _qa(q: str, *spans: tuple[int, int]) -> QAPair:
    return QAPair(("what", "_", "_", "x", "_", "_", "_"), q, [Answer(a, b, f"{a}-{b}") for a, b in spans])


def test_same_span_of_several_qas_is_one_span() -> None:
    frames = [
        PredicateFrame(3, "shot", "shoot", qas=[_qa("Who was shot?", (0, 1)), _qa("Where?", (4, 7))]),
        PredicateFrame(10, "recovering", "recover", qas=[_qa("Who is recovering?", (0, 1)), _qa("Since?", (12, 15))]),
    ]
    merged = merge_answer_spans(frames)
    assert [(m.start, m.end) for m in merged] == [(0, 1), (4, 7), (12, 15)]
    assert merged[0].qa_refs == [(0, 0), (1, 0)]
    assert merged[1].qa_refs == [(0, 1)]


def test_overlapping_spans_stay_apart_and_multi_answer_qas_count_once_per_span() -> None:
    frames = [PredicateFrame(2, "said", "say", qas=[_qa("What?", (3, 8), (3, 5)), _qa("What else?", (3, 5))])]
    merged = merge_answer_spans(frames)
    assert [(m.start, m.end, m.qa_refs) for m in merged] == [(3, 5, [(0, 0), (0, 1)]), (3, 8, [(0, 0)])]
