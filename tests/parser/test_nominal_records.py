"""parser.training.nominal_records: per-predicate records of the nominal argument rules, and the replay of the
evaluation over them that tuning on QANom train relies on."""
from __future__ import annotations

from pathlib import Path

import pytest

from parser import evaluation
from parser.embedded import EmbeddedParser
from parser.training.nominal_records import parsed_docs, records, scorer_keep, simulate
from tests.conftest import shared_file


def _record(proposed: list[tuple[int, int]], gold: list[tuple[int, int]]) -> dict:
    return {"sid": "Wiki1k:wikinews:1:0:0", "idx": 0, "gold": [{"span": list(g), "wh": "what", "role": "A1"} for g in gold],
            "proposed": [{"span": list(p), "rule": "of", "kind": "obj", "wh": "what", "mention": False,
                          "features": ["bias"]} for p in proposed]}


def test_simulate_matches_one_to_one_at_the_threshold() -> None:
    # (2, 4) overlaps the gold (2, 5) at IOU 2/3; its duplicate can only be a false positive; (0, 1) matches nothing
    rec = _record([(2, 4), (2, 4), (0, 1)], [(2, 5), (7, 9)])
    counts = simulate([rec], lambda r, p: True)
    assert (counts.tp, counts.fp, counts.fn) == (1, 2, 1)
    assert simulate([rec], lambda r, p: True, iou=0.7).tp == 0  # 2/3 is under 0.7
    assert simulate([rec], lambda r, p: p["span"] != [0, 1]).fp == 1


@pytest.mark.shared_data
def test_records_replay_the_parsers_figure_on_a_qanom_slice(tmp_path: Path, embedded: EmbeddedParser) -> None:
    """With the parser's own choice (scorer_keep) the records give exactly evaluate_nominal's argument counts, from
    parses read back from the DocBin cache as from fresh ones."""
    lines = shared_file("qanom", "annot.dev.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    small = tmp_path / "annot.small.csv"
    small.write_text("".join(lines[:400]), encoding="utf-8")
    gold = evaluation.load_qanom(small)
    expected = evaluation.evaluate_nominal(gold, embedded.parse_tokenized).arguments
    cache = tmp_path / "docs.spacy"
    fresh = list(records(*parsed_docs(small, cache)))
    assert cache.exists()
    again = list(records(*parsed_docs(small, cache)))
    assert again == fresh and len(fresh) == sum(1 for v in gold.candidates.values() if v)
    counts = simulate(fresh, scorer_keep())
    assert (counts.tp, counts.fp, counts.fn) == (expected.tp, expected.fp, expected.fn) and expected.tp > 20
