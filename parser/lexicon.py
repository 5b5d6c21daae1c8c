"""Lexicons read from the installed `qanom` package's resource files (CatVar, noun-verb pairs, verb inflections).

We read the files directly: importing `qanom.candidate_extraction` downloads NLTK data at import time, which fails
offline. `importlib.util.find_spec` locates the package folder without executing its __init__. Every table is
loaded lazily, once per process, and lookups are cached, because the parser calls them per token.
"""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path


class LexiconUnavailable(RuntimeError):
    """The qanom resource files are missing (package not installed)."""


@cache
def resources_dir() -> Path:
    spec = importlib.util.find_spec("qanom")
    if spec is None or not spec.submodule_search_locations:
        raise LexiconUnavailable("the `qanom` package (resource files) is not installed; pip install --no-deps qanom")
    path = Path(next(iter(spec.submodule_search_locations))) / "resources"
    if not path.is_dir():
        raise LexiconUnavailable(f"qanom resources folder missing: {path}")
    return path


@dataclass(frozen=True, slots=True)
class VerbForms:
    """The five QA-SRL inflections of a verb."""

    stem: str
    present3: str  # PresentSingular3rd
    present_participle: str
    past: str
    past_participle: str


_BE = VerbForms("be", "is", "being", "was", "been")
# Participles the wiktionary table files under the wrong verb ("born" -> a verb "born", "bornt").
ALTERNATE_PARTICIPLES: dict[str, str] = {"born": "bear"}


@cache
def _inflection_table() -> tuple[dict[str, VerbForms], dict[str, tuple[str, ...]]]:
    """stem -> forms, and form -> candidate stems (first listed wins: the wiktionary file lists common verbs first)."""
    by_stem: dict[str, VerbForms] = {}
    by_form: dict[str, list[str]] = {}
    path = resources_dir() / "wiktionary" / "en_verb_inflections.txt"
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5 or not parts[0] or parts[0][0] == "'":
                continue
            forms = VerbForms(*(p.lower() for p in parts))
            by_stem.setdefault(forms.stem, forms)
            for form in parts:
                stems = by_form.setdefault(form.lower(), [])
                if forms.stem not in stems:
                    stems.append(forms.stem)
    by_stem["be"] = _BE
    for participle, stem in ALTERNATE_PARTICIPLES.items():
        by_form[participle] = [stem]
    for form in ("be", "is", "are", "am", "was", "were", "been", "being"):
        by_form[form] = ["be"]
    return by_stem, {k: tuple(v) for k, v in by_form.items()}


def _regular_forms(stem: str) -> VerbForms:
    """Inflect a verb the lexicon does not know by the regular English rules."""
    if stem.endswith("e") and not stem.endswith("ee"):
        ing, ed = stem[:-1] + "ing", stem + "d"
    elif re.search(r"[^aeiou]y$", stem):
        ing, ed = stem + "ing", stem[:-1] + "ied"
    else:
        ing, ed = stem + "ing", stem + "ed"
    if re.search(r"(s|sh|ch|x|z|o)$", stem):
        third = stem + "es"
    elif re.search(r"[^aeiou]y$", stem):
        third = stem[:-1] + "ies"
    else:
        third = stem + "s"
    return VerbForms(stem, third, ing, ed, ed)


@lru_cache(maxsize=65536)
def verb_forms(stem: str) -> VerbForms:
    """Inflections of `stem` (lexicon first, regular rules otherwise)."""
    stem = stem.lower()
    by_stem, _ = _inflection_table()
    return by_stem.get(stem) or _regular_forms(stem)


def candidate_stems(form: str) -> tuple[str, ...]:
    """Every known verb `form` can inflect (empty when the table does not know the form)."""
    return _inflection_table()[1].get(form.lower(), ())


def is_known_verb(stem: str) -> bool:
    return stem.lower() in _inflection_table()[0]


@lru_cache(maxsize=65536)
def verb_stem(form: str, tag: str = "") -> str:
    """The stem of an inflected verb form; `tag` (Penn) breaks ties such as 'saw' (see/saw) or 'found'.

    When several verbs have the form in the tag's slot ('went': go, and the dialect verb gan), the one CatVar
    counts most often wins: the wiktionary file is alphabetical, so its first stem is no better than any.
    spaCy's lemmatizer is not used: it costs a fifth of the pipeline and has oddities (gutted -> gutte).
    """
    word = form.lower()
    _, by_form = _inflection_table()
    stems = by_form.get(word)
    if stems:
        if len(stems) > 1 and tag:
            by_stem = _inflection_table()[0]
            wanted = {"VBD": "past", "VBN": "past_participle", "VBG": "present_participle", "VBZ": "present3"}.get(tag)
            fitting = [s for s in stems if (f := by_stem.get(s)) and (getattr(f, wanted) == word if wanted else f.stem == word)]
            if fitting:
                counts = _verb_counts()
                return max(fitting, key=lambda s: counts.get(s, 0))
        return stems[0]
    return _regular_stem(word, by_form)


