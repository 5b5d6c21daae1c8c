"""Text as people wrote it: tokenized imports shown detokenized, with token offsets into the shown text.

The QASemConsistency release (and the demo built from it) store a text as its tokens joined by single spaces
("Riverton 's $ 4 million in March ."). Workers are shown sacremoses' Moses detokenization of those tokens
("Riverton's $4 million in March."), with two additions Moses lacks: PTB contractions ("are n't" -> "aren't")
and hyphens inside a word ("24 - year - old" -> "24-year-old"); whitespace tokens (the release keeps "\\n") are
kept as they are. Each token keeps its index and gets its offsets in the shown text, so highlights, spans and
labels (all token indices) are unchanged.

Why at payload time, not at import: nothing stored changes, so the round-trip exports stay byte-identical
without a second copy of every text, and projects imported before this change are shown the same way. The
cost is one detokenization per response served (well under a millisecond for a summary). Texts that are not
in that tokenized form (import_items, FActScore, parsed plain text) are left exactly as they are.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

_WORD = re.compile(r"^[^\W_]+$")
_CONTRACTIONS = {"n't", "N'T"}


@functools.lru_cache(maxsize=1)
def _moses() -> Any:
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="en")


def _token_texts(tokens: Sequence[Any]) -> list[str]:
    return [str(t[0]) if isinstance(t, list | tuple) else str(t) for t in tokens]


def is_space_joined(text: str, tokens: Sequence[Any]) -> bool:
    """Whether `text` is exactly its tokens joined by single spaces (the tokenized-import form)."""
    words = _token_texts(tokens)
    return bool(words) and len(words) > 1 and text == " ".join(words)


def _glue_flags(words: list[str]) -> list[bool]:
    """Per token: whether it joins the previous one without a space (Moses plus the additions above)."""
    glue = [False] * len(words)
    runs: list[tuple[int, int]] = []
    start = 0
    for i, w in enumerate(words + [" "]):
        if not w.strip():  # a whitespace token: runs of real tokens are detokenized on their own
            if i > start:
                runs.append((start, i))
            start = i + 1
    for a, b in runs:
        out = _moses().detokenize(words[a:b], unescape=False)
        pos = 0
        for i in range(a, b):
            at = out.find(words[i], pos)
            if at < 0 or out[pos:at].strip():  # Moses changed a token: keep this run's original spacing
                for k in range(a, b):
                    glue[k] = False
                break
            glue[i] = i > a and at == pos
            pos = at + len(words[i])
        for i in range(a + 1, b):
            if words[i] in _CONTRACTIONS:
                glue[i] = True
            if (words[i] == "-" and 0 < i - a and i + 1 < b and _WORD.match(words[i - 1]) and _WORD.match(words[i + 1])
                    and not glue[i]):
                glue[i] = glue[i + 1] = True
    return glue


def detokenize(tokens: Sequence[Any]) -> tuple[str, list[tuple[int, int]]]:
    """(shown text, [(char_start, char_end) per token]) for a token list."""
    text, offsets = _detokenized(tuple(_token_texts(tokens)))
    return text, list(offsets)


@functools.lru_cache(maxsize=512)  # about the texts of the units in flight at 100 annotators (2 responses a unit)
def _detokenized(words_key: tuple[str, ...]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """detokenize, remembered per token sequence: a unit's texts are shown to every worker of the unit (each GET
    of the annotator's hot path). Keyed on the words themselves, so a changed text is a new key, never stale."""
    words = list(words_key)
    glue = _glue_flags(words)
    parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    for i, w in enumerate(words):
        blank = not w.strip()
        previous_blank = i > 0 and not words[i - 1].strip()
        if i > 0 and not glue[i] and not blank and not previous_blank:
            parts.append(" ")
            pos += 1
        parts.append(w)
        offsets.append((pos, pos + len(w)))
        pos += len(w)
    return "".join(parts), tuple(offsets)


class Display:
    """How one response (or source) is shown: its text and token offsets, and span texts from them."""

    def __init__(self, text: str, tokens: Sequence[Any]):
        self.tokens = list(tokens or [])
        self.changed = is_space_joined(text, self.tokens)
        if self.changed:
            self.text, self.offsets = detokenize(self.tokens)
        else:
            self.text = text
            self.offsets = [(int(t[1]), int(t[2])) if isinstance(t, list | tuple) and len(t) >= 3 else (0, 0)
                            for t in self.tokens]

    def token_rows(self) -> list[list]:
        return [[w, a, b] for w, (a, b) in zip(_token_texts(self.tokens), self.offsets, strict=True)]

    def shown(self) -> dict[str, Any]:
        """{text, tokens: [[word, start, end]]}: what a screen (the element, the dashboard) highlights tokens in."""
        return {"text": self.text, "tokens": self.token_rows()}

    def span(self, start: Any, end: Any, fallback: str) -> str:
        """The shown text of tokens [start, end); `fallback` (the stored text) when not detokenized."""
        if not self.changed or not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < end <= len(
            self.offsets
        ):
            return fallback
        return self.text[self.offsets[start][0] : self.offsets[end - 1][1]]

    def sentence(self, row: dict) -> str:
        return self.span(row.get("start"), row.get("end"), row.get("text", ""))


@functools.lru_cache(maxsize=8192)
def question(text: str) -> str:
    """A tokenized question as written ("Who said something ?" -> "Who said something?"); remembered per text
    (many QAs share a question, and every worker of a unit is shown the same ones)."""
    words = text.split(" ")
    if len(words) < 2 or not any(w in {"?", ",", "'s", "n't", "."} for w in words):
        return text
    return detokenize(words)[0]
