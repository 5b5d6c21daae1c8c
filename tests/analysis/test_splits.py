"""The dev/test split is a stable function of the source id."""
from __future__ import annotations

import hashlib

from annotation_tasks.analysis.splits import split_of


def test_split_follows_sha1_parity() -> None:
    for source in ["132", "abc", "0fb43cc5-perplexity", 7]:
        parity = int(hashlib.sha1(str(source).encode()).hexdigest(), 16) % 2
        assert split_of(source) == ("dev" if parity == 0 else "test")


def test_split_is_roughly_half_and_int_equals_str() -> None:
    splits = [split_of(i) for i in range(2000)]
    assert 900 < splits.count("dev") < 1100
    assert split_of(132) == split_of("132")
