"""An entailment model from a local directory: an NLI / MiniCheck-style cross-encoder, or a TRUE-style seq2seq.

- Cross-encoder (AutoModelForSequenceClassification): premise = a reference chunk, hypothesis = the claim's
  statement form; the score is the entailment probability (the label whose name contains "entail" or
  "support"; with two unnamed labels, label 1, MiniCheck's convention).
- Seq2seq (config.is_encoder_decoder, TRUE's format): input "premise: P hypothesis: H"; the score is
  P("1") / (P("1") + P("0")) at the first decoded position.
Long references are cut into chunks of `chunk_words` words and a claim takes its best chunk (MiniCheck's rule:
a claim is supported when some part of the document supports it). Pairs run in batches on the GPU when there is
one. Models never download: model_dir must be a local directory (transformers loads it with local_files_only).
The model runs on torch or, for an exported cross-encoder (model.onnx / model_quantized.onnx beside the tokenizer,
manage.py export_onnx), on ONNX Runtime: scoring/nli_backends.py; `backend` auto picks ONNX for such a directory on
a CPU, torch otherwise.
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from annotation_tasks.scoring.base import Claim, Reference, Score, ScorerError
from annotation_tasks.scoring.nli_backends import (  # noqa: F401  (DTYPES, resolve_dtype: this module's API before)
    DTYPES,
    NLIBackend,
    OnnxBackend,
    TorchBackend,
    choose_backend,
    resolve_dtype,
)


def chunks(reference: Reference, chunk_words: int) -> list[str]:
    """The reference as chunks of at most chunk_words words (passages are chunked one by one)."""
    out = []
    for part in reference.passages or (reference.text,):
        words = part.split()
        out += [" ".join(words[i : i + chunk_words]) for i in range(0, len(words), chunk_words)]
    return out or [""]


class NLIScorer:
    name = "nli"

    def __init__(self, model_dir: str, device: str | None = None, batch_size: int = 16, chunk_words: int = 300,
                 max_length: int = 512, dtype: str = "auto", backend: str = "auto", onnx_file: str = "") -> None:
        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise ScorerError(f"SCORER_NLI_MODEL_DIR {model_dir!r} is not a local model directory (no config.json)")
        from transformers import AutoConfig, AutoTokenizer

        self.batch_size, self.chunk_words, self.max_length = batch_size, chunk_words, max_length
        self.backend_name = choose_backend(path, backend, device, onnx_file)
        config = AutoConfig.from_pretrained(path, local_files_only=True)
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.seq2seq = bool(config.is_encoder_decoder)
        self.backend: NLIBackend
        if self.backend_name == "onnx":
            onnx = OnnxBackend(path, config, self.tokenizer, device, max_length, onnx_file)
            self.backend, self.device, self.dtype, self.model = onnx, onnx.device, "float32", None
        else:
            torch_backend = TorchBackend(path, config, self.tokenizer, device, dtype, max_length)
            self.backend, self.device, self.dtype = torch_backend, torch_backend.device, torch_backend.dtype
            self.model = torch_backend.model
        digest = hashlib.sha1((path / "config.json").read_bytes()).hexdigest()[:8]
        self.version = f"1:{path.name}:{digest}{self.backend.tag}"

    def _probabilities(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        return self.backend.predict(premises, hypotheses)

    def score_batch(self, pairs: Sequence[tuple[Reference, Claim]]) -> list[Score]:
        flat: list[tuple[int, int, str, str]] = []  # (pair, chunk, premise, hypothesis)
        for i, (reference, claim) in enumerate(pairs):
            flat += [(i, j, text, claim.text) for j, text in enumerate(chunks(reference, self.chunk_words))]
        probs: list[float] = []
        for start in range(0, len(flat), self.batch_size):
            batch = flat[start : start + self.batch_size]
            probs += self._probabilities([b[2] for b in batch], [b[3] for b in batch])
        best: dict[int, tuple[float, int]] = {}
        n_chunks: dict[int, int] = {}
        for (i, j, _, _), p in zip(flat, probs, strict=True):
            n_chunks[i] = n_chunks.get(i, 0) + 1
            if i not in best or p > best[i][0]:
                best[i] = (p, j)
        return [
            Score(min(max(best[i][0], 0.0), 1.0), {"best_chunk": best[i][1], "chunks": n_chunks[i]})
            for i in range(len(pairs))
        ]
