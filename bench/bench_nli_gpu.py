"""`nli` scorer throughput (QAs/s) on the 1,542 QASem dev QAs, with a randomly initialised model of a real shape.

    python bench/bench_nli_gpu.py [--shape roberta-large|deberta-v3-large|flan-t5-large|tiny] [--batch-sizes 16 64]
                                  [--dtypes fp32 bf16] [--limit N] [--data ../shared/data/qasem_consistency/dev.jsonl]

Self-contained: torch, transformers and tokenizers only (no Django, no spaCy, no download). It builds a word-level
pair tokenizer over the dev file's words and a model of the named shape with random weights, saves both with
save_pretrained into a temporary directory and loads them through the real scorer
(annotation_tasks.scoring.nli.NLIScorer: the same chunking, batching, truncation and best-chunk rule as
`manage.py score --scorer nli`). Random weights give meaningless probabilities, so this measures speed only; the
work per pair is a real model's (same layers, same sequence lengths: word-level tokens are fewer than a BPE
model's, about 0.75x, so a real tokenizer's sequences are somewhat longer). bf16 casts the loaded model (the scorer
itself loads fp32). Prints one JSON object per (batch size, dtype). Device: cuda if present, else cpu.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from annotation_tasks.scoring.nli import NLIScorer  # noqa: E402
from annotation_tasks.scoring.training.train_embedded import load_dev  # noqa: E402

SHAPES = {
    "roberta-large": dict(kind="encoder", hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                          intermediate_size=4096),
    "deberta-v3-large": dict(kind="deberta", hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                             intermediate_size=4096),
    "tiny": dict(kind="encoder", hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64),
    "flan-t5-large": dict(kind="t5", d_model=1024, d_ff=2816, num_layers=24, num_decoder_layers=24, num_heads=16,
                          d_kv=64),
}


def build_model(shape: str, words: set[str], path: Path) -> None:
    """A random model of `shape` and a word-level tokenizer over `words`, saved as a local model directory."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    spec = dict(SHAPES[shape])
    kind = spec.pop("kind")
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "1", "0"]
    vocab = {w: i for i, w in enumerate(specials + sorted(words - set(specials)))}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    if kind != "t5":
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]", eos_token="[SEP]")
    fast.save_pretrained(path)
    labels = {0: "entailment", 1: "neutral", 2: "contradiction"}
    if kind == "encoder":
        from transformers import RobertaConfig, RobertaForSequenceClassification

        config = RobertaConfig(vocab_size=len(vocab), max_position_embeddings=514, pad_token_id=0, id2label=labels,
                               label2id={v: k for k, v in labels.items()}, **spec)
        model = RobertaForSequenceClassification(config)
    elif kind == "deberta":
        from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

        config = DebertaV2Config(vocab_size=len(vocab), max_position_embeddings=512, relative_attention=True,
                                 position_buckets=256, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                                 pad_token_id=0, id2label=labels, label2id={v: k for k, v in labels.items()}, **spec)
        model = DebertaV2ForSequenceClassification(config)
    else:
        from transformers import T5Config, T5ForConditionalGeneration

        config = T5Config(vocab_size=len(vocab), feed_forward_proj="gated-gelu", is_gated_act=True,
                          decoder_start_token_id=0, pad_token_id=0, eos_token_id=vocab["[SEP]"],
                          tie_word_embeddings=False, **spec)
        model = T5ForConditionalGeneration(config)
    model.save_pretrained(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="roberta-large")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--dtypes", nargs="+", choices=["fp32", "bf16"], default=["fp32", "bf16"])
    parser.add_argument("--limit", type=int, default=0, help="score only the first N QAs (0: all 1,542)")
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data" / "qasem_consistency" / "dev.jsonl")
    args = parser.parse_args(argv)

    import torch

    rows = load_dev(args.data)
    if args.limit:
        rows = rows[: args.limit]
    pairs = [(r["reference"], r["claim"]) for r in rows]
    words = {w.lower() for ref, claim in pairs for text in (ref.text, claim.text) for w in text.split()}
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        build_model(args.shape, words, Path(tmp))
        for batch_size in args.batch_sizes:
            scorer = NLIScorer(tmp, device=device, batch_size=batch_size)
            load_s = time.perf_counter() - t0
            for dtype in args.dtypes:
                if dtype == "bf16":
                    scorer.model.to(torch.bfloat16)
                scorer.score_batch(pairs[: 2 * batch_size])  # warm-up: kernels, allocator
                if device == "cuda":
                    torch.cuda.synchronize()
                start = time.perf_counter()
                scores = scorer.score_batch(pairs)
                if device == "cuda":
                    torch.cuda.synchronize()
                seconds = time.perf_counter() - start
                chunks = sum(s.evidence["chunks"] for s in scores)
                print(json.dumps({
                    "shape": args.shape, "device": torch.cuda.get_device_name(0) if device == "cuda" else "cpu",
                    "dtype": dtype, "batch_size": batch_size, "qas": len(pairs), "chunk_pairs": chunks,
                    "seconds": round(seconds, 3), "qas_per_s": round(len(pairs) / seconds, 1),
                    "chunk_pairs_per_s": round(chunks / seconds, 1), "setup_s": round(load_s, 1),
                    "max_gpu_mem_gb": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device == "cuda" else None,
                }), flush=True)
            del scorer
            if device == "cuda":
                torch.cuda.empty_cache()
            t0 = time.perf_counter()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
