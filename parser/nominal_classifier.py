"""Eventive-noun detection with a `kleinay/nominalization-candidate-classifier`-format token classifier.

As qasem_parser 1.1.16's BertPredicateDetector (the parser the QASem papers used) does it: the sentence's words
go to the classifier unsplit and untruncated; the probability of label "True" (id 0 in the release) is the
softmax over the two logits; a word is an eventive noun when a sub-token of it scores above 0.75 and spaCy tags
it NN or NNS; the caller then keeps the nouns the lexicons give a verb form (the package's verb-form filter).
Loaded from a local directory only, lazily.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

COMMON_NOUNS = frozenset({"NN", "NNS"})
DEFAULT_THRESHOLD = 0.75  # qasem_parser's _DEFAULT_NOMINAL_THRESHOLD


class NominalizationClassifier:
    def __init__(self, model_dir: str, device: str | None = None, threshold: float = DEFAULT_THRESHOLD,
                 batch_size: int = 32):
        self.model_dir = model_dir
        self.device = device
        self.threshold = threshold
        self.batch_size = batch_size
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        if self._model is not None:
            return
        import torch
        from transformers import AutoModelForTokenClassification, AutoTokenizer

        self.device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        self._tokenizer = AutoTokenizer.from_pretrained(self.model_dir, local_files_only=True)
        self._model = AutoModelForTokenClassification.from_pretrained(self.model_dir, local_files_only=True)
        self._model.to(self.device).eval()

    def _true_id(self) -> int:
        """The id of label 'True' (label2id, as the package reads it; id2label as a fallback; 0 in the release)."""
        label2id = {str(k).lower(): int(v) for k, v in (self._model.config.label2id or {}).items()}
        if "true" in label2id:
            return label2id["true"]
        id2label = {int(k): str(v).lower() for k, v in (self._model.config.id2label or {}).items()}
        return next((k for k, v in id2label.items() if v in {"true", "1", "verbal", "yes"}), 0)

    def probabilities(self, sentences: Sequence[Sequence[str]]) -> list[list[float]]:
        """Per sentence, per word: the highest softmax P(True) over the word's sub-tokens."""
        self._load()
        import torch

        true_id = self._true_id()
        out: list[list[float]] = [[0.0] * len(s) for s in sentences]
        todo = [i for i, s in enumerate(sentences) if s]
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            enc = self._tokenizer([list(sentences[i]) for i in batch], is_split_into_words=True,
                                  return_tensors="pt", padding=True)
            with torch.no_grad():
                logits = self._model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float().cpu()
            prob = logits.softmax(dim=-1)[:, :, true_id]
            for row, i in enumerate(batch):
                for pos, word in enumerate(enc.word_ids(row)):
                    if word is not None:
                        out[i][word] = max(out[i][word], float(prob[row, pos]))
        return out

    def predict(self, sentences: Sequence[Sequence[str]], tags: Sequence[Sequence[str]]) -> list[list[tuple[int, float]]]:
        """(word index, probability) of the common nouns (NN, NNS) scored above the threshold, per sentence."""
        probs = self.probabilities(sentences)
        return [
            [(w, p) for w, (p, tag) in enumerate(zip(ps, ts, strict=True)) if p > self.threshold and tag in COMMON_NOUNS]
            for ps, ts in zip(probs, tags, strict=True)
        ]
