"""Eventive-noun detection by a trained logistic regression over spaCy and lexicon features.

Candidates are common nouns the lexicons (CatVar, qanom's noun-verb pairs) link to a verb, as in QANom; the
model, trained on the QANom train split (parser/training/train_nominal_detector.py), gives each candidate the
probability that it denotes an event. The artefact is plain JSON (feature -> weight, the intercept, the
decision threshold chosen by cross-validation on train), read once, versioned with the code: no pickle, no
download. Features are strings, so the same function serves training and parsing.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

from spacy.tokens import Token as SpacyToken

from parser import lexicon
from parser.embedded import words as W
from parser.embedded.linear import DATA_DIR, LinearModel, ModelUnavailable, load_linear
from parser.embedded.scoring import interned, probability
from parser.embedded.syntax import NOUN_TAGS, PROPER_TAGS
from parser.embedded.view import as_view
from parser.embedded.viewbuild import TokenView
from parser.embedded.wordclass import is_person

MODEL_PATH: Final = DATA_DIR / "nominal_detector.json"
FEATURE_VERSION: Final = 1
_CONTEXT_DEPS: Final = frozenset({"det", "poss", "amod", "compound", "nummod", "acl", "relcl", "prep", "appos", "conj", "nmod"})


def candidate_verb(tok: TokenView) -> str | None:
    """The verb a common noun derives from (lexicons), or None when the noun is no candidate."""
    if tok.tag_ not in NOUN_TAGS or not tok.is_alpha or len(tok.text) < 3:
        return None
    return lexicon.nominalization_verb(tok.lower_)


def _singular(low: str, tag: str) -> str:
    if tag == "NNS" and low.endswith("s") and len(low) > 3:
        return low[:-3] + "y" if low.endswith("ies") else low[:-1]
    return low


def _word_class(low: str, tok: TokenView) -> str:
    if low in W.TIME_NOUNS:
        return "time"
    if low in W.PLACE_NOUNS:
        return "place"
    if low in W.PERSON_NOUNS or is_person(tok):
        return "person"
    return "other"


def features(tok: TokenView | SpacyToken, verb: str) -> list[str]:
    """_features for a view's or a spaCy token (training)."""
    return _features(as_view(tok), verb)


def _features(tok: TokenView, verb: str) -> list[str]:
    """The feature strings of one noun candidate: the word, its verb, its shape and its syntactic context."""
    low, tag, dep = tok.lower_, tok.tag_, tok.dep_
    sing = _singular(low, tag)
    head = tok.head
    key = (low, tag, dep, verb, _word_class(low, tok))
    word = _WORD_PARTS.get(key)
    if word is None:  # the features of the word itself: the same few thousand nouns recur
        if len(_WORD_PARTS) >= _PARTS_CAP:
            _WORD_PARTS.clear()
        word = _WORD_PARTS[key] = interned((
            "bias", f"w={sing}", f"v={verb}", f"tag={tag}", f"s3={sing[-3:]}", f"s4={sing[-4:]}",
            f"dep={dep}", f"class={key[4]}",
            f"zero={sing == verb}", f"catvar={lexicon.nominalization_verb(low, False) is not None}",
        ))
    feats = list(word)
    i = tok.i
    head_tag = head.tag_
    feats.append(f"hdep={dep}:{head_tag}")  # the root is its own head: "hdep=ROOT:NN"
    if dep == "pobj":
        head_low = head.lower_
        feats.append(f"hprep={head_low}")
        feats.append(f"hprep_tag={head_low}:{head.head.tag_[:2]}")
    elif dep in {"dobj", "nsubj", "nsubjpass", "attr"}:
        feats.append(f"hverb={lexicon.verb_stem(head.lower_, head_tag) if head_tag.startswith('VB') else head.lower_}")
    kids = 0
    for c in tok.children:
        cdep = c.dep_
        if cdep not in _CONTEXT_DEPS:
            continue
        kids += 1
        if cdep == "prep":
            clow = c.lower_
            feats.append(f"prep={clow}")
            feats.append(f"w+prep={sing}:{clow}")
        elif cdep == "det":
            feats.append(f"det={c.lower_}")
        elif cdep in {"compound", "amod", "nmod"}:
            ctag = c.tag_
            feats.append(f"{cdep}_tag={ctag}")
            if ctag not in PROPER_TAGS:
                feats.append(f"{cdep}={c.lower_}")
        else:
            feats.append(f"kid={cdep}")
    feats.append(f"nkids={min(kids, 3)}")
    doc = tok.doc
    feats.append(f"l1={doc[i - 1].lower_}" if i > 0 else "l1=<s>")
    feats.append(f"r1={doc[i + 1].lower_}" if i + 1 < len(doc) else "r1=</s>")
    return feats


# (word, tag, relation, verb, word class) -> _features' first ten, interned (scoring.interned) as the model's
# feature names are: built once per noun reading rather than per candidate (ten f-strings and a lexicon call)
_WORD_PARTS: Final[dict[tuple[str, str, str, str, str], tuple[str, ...]]] = {}
_PARTS_CAP: Final = 1 << 16


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

    def probability(self, tok: TokenView, verb: str) -> float:
        """P(eventive) of a candidate noun."""
        model = self.model
        return probability(model.weights, _features(tok, verb), model.intercept)  # compiled, as LinearModel's


DetectorUnavailable = ModelUnavailable


@cache  # called for every candidate noun: build the detector once
def load_detector(path: str | None = None) -> NominalDetector:
    """The detector in `path` (default: the versioned artefact), read once per process."""
    return NominalDetector(load_linear(str(path or MODEL_PATH), FEATURE_VERSION))
