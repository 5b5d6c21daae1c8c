"""Passages from a knowledge source for a fact: chunking, BM25 ranking (rank-bm25) and matched-word offsets.

FActScore's estimator retrieves passages of the topic's Wikipedia page with the topic and the fact as the query,
then verifies the fact against them; the same passages are what an annotator should see. Words are the stems of
scoring/text.py, stop words dropped, so "studied" in a fact finds "studies" in a passage, for the ranking and
for the highlighted words alike.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotation_tasks.scoring.text import content_stems, sentences, tokens

PASSAGE_WORDS = 256  # FActScore's passage length
TOP_K = 5


def _bm25_version() -> str:
    from importlib.metadata import version

    return version("rank-bm25")


def retriever_name(k: int = TOP_K) -> str:
    """Stored with every retrieval, so passages of another retriever or k never mix with these."""
    return f"bm25:rank-bm25-{_bm25_version()}:k{k}"


def chunk_document(text: str, words: int = PASSAGE_WORDS) -> list[str]:
    """The document as passages of whole sentences, at most `words` words each (a longer sentence is cut)."""
    out: list[str] = []
    current: list[str] = []
    for start, end in sentences(text):
        sentence = text[start:end].split()
        while len(sentence) > words:  # one overlong sentence (a table, a list): cut it
            if current:
                out.append(" ".join(current))
                current = []
            out.append(" ".join(sentence[:words]))
            sentence = sentence[words:]
        if current and len(current) + len(sentence) > words:
            out.append(" ".join(current))
            current = []
        current += sentence
    if current:
        out.append(" ".join(current))
    return out


def query_terms(text: str) -> list[str]:
    return content_stems(tokens(text))


@dataclass
class BM25Index:
    """BM25 (Okapi) over a list of passages; `top` ranks them for a query."""

    passages: Sequence[str]

    def __post_init__(self) -> None:
        from rank_bm25 import BM25Okapi

        corpus = [query_terms(p) or ["\u0000empty"] for p in self.passages]
        self._bm25 = BM25Okapi(corpus) if corpus else None

    def top(self, query: str, k: int = TOP_K) -> list[tuple[int, float]]:
        """(passage index, BM25 score) of the k best passages, best first; passages sharing no word are left out."""
        terms = query_terms(query)
        if self._bm25 is None or not terms:
            return []
        scores = self._bm25.get_scores(terms)
        ranked = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        found = set(terms)
        hits = [(i, float(scores[i])) for i in ranked if found & set(query_terms(self.passages[i]))]
        return hits[:k]


def matched_offsets(passage: str, query: str) -> list[tuple[int, int]]:
    """Character [start, end) offsets of the passage's words that match a content word of the query (by stem):
    what the reference panel marks."""
    wanted = set(query_terms(query))
    return [(t.start, t.end) for t in tokens(passage) if t.is_content and t.stem in wanted]
