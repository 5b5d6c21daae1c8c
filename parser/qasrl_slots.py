"""The QA-SRL 7-slot question template: vocabulary, validity, parsing raw questions, rendering, roles.

The slot vocabulary is `constrained_decoding`'s qasrl_slots.json (the one the QASem parser decodes with), read
from the installed package folder without importing it (its __init__ pulls torch). Its verb list only holds verbs
seen in training, so the verb slot is checked by grammar instead: an optional QA-SRL verb prefix ("be", "been",
"being", "have", "have been", "not", ...) plus an inflection of a known verb that agrees with the aux slot.
"""
from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from functools import cache, lru_cache
from pathlib import Path

from parser import lexicon
from parser.types import SLOT_NAMES

EMPTY = "_"
DO_AUX = {"did", "does", "didn't", "doesn't"}
BE_AUX = {"is", "was", "isn't", "wasn't"}
HAVE_AUX = {"has", "had", "hasn't", "hadn't"}
MODAL_AUX = {"can", "can't", "might", "should", "shouldn't", "will", "won't", "would", "wouldn't"}

# Verb-slot prefix -> the inflections the following verb may take (QA-SRL's verb slot grammar).
_ANY_NONFINITE = {"present_participle", "past_participle"}
_PREFIXES_AFTER: dict[str, dict[str, set[str]]] = {
    "none": {"": {"past", "present3"}},
    "do": {"": {"stem"}, "not": {"stem"}},
    "be": {"": _ANY_NONFINITE, "being": {"past_participle"}, "not": _ANY_NONFINITE, "not being": {"past_participle"}},
    "have": {
        "": {"past_participle"},
        "been": _ANY_NONFINITE,
        "been being": {"past_participle"},
        "not": {"past_participle"},
        "not been": _ANY_NONFINITE,
    },
    "modal": {
        "": {"stem"},
        "be": _ANY_NONFINITE,
        "be being": {"past_participle"},
        "have": {"past_participle"},
        "have been": _ANY_NONFINITE,
        "not": {"stem"},
        "not be": _ANY_NONFINITE,
        "not have": {"past_participle"},
        "not have been": _ANY_NONFINITE,
    },
}


