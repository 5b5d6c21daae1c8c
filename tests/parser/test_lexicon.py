"""Lexicons read from qanom's resource files (CatVar, noun-verb pairs, wiktionary inflections)."""
from __future__ import annotations

import sys

from parser import lexicon


def test_nominalizations_from_catvar() -> None:
    assert lexicon.nominalization_verb("examination") == "examine"
    assert lexicon.nominalization_verb("death") == "die"
    assert lexicon.nominalization_verb("crucifixions") == "crucify"
    assert lexicon.nominalization_verb("table") is None or lexicon.nominalization_verb("table") == "table"
    assert lexicon.nominalization_verb("xqzv") is None


def test_verb_stems_and_inflections() -> None:
    assert lexicon.verb_stem("shot", "VBN") == "shoot"
    assert lexicon.verb_stem("saw", "VBD") == "see"
    assert lexicon.verb_stem("recovering") == "recover"
    assert lexicon.verb_stem("gutted", "VBD") == "gut"  # spaCy's lemmatizer says "gutte"
    assert lexicon.verb_stem("born", "VBN") == "bear"
    forms = lexicon.verb_forms("go")
    assert (forms.present3, forms.present_participle, forms.past, forms.past_participle) == ("goes", "going", "went", "gone")
    assert lexicon.verb_forms("be").present3 == "is"
    # a verb the table lacks is inflected by rule
    assert lexicon.verb_forms("blorf").past == "blorfed"


def test_reading_resources_does_not_import_qanom() -> None:
    """qanom.candidate_extraction downloads NLTK data on import; we only read files."""
    lexicon.nominalization_verb("attack")
    assert "qanom" not in sys.modules
    assert "qanom.candidate_extraction" not in sys.modules
