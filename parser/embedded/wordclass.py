"""Semantic classes of tokens (person, time, place, duration, amount) that choose the wh-word and the filler."""
from __future__ import annotations

from functools import lru_cache

from parser import lexicon
from parser.embedded import words as W
from parser.embedded.syntax import NOUN_TAGS, PROPER_TAGS
from parser.embedded.view import TokenView


def is_person(tok: TokenView) -> bool:
    """Cached per token: the same subject is asked about for every predicate it belongs to."""
    if type(tok) is TokenView:
        found = tok.person_
        if found is None:
            found = tok.person_ = _is_person(tok)
        return found
    cache = tok.doc.user_data.setdefault("_factcrowd_person", {})
    key = ("person", tok.i)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _is_person(tok)
    return found


def _is_person(tok: TokenView) -> bool:
    low = tok.lower_
    if tok.tag_ in {"PRP", "WP"}:
        return low in W.PERSON_PRONOUNS
    if low in W.PERSON_NOUNS:
        return True
    if tok.tag_ in PROPER_TAGS:
        return not (tok.n_lefts or tok.n_rights) or not any(c.lower_ in W.PLACE_NOUNS for c in tok.children)
    if tok.tag_ in NOUN_TAGS and len(low) > 5:
        return _person_suffix(low)
    return False


@lru_cache(maxsize=65536)
def _person_suffix(low: str) -> bool:
    """-ist / -ian nouns, and -er / -or nouns of a known verb (commentator, organiser)."""
    for suffix in ("ist", "ists", "ian", "ians"):
        if low.endswith(suffix):
            return True
    for suffix, cut in (("ers", 3), ("er", 2), ("ors", 3), ("or", 2)):
        if low.endswith(suffix) and lexicon.is_known_verb(low[:-cut]) and len(low) - cut > 3:
            return True
    return False


def filler(tok: TokenView | None) -> str:
    return "someone" if tok is not None and is_person(tok) else "something"


def core_wh(tok: TokenView) -> str:
    return "who" if is_person(tok) else "what"


def is_time(tok: TokenView) -> bool:
    """Cached per token of a view: the same heads are classed for every question and answer they head."""
    if type(tok) is not TokenView:
        return _is_time(tok)
    found = tok.time_
    if found is None:
        found = tok.time_ = _is_time(tok)
    return found


def _is_time(tok: TokenView) -> bool:
    low = tok.lower_
    if low in W.TIME_NOUNS:
        return True
    if tok.tag_ == "CD" and len(low) == 4 and low.isdigit() and 1000 <= int(low) <= 2100:
        return True
    if not (tok.n_lefts or tok.n_rights):  # no dependents: skip spaCy's scan for them
        return False
    return any(c.lower_ in W.TIME_NOUNS or c.lower_ == "ago" for c in tok.children if c.dep_ in {"compound", "amod", "npadvmod", "advmod"})


def is_place(tok: TokenView) -> bool:
    return tok.lower_ in W.PLACE_NOUNS or (tok.tag_ in PROPER_TAGS and tok.dep_ == "pobj")


def is_duration(tok: TokenView) -> bool:
    return tok.lower_ in W.DURATION_UNITS and any(c.tag_ == "CD" or c.lower_ in {"several", "many", "few", "a"} for c in tok.children)


def is_amount(tok: TokenView) -> bool:
    return tok.tag_ == "CD" or tok.lower_ in {"%", "percent", "million", "billion"} or bool(tok.n_lefts or tok.n_rights) and any(
        c.tag_ == "CD" for c in tok.children if c.dep_ in {"nummod", "compound", "quantmod"}
    )
