"""Embedded parser speed on one core: sentences/s over the QA-SRL GS wikinews dev sentences, against spaCy alone.

    .venv/bin/python bench/bench_parser.py [--sentences ../shared/data/qasrl_gs/wikinews.dev.full.csv] [--rounds 3]

spaCy alone runs the same pipeline the parser loads (tok2vec, tagger, parser), on the same texts, in the same
run, interleaved with the parser chunk by chunk so both see the same machine load. Speeds are per CPU second
of this process (one thread; best round), wall-clock speeds are printed beside; the ratio target is judged on
the median round's paired ratio. Prints one JSON object.
Targets: >= 200 sentences/s, and >= 0.8 of spaCy alone (rules and everything around them < 1/4 of the parse).
The rules run compiled when scripts/compile_parser.py has built the current sources ("compiled_rules" in the
JSON); FACTCROWD_PURE_PARSER=1 measures them as Python.
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, before numpy / thinc load
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT = REPO.parent / "shared" / "data" / "qasrl_gs" / "wikinews.dev.full.csv"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sentences", default=str(DEFAULT))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=128, help="sentences per interleaved spaCy/parser measurement")
    args = ap.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    with open(args.sentences, newline="", encoding="utf-8") as handle:
        texts = [row["sentence"] for row in csv.DictReader(handle)]

    from parser import lexicon
    from parser.embedded import COMPILED, EmbeddedParser

    parser = EmbeddedParser(batch_size=args.batch_size)
    nlp = parser.nlp
    lexicon.nominalization_verb("warmup")  # lexicons load lazily once; not part of the per-sentence cost
    list(parser.parse_many(texts[:50]))

    # Interleave spaCy and the parser chunk by chunk, so both see the same machine load (it changes by the
    # second on a shared machine); each round sums its chunks.
    chunks = [texts[i : i + args.chunk] for i in range(0, len(texts), args.chunk)]
    spacy_cpu, parser_cpu, spacy_wall, parser_wall, frames, qas = [], [], [], [], 0, 0
    for _ in range(args.rounds):
        s_cpu = p_cpu = s_wall = p_wall = 0.0
        frames = qas = 0
        for chunk in chunks:
            wall, cpu = time.perf_counter(), time.process_time()
            for _doc in nlp.pipe(chunk, batch_size=args.batch_size):
                pass
            s_cpu += time.process_time() - cpu
            s_wall += time.perf_counter() - wall
            wall, cpu = time.perf_counter(), time.process_time()
            results = list(parser.parse_many(chunk))
            p_cpu += time.process_time() - cpu
            p_wall += time.perf_counter() - wall
            frames += sum(len(r.frames) for r in results)
            qas += sum(len(f.qas) for r in results for f in r.frames)
        spacy_cpu.append(s_cpu)
        parser_cpu.append(p_cpu)
        spacy_wall.append(s_wall)
        parser_wall.append(p_wall)

    ratios = sorted(s / p for s, p in zip(spacy_cpu, parser_cpu, strict=True))
    load_after = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    spacy_sps = len(texts) / min(spacy_cpu)
    parser_sps = len(texts) / min(parser_cpu)
    print(json.dumps({
        "sentences": len(texts),
        "pipeline": nlp.pipe_names,
        # the mypyc build of the rules in use (scripts/compile_parser.py), or null: the rules ran as Python
        "compiled_rules": COMPILED,
        "rounds": args.rounds,
        "spacy_alone_sentences_per_s": round(spacy_sps, 1),
        "parser_sentences_per_s": round(parser_sps, 1),
        "parser_over_spacy": round(parser_sps / spacy_sps, 3),
        "parser_over_spacy_median_round": round(ratios[len(ratios) // 2], 3),
        "paired_ratio_per_round_sorted": [round(r, 3) for r in ratios],
        "wall_clock": {
            "spacy_alone_sentences_per_s": round(len(texts) / min(spacy_wall), 1),
            "parser_sentences_per_s": round(len(texts) / min(parser_wall), 1),
        },
        "load_average_before_after": [load_before, load_after],  # other processes on the machine move the figures
        "frames": frames,
        "qas": qas,
        "targets": {"sentences_per_s>=200": parser_sps >= 200, "ratio>=0.8": ratios[len(ratios) // 2] >= 0.8},
    }))


if __name__ == "__main__":
    main()
