"""An entailment model from a local directory: an NLI / MiniCheck-style cross-encoder, or a TRUE-style seq2seq.

- Cross-encoder (AutoModelForSequenceClassification): premise = a reference chunk, hypothesis = the claim's
  statement form; the score is the entailment probability (the label whose name contains "entail" or
  "support"; with two unnamed labels, label 1, MiniCheck's convention).
- Seq2seq (config.is_encoder_decoder, TRUE's format): input "premise: P hypothesis: H"; the score is
  P("1") / (P("1") + P("0")) at the first decoded position.
Long references are cut into chunks of `chunk_words` words and a claim takes its best chunk (MiniCheck's rule:
a claim is supported when some part of the document supports it). Pairs run in batches on the GPU when there is
one. Models never download: model_dir must be a local directory (transformers loads it with local_files_only).
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from annotation_tasks.scoring.base import Claim, Reference, Score, ScorerError


def chunks(reference: Reference, chunk_words: int) -> list[str]:
    """The reference as chunks of at most chunk_words words (passages are chunked one by one)."""
    out = []
    for part in reference.passages or (reference.text,):
        words = part.split()
        out += [" ".join(words[i : i + chunk_words]) for i in range(0, len(words), chunk_words)]
    return out or [""]


DTYPES = ("auto", "float32", "bfloat16", "float16")


def resolve_dtype(dtype: str, device: str, torch) -> str:
    """The weights' dtype: "auto" is bfloat16 on a GPU that has it, else float32. On an H200, bf16 scored the
    QASem dev QAs 4-6x faster than fp32 with RoBERTa-large / DeBERTa-v3-large shapes (bench/bench_nli_gpu.py);
    on a CPU bf16 is slower, so auto keeps float32 there."""
    name = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}.get(str(dtype).lower(), str(dtype).lower())
    if name not in DTYPES:
        raise ScorerError(f"SCORER_DTYPE {dtype!r}: choose one of {', '.join(DTYPES)}")
    if name == "auto":
        on_gpu = str(device).startswith("cuda")
        return "bfloat16" if on_gpu and torch.cuda.is_bf16_supported() else "float32"
    return name


class NLIScorer:
    name = "nli"

    def __init__(self, model_dir: str, device: str | None = None, batch_size: int = 16, chunk_words: int = 300,
                 max_length: int = 512, dtype: str = "auto") -> None:
        path = Path(model_dir)
        if not (path / "config.json").is_file():
            raise ScorerError(f"SCORER_NLI_MODEL_DIR {model_dir!r} is not a local model directory (no config.json)")
        import torch
        from transformers import AutoConfig, AutoTokenizer

        self.torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.batch_size, self.chunk_words, self.max_length = batch_size, chunk_words, max_length
        config = AutoConfig.from_pretrained(path, local_files_only=True)
        self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.seq2seq = bool(config.is_encoder_decoder)
        if self.seq2seq:
            from transformers import AutoModelForSeq2SeqLM

            self.model = AutoModelForSeq2SeqLM.from_pretrained(path, local_files_only=True)
            ids = [self.tokenizer.convert_tokens_to_ids(t) for t in ("1", "0")]
            if any(i is None or i == self.tokenizer.unk_token_id for i in ids):
                raise ScorerError(f"seq2seq verifier {model_dir}: its vocabulary has no '1' / '0' tokens")
            self.label_ids = ids
        else:
            from transformers import AutoModelForSequenceClassification

            self.model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
            self.entailment = self._entailment_index(config)
        self.dtype = resolve_dtype(dtype, self.device, torch)
        self.model.to(self.device, dtype=getattr(torch, self.dtype)).eval()
        digest = hashlib.sha1((path / "config.json").read_bytes()).hexdigest()[:8]
        self.version = f"1:{path.name}:{digest}" + ("" if self.dtype == "float32" else f":{self.dtype}")

    @staticmethod
    def _entailment_index(config) -> int:
        labels = {int(i): str(n).lower() for i, n in (config.id2label or {}).items()}
        for i, n in sorted(labels.items()):
            if "entail" in n and "not" not in n and "non" not in n or n in ("supported", "support"):
                return i
        if config.num_labels == 2:
            return 1
        raise ScorerError(f"cannot tell the entailment label among {sorted(labels.values())}")

    def _probabilities(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        torch = self.torch
        with torch.inference_mode():
            if self.seq2seq:
                texts = [f"premise: {p} hypothesis: {h}" for p, h in zip(premises, hypotheses, strict=True)]
                enc = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True,
                                     max_length=self.max_length).to(self.device)
                start = torch.full((len(texts), 1), self.model.config.decoder_start_token_id, device=self.device)
                logits = self.model(**enc, decoder_input_ids=start).logits[:, 0, self.label_ids]
                return torch.softmax(logits.float(), dim=-1)[:, 0].tolist()
            enc = self.tokenizer(premises, hypotheses, return_tensors="pt", padding=True, truncation="only_first",
                                 max_length=self.max_length).to(self.device)
            logits = self.model(**enc).logits.float()
            return torch.softmax(logits, dim=-1)[:, self.entailment].tolist()

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
