"""T5 backend throughput (predicates/s) with a randomly initialised model of the flan-t5-large shape.

    python bench/bench_t5_gpu.py [--batches 8] [--batch-size 32] [--num-beams 4] [--new-tokens 64] [--dtype bf16]

Self-contained: needs torch, transformers and tokenizers only (no spaCy, no download). It builds a word-level
tokenizer with T5's special tokens (<extra_id_N>), a T5ForConditionalGeneration from a flan-t5-large config
(d_model 1024, 24+24 layers, gated-gelu), prompts in the QASem joint format (one per predicate of the QA-SRL GS
wikinews dev sentences when ../shared/data is there, synthetic 24-word sentences otherwise), and runs N batches
of the same generate call the backend makes (parser.t5.T5Parser.generate when the repo's parser imports here).
A random model never stops early, so every output is exactly --new-tokens long: an upper bound on decode work
for QA-SRL outputs, which average about 40-60 tokens. Prints one JSON object and exits. Device: cuda if present.
"""
from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
GOLD = REPO.parent / "shared" / "data" / "qasrl_gs"


def prompts_for(limit: int) -> tuple[list[str], str]:
    """One prompt per (sentence, predicate), the QASem joint model's input format."""

    def build(tokens: list[str], i: int) -> str:
        return " ".join(["Generate QA pairs:", *tokens[:i], f"<extra_id_0>{tokens[i]}<extra_id_1>", *tokens[i + 1 :]])

    gold, full = GOLD / "wikinews.dev.gold.csv", GOLD / "wikinews.dev.full.csv"
    out: list[str] = []
    if gold.exists() and full.exists():
        with full.open(newline="", encoding="utf-8") as handle:
            sentences = {r["qasrl_id"]: r["tokens"].split(" ") for r in csv.DictReader(handle)}
        seen = set()
        with gold.open(newline="", encoding="utf-8") as handle:
            for r in csv.DictReader(handle):
                key = (r["qasrl_id"], int(r["verb_idx"]))
                if key not in seen and r["qasrl_id"] in sentences:
                    seen.add(key)
                    out.append(build(sentences[key[0]], key[1]))
        source = "qasrl_gs wikinews dev predicates"
    else:
        rng = random.Random(0)
        words = [f"w{i}" for i in range(2000)]
        for _ in range(limit):
            toks = [rng.choice(words) for _ in range(24)]
            out.append(build(toks, rng.randrange(24)))
        source = "synthetic 24-token sentences"
    return out[:limit], source


def build_tokenizer(prompts: list[str]):
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    extra = [f"<extra_id_{i}>" for i in range(100)]
    vocab: dict[str, int] = {}
    for w in ["<pad>", "</s>", "<unk>"]:
        vocab[w] = len(vocab)
    for p in prompts:
        for w in p.replace("<extra_id_0>", " ").replace("<extra_id_1>", " ").split():
            vocab.setdefault(w, len(vocab))
    for w in extra:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", vocab["</s>"])])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                   additional_special_tokens=extra)


def main() -> None:
    ap = argparse.ArgumentParser(description="T5 (flan-t5-large shape, random) predicates/s")
    ap.add_argument("--batches", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--num-beams", type=int, default=4)
    ap.add_argument("--new-tokens", type=int, default=64)
    ap.add_argument("--dtype", choices=["fp32", "bf16", "fp16"], default=None, help="default: bf16 on cuda, fp32 on cpu")
    ap.add_argument("--device", default=None)
    ap.add_argument("--layers", type=int, default=24, help="encoder and decoder layers (24 = flan-t5-large)")
    args = ap.parse_args()

    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    dtype_name = args.dtype or ("bf16" if device.startswith("cuda") else "fp32")
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[dtype_name]
    prompts, source = prompts_for(args.batches * args.batch_size)
    tokenizer = build_tokenizer(prompts)
    config = T5Config(  # google/flan-t5-large's shape
        vocab_size=32128, d_model=1024, d_kv=64, d_ff=2816, num_layers=args.layers, num_decoder_layers=args.layers,
        num_heads=16, feed_forward_proj="gated-gelu", tie_word_embeddings=False, dropout_rate=0.0,
        decoder_start_token_id=tokenizer.pad_token_id, pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(0)
    began = time.perf_counter()
    model = T5ForConditionalGeneration(config).to(device=device, dtype=dtype).eval()
    build_s = time.perf_counter() - began
    n_params = sum(p.numel() for p in model.parameters())

    generate_path = "inline"
    try:  # the backend's own batching and generate call, when the repo's parser (and spaCy) import here
        from parser.t5 import T5Parser

        backend = T5Parser(model_dir="(in memory)", device=device, batch_size=args.batch_size,
                           num_beams=args.num_beams, max_length=args.new_tokens + 1)
        backend._model, backend._tokenizer = model, tokenizer
        model.generation_config.min_new_tokens = args.new_tokens  # a random model: fixed-length outputs

        def generate(batch: list[str]) -> list[str]:
            return backend.generate(batch)

        generate_path = "parser.t5.T5Parser.generate"
    except Exception:  # noqa: BLE001 - no spaCy on this machine: same call, inline
        def generate(batch: list[str]) -> list[str]:
            enc = tokenizer(batch, return_tensors="pt", padding=True, truncation=True)
            enc = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
            with torch.inference_mode():
                out = model.generate(**enc, num_beams=args.num_beams, max_new_tokens=args.new_tokens,
                                     min_new_tokens=args.new_tokens)
            return tokenizer.batch_decode(out.cpu(), skip_special_tokens=False)

    generate(prompts[: min(4, len(prompts))])  # warm-up: kernels, allocator
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    batch_times = []
    done = 0
    for b in range(args.batches):
        batch = prompts[b * args.batch_size : (b + 1) * args.batch_size]
        if not batch:
            break
        began = time.perf_counter()
        generate(batch)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        batch_times.append(time.perf_counter() - began)
        done += len(batch)
    total = sum(batch_times)
    print(json.dumps({
        "device": torch.cuda.get_device_name(0) if device.startswith("cuda") else device,
        "dtype": dtype_name,
        "model": f"T5 flan-t5-large shape ({args.layers}+{args.layers} layers), random init",
        "parameters_m": round(n_params / 1e6, 1),
        "prompts": source,
        "generate_path": generate_path,
        "batch_size": args.batch_size,
        "num_beams": args.num_beams,
        "new_tokens": args.new_tokens,
        "batches": len(batch_times),
        "predicates": done,
        "seconds": round(total, 3),
        "predicates_per_s": round(done / total, 2) if total else None,
        "decoded_tokens_per_s": round(done * args.new_tokens / total, 1) if total else None,
        "seconds_per_batch": [round(t, 3) for t in batch_times],
        "model_build_s": round(build_s, 1),
        "peak_gpu_mem_gb": round(torch.cuda.max_memory_allocated() / 2**30, 2) if device.startswith("cuda") else None,
    }))


if __name__ == "__main__":
    main()