def _regular_stem(word: str, by_form: dict[str, tuple[str, ...]]) -> str:
    """Undo regular morphology for a form the table does not know."""
    for suffix, repl in (("ying", "y"), ("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            base = word[: -len(suffix)] + repl
            if base in by_form:
                return by_form[base][0]
            if suffix in ("ing", "ed") and base + "e" in by_form:
                return by_form[base + "e"][0]
            if suffix in ("ing", "ed") and len(base) > 2 and base[-1] == base[-2]:
                return base[:-1]
            return base
    return word


# ---------------------------------------------------------------------------------------------- nominalizations


def _catvar_clusters() -> list[tuple[list[str], dict[str, int]]]:
    """CatVar 2.1 clusters: (nouns, verb -> corpus count)."""
    clusters = []
    path = resources_dir() / "catvar" / "catvar21.signed"
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            nouns: list[str] = []
            verbs: dict[str, int] = {}
            for entry in line.strip().split("#"):
                word, _, rest = entry.partition("_")
                pos, _, count = rest.partition("%")
                if pos == "N":
                    nouns.append(word.lower())
                elif pos == "V":
                    verbs[word.lower()] = max(verbs.get(word.lower(), 0), int(count) if count.isdigit() else 0)
            if verbs:
                clusters.append((nouns, verbs))
    return clusters


@cache
def _verb_counts() -> dict[str, int]:
    """How often CatVar counts each verb (its highest count over clusters)."""
    counts: dict[str, int] = {}
    for _, verbs in _catvar_clusters():
        for verb, n in verbs.items():
            counts[verb] = max(counts.get(verb, 0), n)
    return counts


def _shared_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@cache
def _catvar_noun_to_verb() -> dict[str, str]:
    """Each CatVar noun -> the verb of its cluster it is built on: the longest shared prefix, then the most frequent.

    A cluster gathers a whole family (commit, commission, commitment, committee): the most frequent verb alone
    would make 'commitments' a nominalization of 'commission'. Rare verbs (under a tenth of the cluster's most
    frequent) are passed over, or 'destruction' would come from 'destruct' rather than 'destroy'.
    """
    table: dict[str, tuple[int, int, str]] = {}
    for nouns, verbs in _catvar_clusters():
        top = max(verbs.values())
        common = {v: n for v, n in verbs.items() if n * 10 >= top} or verbs
        for noun in nouns:
            verb, count = max(common.items(), key=lambda kv: (_shared_prefix(noun, kv[0]), kv[1]))
            rank = (_shared_prefix(noun, verb), count)
            if noun not in table or table[noun][:2] < rank:
                table[noun] = (*rank, verb)
    return {noun: verb for noun, (_, _, verb) in table.items()}


@cache
def _pairs_noun_to_verb() -> dict[str, str]:
    """qanom's heuristic noun-verb pairs (derived by suffix rules over a verb list)."""
    table: dict[str, str] = {}
    path = resources_dir() / "verb-to-nom-heuristic" / "nom_verb_pairs.txt"
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            noun, _, verb = line.rstrip("\n").partition("\t")
            if verb:
                table.setdefault(noun.lower(), verb.lower())
    return table


@lru_cache(maxsize=65536)
def nominalization_verb(noun: str, use_pairs: bool = True) -> str | None:
    """The verb a (possibly plural) noun derives from, or None: CatVar first, then the heuristic pairs."""
    word = noun.lower()
    catvar = _catvar_noun_to_verb()
    candidates = [word]
    if word.endswith("ies"):
        candidates.append(word[:-3] + "y")
    if word.endswith("es"):
        candidates.append(word[:-2])
    if word.endswith("s"):
        candidates.append(word[:-1])
    for cand in candidates:
        verb = catvar.get(cand)
        if verb and verb != cand or (verb and is_known_verb(verb)):
            return verb
    if use_pairs:
        pairs = _pairs_noun_to_verb()
        for cand in candidates:
            verb = pairs.get(cand)
            if verb and is_known_verb(verb):
                return verb
    return None


def warm() -> None:
    """Load every table now (workers and benchmarks: the first parse should not pay for it)."""
    _inflection_table()
    _catvar_noun_to_verb()
    _verb_counts()
    _pairs_noun_to_verb()