@cache
def slots_file() -> Path:
    spec = importlib.util.find_spec("constrained_decoding")
    if spec is None or not spec.submodule_search_locations:
        raise lexicon.LexiconUnavailable("the `constrained_decoding` package (qasrl_slots.json) is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "qasrl" / "data" / "qasrl_slots.json"


@cache
def slot_vocabulary() -> dict[str, frozenset[str]]:
    with slots_file().open(encoding="utf-8") as handle:
        data = json.load(handle)
    return {name: frozenset(data[name]) for name in SLOT_NAMES}


def _aux_class(aux: str) -> str:
    if aux == EMPTY:
        return "none"
    if aux in DO_AUX:
        return "do"
    if aux in BE_AUX:
        return "be"
    if aux in HAVE_AUX:
        return "have"
    return "modal"


@lru_cache(maxsize=65536)
def _inflections_of(word: str) -> frozenset[str]:
    """Which inflection names `word` can be, over every verb it may belong to (unknown verbs: regular rules)."""
    stems = set(lexicon.candidate_stems(word)) or {lexicon.verb_stem(word)}
    names = set()
    if word in lexicon.ALTERNATE_PARTICIPLES:
        names.add("past_participle")
    for stem in stems:
        forms = lexicon.verb_forms(stem)
        for name in ("stem", "present3", "present_participle", "past", "past_participle"):
            if getattr(forms, name) == word:
                names.add(name)
    return frozenset(names)


@cache
def _non_verbs() -> frozenset[str]:
    """Words of the other slots (someone, something, is, what, ...) that can never be the verb."""
    vocab = slot_vocabulary()
    words = set()
    for name in ("wh", "aux", "subj", "obj", "obj2"):
        for value in vocab[name]:
            words.update(value.split())
    return frozenset(words - {"do", "doing", "is", "was", "has", "had", "does", "did"} - {EMPTY})


def verb_slot_ok(aux: str, verb: str) -> bool:
    """Does the verb slot (prefix + inflected verb) agree with the aux slot?"""
    words = verb.split()
    if not words:
        return False
    prefix, main = " ".join(words[:-1]), words[-1]
    if main in _non_verbs() or not main.replace("-", "").isalpha():
        return False  # "what did someone?" is no question: a verb of unknown spelling is taken on trust, not these
    allowed = _PREFIXES_AFTER[_aux_class(aux)].get(prefix)
    if allowed is None:
        return False
    return bool(_inflections_of(main) & allowed)


def invalid_reason(slots: tuple[str, ...] | list[str]) -> str | None:
    """Why a 7-slot question is not a valid QA-SRL question, or None when it is."""
    return _invalid_reason(tuple(slots))


@lru_cache(maxsize=65536)
def _invalid_reason(slots: tuple[str, ...]) -> str | None:
    """Cached: the parser asks about the same few thousand questions over and over."""
    if len(slots) != 7:
        return "a QA-SRL question has 7 slots"
    vocab = slot_vocabulary()
    wh, aux, subj, verb, obj, prep, obj2 = slots
    for name, value in (("wh", wh), ("aux", aux), ("subj", subj), ("obj", obj), ("prep", prep), ("obj2", obj2)):
        if value not in vocab[name]:
            return f"{name} slot {value!r} is not in the QA-SRL vocabulary"
    if verb == EMPTY or not verb_slot_ok(aux, verb):
        return f"verb slot {verb!r} does not agree with aux {aux!r}"
    if aux == EMPTY and subj != EMPTY:
        return "a subject slot needs an auxiliary before it"
    return None


def is_valid(slots: tuple[str, ...] | list[str]) -> bool:
    return invalid_reason(slots) is None


@lru_cache(maxsize=65536)
def _render(slots: tuple[str, ...]) -> str:
    words = [s for s in slots if s and s != EMPTY]
    text = " ".join(words)
    return (text[:1].upper() + text[1:] + "?") if text else "?"


def render(slots: tuple[str, ...] | list[str]) -> str:
    """The question text of 7 slots: non-empty slots joined, capitalised, with a question mark."""
    return _render(tuple(slots))


def _slot_readings(tokens: list[str], name: str, pos: int, max_words: int, implicit: bool) -> list[tuple[str, int]]:
    """The values slot `name` can take at `pos` (with where the next slot starts); empty too when implicit."""
    vocab = slot_vocabulary()[name]
    found = []
    for n in range(1, max_words + 1):
        cand = " ".join(tokens[pos : pos + n])
        if pos + n <= len(tokens) and cand in vocab:
            found.append((cand, pos + n))
    if implicit and name != "wh":
        found.append((EMPTY, pos))
    return found


def _tails(tokens: list[str], pos: int, implicit: bool) -> Iterator[tuple[str, str, str]]:
    """Every way the words from `pos` on read as obj, prep, obj2."""
    for obj, p5 in _slot_readings(tokens, "obj", pos, 1, implicit):
        for prep, p6 in _slot_readings(tokens, "prep", p5, 3, implicit):
            for obj2, p7 in _slot_readings(tokens, "obj2", p6, 3, implicit):
                if p7 == len(tokens):
                    yield obj, prep, obj2


def parse_raw_question(raw: str) -> tuple[str, ...] | None:
    """Split a raw question such as 'what did someone _ say _ about _?' into 7 slots.

    The T5 model writes each slot (multi-word ones included) with `_` for empty slots; the verb slot is free text,
    so we place it by matching the vocabulary of the slots around it. A question written without underscores
    ("What did someone jump over?", older checkpoints, people) is split with empty slots allowed anywhere, and
    only a valid split counts there. Returns None when it cannot be split.
    """
    tokens = raw.strip().lower().rstrip("?").strip().split()
    implicit = EMPTY not in tokens
    for wh, p1 in _slot_readings(tokens, "wh", 0, 2, implicit):
        for aux, p2 in _slot_readings(tokens, "aux", p1, 1, implicit):
            for subj, p3 in _slot_readings(tokens, "subj", p2, 1, implicit):
                # the verb takes 1..4 words, the rest must be obj prep obj2
                for p4 in range(p3 + 1, min(p3 + 4, len(tokens)) + 1):
                    verb = " ".join(tokens[p3:p4])
                    if EMPTY in verb.split():
                        continue
                    for obj, prep, obj2 in _tails(tokens, p4, implicit):
                        slots = (wh, aux, subj, verb, obj, prep, obj2)
                        if not implicit or is_valid(slots):
                            return slots
    return None


CORE_WH = {"what", "who"}


def is_passive(slots: tuple[str, ...] | list[str]) -> bool:
    """QA-SRL passive: a be-form (aux or verb prefix) followed by a past participle."""
    aux, verb = slots[1], slots[3]
    words = verb.split()
    if not words:
        return False
    main = words[-1]
    be_before = aux in BE_AUX or (len(words) > 1 and words[-2] in {"be", "been", "being"})
    return be_before and "past_participle" in _inflections_of(main) and not (
        aux in BE_AUX and len(words) == 1 and "present_participle" in _inflections_of(main)
    )


def role_of(slots: tuple[str, ...] | list[str], passive: bool | None = None) -> str:
    return _role_of(tuple(slots), passive)


@lru_cache(maxsize=65536)
def _role_of(slots: tuple[str, ...], passive: bool | None) -> str:
    """He et al. (2015)'s role of a question (R0, R1, R2, R2_<prep>, adjunct wh [_prep]), as QANom evaluates it.

    `passive` overrides voice detection (gold files state it; our slots imply it).
    """
    wh, _aux, subj, _verb, obj, prep, obj2 = (s if s != EMPTY else "" for s in slots)
    wh = wh.lower()

    def r2() -> str:
        return f"R2_{prep}" if prep else "R2"

    if passive is None:
        passive = is_passive(slots)
    if wh in CORE_WH:
        if not passive:
            if not subj:
                return "R0"
            if not obj:
                return "R1"
            return r2()
        if not subj:
            return "R1"
        if prep == "by":
            return "R0"
        return r2()
    if not obj2 and prep:
        return f"{wh}_{prep}"
    return wh
