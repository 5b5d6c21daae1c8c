"""Build the LLM backend's demonstration set from FActScore's human-revised atomic facts.

    python -m parser.facts.build_demos /work/shared/data/factscore_labeled/InstructGPT.jsonl \
        /work/shared/data/factscore_labeled/ChatGPT.jsonl --out parser/data/factscore_demos.json

FActScore's own demonstration file is not published with its package, so the set is taken from the released
human facts: relevant sentences whose every human fact is a clean sentence (no doubled word, no stray space, no
unbalanced quote), at most `--max-facts` facts and `--max-words` words, one sentence per response and topic at
most `--per-response`, in file order, spread over the responses until `--size` sentences. The first
sentences (shown with every prompt, FActScore's fixed demonstrations) are the ones with the most facts among the
first responses, so the fixed part shows splitting at work. Deterministic: same files, same set.
"""
from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parser.facts.evaluation import LabeledResponse, load_factscore_labeled
from parser.facts.llm import DEFAULT_DEMOS, FIXED_DEMOS

DOUBLED = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)


def clean_fact(fact: str) -> bool:
    """A human fact fit to show a model: one tidy sentence."""
    return (
        bool(fact)
        and "  " not in fact
        and not DOUBLED.search(fact)
        and fact.count('"') % 2 == 0
        and fact.count("“") == fact.count("”")
        and fact[0].isupper()
        and fact.endswith((".", '"', "”"))
    )


def select(responses: Sequence[Sequence[LabeledResponse]], size: int = 300, per_response: int = 1,
           max_facts: int = 10, max_words: int = 45) -> list[dict]:
    """Demonstrations from several files' responses, taken round-robin over responses so topics spread."""
    pools: list[list[dict]] = []
    for file_responses in responses:
        for response in file_responses:
            pool: list[dict[str, Any]] = []
            for sentence, facts in zip(response.sentences, response.human_facts, strict=True):
                if facts is None or not (1 <= len(facts) <= max_facts) or len(sentence.split()) > max_words:
                    continue
                stripped = [f.strip() for f in facts]
                if all(clean_fact(f) for f in stripped) and len(set(stripped)) == len(stripped):
                    pool.append({"sentence": sentence.strip(), "facts": stripped})
            if pool:
                pools.append(pool[:per_response] if per_response else pool)
    out: list[dict] = []
    seen: set[str] = set()
    round_ = 0
    while len(out) < size and any(round_ < len(p) for p in pools):
        for pool in pools:
            if round_ < len(pool) and pool[round_]["sentence"] not in seen and len(out) < size:
                out.append(pool[round_])
                seen.add(pool[round_]["sentence"])
        round_ += 1
    head = sorted(out[: 4 * FIXED_DEMOS], key=lambda d: -len(d["facts"]))[:FIXED_DEMOS]
    return head + [d for d in out if d not in head]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", help="FActScore data/labeled/*.jsonl")
    parser.add_argument("--out", default=str(DEFAULT_DEMOS))
    parser.add_argument("--size", type=int, default=300)
    parser.add_argument("--per-response", type=int, default=2)
    parser.add_argument("--max-facts", type=int, default=10)
    parser.add_argument("--max-words", type=int, default=45)
    args = parser.parse_args(argv)
    demos = select([load_factscore_labeled(f) for f in args.files], args.size, args.per_response,
                   args.max_facts, args.max_words)
    Path(args.out).write_text(json.dumps(demos, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(demos)} demonstrations, {sum(len(d['facts']) for d in demos)} facts")


if __name__ == "__main__":
    main()
