"""Eventive-noun detection by a trained logistic regression over spaCy and lexicon features.

Candidates are common nouns the lexicons (CatVar, qanom's noun-verb pairs) link to a verb, as in QANom; the
model, trained on the QANom train split (parser/training/train_nominal_detector.py), gives each candidate the
probability that it denotes an event. The artefact is plain JSON (feature -> weight, the intercept, the
decision threshold chosen by cross-validation on train), read once, versioned with the code: no pickle, no
download. Features are strings, so the same function serves training and parsing.
"""
from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Token as SpacyToken

from parser import lexicon
from parser.embedded import words as W
from parser.embedded.linear import DATA_DIR, LinearModel, ModelUnavailable, load_linear
from parser.embedded.syntax import NOUN_TAGS, PROPER_TAGS
from parser.embedded.wordclass import is_person

MODEL_PATH = DATA_DIR / "nominal_detector.json"
FEATURE_VERSION = 1
_CONTEXT_DEPS = frozenset({"det", "poss", "amod", "compound", "nummod", "acl", "relcl", "prep", "appos", "conj", "nmod"})


def candidate_verb(tok: SpacyToken) -> str | None:
    """The verb a common noun derives from (lexicons), or None when the noun is no candidate."""
    if tok.tag_ not in NOUN_TAGS or not tok.is_alpha or len(tok.text) < 3:
        return None
    return lexicon.nominalization_verb(tok.lower_)


def _singular(tok: SpacyToken) -> str:
    low = tok.lower_
    if tok.tag_ == "NNS" and low.endswith("s") and len(low) > 3:
        return low[:-3] + "y" if low.endswith("ies") else low[:-1]
    return low


def _word_class(low: str, tok: SpacyToken) -> str:
    if low in W.TIME_NOUNS:
        return "time"
    if low in W.PLACE_NOUNS:
        return "place"
    if low in W.PERSON_NOUNS or is_person(tok):
        return "person"
    return "other"


def features(tok: SpacyToken, verb: str) -> list[str]:
    """The feature strings of one noun candidate: the word, its verb, its shape and its syntactic context."""
    low = tok.lower_
    sing = _singular(tok)
    head = tok.head
    feats = [
        "bias", f"w={sing}", f"v={verb}", f"tag={tok.tag_}", f"s3={sing[-3:]}", f"s4={sing[-4:]}",
        f"dep={tok.dep_}", f"class={_word_class(low, tok)}",
        f"zero={sing == verb}", f"catvar={lexicon.nominalization_verb(low, use_pairs=False) is not None}",
    ]
    if head is not tok:
        feats.append(f"hdep={tok.dep_}:{head.tag_}")
        if tok.dep_ == "pobj":
            feats.append(f"hprep={head.lower_}")
            if head.head is not head:
                feats.append(f"hprep_tag={head.lower_}:{head.head.tag_[:2]}")
        elif tok.dep_ in {"dobj", "nsubj", "nsubjpass", "attr"}:
            feats.append(f"hverb={lexicon.verb_stem(head.lower_, head.tag_) if head.tag_.startswith('VB') else head.lower_}")
    kids = [c for c in tok.children if c.dep_ in _CONTEXT_DEPS]
    feats.append(f"nkids={min(len(kids), 3)}")
    for c in kids:
        if c.dep_ == "prep":
            feats.append(f"prep={c.lower_}")
            feats.append(f"w+prep={sing}:{c.lower_}")
        elif c.dep_ == "det":
            feats.append(f"det={c.lower_}")
        elif c.dep_ in {"compound", "amod", "nmod"}:
            feats.append(f"{c.dep_}_tag={c.tag_}")
            if c.tag_ not in PROPER_TAGS:
                feats.append(f"{c.dep_}={c.lower_}")
        else:
            feats.append(f"kid={c.dep_}")
    doc = tok.doc
    prev = doc[tok.i - 1].lower_ if tok.i > 0 else "<s>"
    nxt = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else "</s>"
    feats += [f"l1={prev}", f"r1={nxt}"]
    return feats


@dataclass(frozen=True)
class NominalDetector:
    """The trained model and the threshold above which a candidate noun is an event."""

    model: LinearModel

    @property
    def threshold(self) -> float:
        return self.model.threshold

    @property
    def weights(self) -> dict[str, float]:
        return self.model.weights

    def probability(self, tok: SpacyToken, verb: str) -> float:
        """P(eventive) of a candidate noun."""
        return self.model.probability(features(tok, verb))


DetectorUnavailable = ModelUnavailable


def load_detector(path: str | None = None) -> NominalDetector:
    """The detector in `path` (default: the versioned artefact), read once per process."""
    return NominalDetector(load_linear(str(path or MODEL_PATH), FEATURE_VERSION))
