"""Word-level text handling shared by the lexical scorers and the BM25 retrieval: tokens, stems, kinds of words.

Pure Python (no spaCy, no model): scoring a project of a million QAs must not wait for a parser, and the same
normalisation has to be used when the embedded model is trained and when it scores. Stems come from a small
suffix stripper, enough to match "finished" with "finishing" or "studies" with "study"; it is not Porter.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# Numbers keep inner separators (5,000 / 14.52 / 1,846); words keep inner apostrophes and hyphens.
TOKEN = re.compile(
    r"\d+(?:[.,:]\d+)*|[^\W\d_]+?(?=n['’]t\b)|n['’]t\b|[^\W\d_]+(?:['’\-][^\W\d_]+)*", re.UNICODE
)

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about as than so that
    this these those there here it its it's he she they we you i me him her them us my your his their our
    is are was were be been being am do does did done doing have has had having will would shall should can could
    may might must also just only very too not no nor n't any some such own same other each all both few more most
    what who whom whose which when where why how whether while during before after again further once up down out off
    s 's 've 're 'd 'll someone something somewhere somebody anyone anything one ones""".split()
)
NEGATIONS = frozenset({"not", "n't", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot"})
PRONOUNS = frozenset(
    "i me my mine we us our ours you your yours he him his she her hers it its they them their theirs this that "
    "these those who whom which someone something".split()
)
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
NUMBER_WORDS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20", "hundred": "100",
    "first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th", "sixth": "6th",
}
_SUFFIXES = (("ational", "ate"), ("ization", "ize"), ("fulness", "ful"), ("ousness", "ous"), ("iveness", "ive"),
             ("ments", ""), ("ement", ""), ("ities", ""), ("ness", ""), ("ment", ""), ("ings", ""), ("ally", "al"),
             ("ies", "i"), ("ied", "i"), ("ing", ""), ("ers", ""), ("ed", ""), ("es", ""), ("er", ""), ("ly", ""),
             ("y", "i"), ("s", ""))


@dataclass(frozen=True)
class Token:
    """A word of a text: surface form, lower-cased form, stem, and its character offsets."""

    text: str
    lower: str
    stem: str
    start: int
    end: int

    @property
    def is_number(self) -> bool:
        return self.lower[0].isdigit() or self.lower in NUMBER_WORDS

    @property
    def is_content(self) -> bool:
        return self.lower not in STOPWORDS and len(self.lower) > 1 or self.lower[0].isdigit()

    @property
    def is_capitalised(self) -> bool:
        return self.text[0].isupper()


def stem(word: str) -> str:
    """A crude stem: lower-cased, number words as digits, one common suffix stripped (keeping 3+ letters)."""
    word = word.lower().replace("’", "'")
    if word in NUMBER_WORDS:
        return NUMBER_WORDS[word]
    if word[0].isdigit():
        return word.replace(",", "")
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":  # stopped → stopp → stop
        word = word[:-1]
    return word.rstrip("e") if len(word) > 3 else word


def tokens(text: str) -> list[Token]:
    """The words of `text` with offsets (punctuation dropped)."""
    out = []
    for m in TOKEN.finditer(text):
        word = m.group(0)
        lower = word.lower().replace("’", "'")
        out.append(Token(word, lower, stem(word) if lower != "n't" else "not", m.start(), m.end()))
    return out


def content_stems(words: Iterable[Token]) -> list[str]:
    """Stems of the content words, in order, repeats kept."""
    return [t.stem for t in words if t.is_content]


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9])|\n+")


def sentences(text: str) -> list[tuple[int, int]]:
    """Character ranges of sentences (a rule split on end punctuation and line breaks: good enough for windows)."""
    ranges, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.start() > start:
            ranges.append((start, m.start()))
        start = m.end()
    if start < len(text):
        ranges.append((start, len(text)))
    return ranges


def fold_title(title: str) -> str:
    """A title as topic matching compares it: accents removed (NFKD, combining marks dropped), case folded,
    runs of spaces collapsed, so "Jose Sanchez del Rio" finds "José Sánchez del Río"."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", title)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())
