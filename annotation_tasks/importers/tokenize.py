"""A deliberately simple regex tokenizer with character offsets (the parser re-tokenizes when it parses).

Words, numbers with inner punctuation (3.5, 1,000), contractions split English-style (do|n't), and any
other non-space character alone. Sentences end at . ! ? followed by space and an upper-case letter,
digit or quote, or at a newline.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

TOKEN = re.compile(r"\w+(?=n't\b)|n't\b|'\w+\b|\w+(?:[.,:'-]\w+)*|\S", re.UNICODE)
SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def tokenize(text: str) -> list[list]:
    """[[token, char_start, char_end], ...] over text."""
    return [[m.group(), m.start(), m.end()] for m in TOKEN.finditer(text)]


def split_sentences(text: str, tokens: Sequence[Sequence]) -> list[dict]:
    """[{"start", "end", "text"}] with token indices [start, end) and the sentence's text."""
    starts = [t[1] for t in tokens]
    out: list[dict] = []
    begin_char = 0
    bounds = [m.end() for m in SENTENCE_END.finditer(text)] + [len(text)]
    for end_char in bounds:
        a = bisect.bisect_left(starts, begin_char)
        b = bisect.bisect_left(starts, end_char)
        if b > a:
            out.append({"start": a, "end": b, "text": text[tokens[a][1] : tokens[b - 1][2]]})
        begin_char = end_char
    return out


def sentence_token_ranges(text: str, tokens: Sequence[Sequence], sentences: Sequence[str]) -> list[tuple[int, int] | None]:
    """Token range of each given sentence text found in order in text; None where it is not found verbatim."""
    starts = [t[1] for t in tokens]
    ends = [t[2] for t in tokens]
    out: list[tuple[int, int] | None] = []
    cursor = 0
    for sentence in sentences:
        at = text.find(sentence, cursor) if sentence else -1
        if at < 0:
            out.append(None)
            continue
        a = bisect.bisect_left(starts, at)
        b = bisect.bisect_right(ends, at + len(sentence))
        out.append((a, b) if b > a else None)
        cursor = at + len(sentence)
    return out
