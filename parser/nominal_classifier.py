"""Eventive-noun detection with a token classifier in the `kleinay/nominalization-candidate-classifier` format.

That model (a BERT token classifier) scores lexicon candidates: label "True" (id 0 in the release) means the noun
is a verbal (eventive) nominalization. As in qanom's NominalizationDetector, the probability at a word's first
sub-token is (sigmoid(true logit) + 1 - sigmoid(false logit)) / 2. Loaded from a local directory only, lazily.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class NominalizationClassifier:
    def __init__(self, model_dir: str, device: str | None = None, threshold: float = 0.5, batch_size: int = 32):
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

    def _label_ids(self) -> tuple[int, int]:
        """(true id, false id) from the config's id2label; the release has 0 = 'True', 1 = 'False'."""
        id2label = {int(k): str(v).lower() for k, v in (self._model.config.id2label or {}).items()}
        true_id = next((k for k, v in id2label.items() if v in {"true", "1", "verbal", "yes"}), 0)
        false_id = next((k for k, v in id2label.items() if v in {"false", "0", "non-verbal", "no"}), 1 - true_id)
        return true_id, false_id

    def probabilities(self, sentences: Sequence[Sequence[str]], candidates: Sequence[Sequence[int]]) -> list[list[float]]:
        """For each sentence, the probability that each candidate word index is an eventive noun."""
        self._load()
        import torch

        true_id, false_id = self._label_ids()
        out: list[list[float]] = [[] for _ in sentences]
        todo = [i for i, c in enumerate(candidates) if c]
        for start in range(0, len(todo), self.batch_size):
            batch = todo[start : start + self.batch_size]
            enc = self._tokenizer(
                [list(sentences[i]) for i in batch], is_split_into_words=True, return_tensors="pt", padding=True,
                truncation=True,
            )
            with torch.no_grad():
                logits = self._model(**{k: v.to(self.device) for k, v in enc.items()}).logits.float().cpu()
            prob = (logits[:, :, true_id].sigmoid() + 1 - logits[:, :, false_id].sigmoid()) / 2
            for row, i in enumerate(batch):
                first_token: dict[int, int] = {}
                for tok_pos, word in enumerate(enc.word_ids(row)):
                    if word is not None and word not in first_token:
                        first_token[word] = tok_pos
                out[i] = [float(prob[row, first_token[w]]) if w in first_token else 0.0 for w in candidates[i]]
        return out

    def predict(self, sentences: Sequence[Sequence[str]], candidates: Sequence[Sequence[int]]) -> list[list[int]]:
        """The candidate indices classified as eventive nouns."""
        probs = self.probabilities(sentences, candidates)
        return [[w for w, p in zip(c, ps, strict=True) if p > self.threshold] for c, ps in zip(candidates, probs, strict=True)]
