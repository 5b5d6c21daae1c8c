"""The word-overlap baseline: the share of the claim's content words that the reference contains.

It is what the embedded scorer has to beat, and it explains itself: the evidence lists the missing words.
"""
from __future__ import annotations

from collections.abc import Sequence

from annotation_tasks.scoring.base import Claim, Reference, Score
from annotation_tasks.scoring.features import IndexCache
from annotation_tasks.scoring.text import tokens


class OverlapScorer:
    name = "overlap"
    version = "1"

    def __init__(self) -> None:
        self._indexes = IndexCache()

    def score_batch(self, pairs: Sequence[tuple[Reference, Claim]]) -> list[Score]:
        out = []
        for reference, claim in pairs:
            index = self._indexes.get(reference)
            words = [t for t in tokens(claim.text) if t.is_content]
            missing = sorted({t.lower for t in words if t.stem not in index.stems})
            found = sum(t.stem in index.stems for t in words)
            value = found / len(words) if words else 1.0
            out.append(Score(value, {"content_words": len(words), "missing": missing[:20]}))
        return out
