"""A confidence for each generated atomic fact: how often facts like it match a person's fact.

Backends give fact texts only; this scores any of them the same way, from what the text shows:
- `whole`: the fact is (nearly) its whole sentence, the splitter's fallback when it found no structure
  (word-bag F1 with the sentence >= 0.85 and the sentence has more than 8 words);
- `added`: the fact has a word that neither its sentence nor the response has (built with added words);
- `plain`: neither.
Each kind's confidence is the share of such facts that match a human fact one to one at word-bag F1 >= 0.7 (the
evaluation's measure), measured on the FActScore labeled files with the embedded backend:

    python -m parser.facts.confidence ../shared/data/factscore_labeled/InstructGPT.jsonl

CALIBRATION holds the figures it printed (see parser/README.md). Pure: no Django.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence

from parser.facts.evaluation import greedy_matches, load_factscore_labeled, similarity, words

# share of facts matching a human fact at F1 >= 0.7, by kind, on InstructGPT.jsonl with the embedded backend
# (3469 plain, 450 added, 104 whole facts); ChatGPT.jsonl as a check gave 0.683 / 0.608 / 0.577
CALIBRATION: dict[str, float] = {"plain": 0.666, "added": 0.593, "whole": 0.625}
DEFAULT_MIN_FACT_CONFIDENCE = 0.0  # a project's default: keep every fact (a dropped fact changes its FActScore)
WHOLE_F1 = 0.85
WHOLE_MIN_WORDS = 8


def fact_kind(fact: str, sentence: str, context: str = "") -> str:
    """`whole`, `added` or `plain` (see the module docstring)."""
    sentence_words = words(sentence)
    if len(sentence_words) > WHOLE_MIN_WORDS and similarity(fact, sentence) >= WHOLE_F1:
        return "whole"
    known = set(sentence_words) | set(words(context))
    if any(w not in known for w in words(fact)):
        return "added"
    return "plain"


def fact_confidence(fact: str, sentence: str, context: str = "") -> float:
    """The calibrated confidence (0..1) of one fact of `sentence` (`context`: the whole response text)."""
    return CALIBRATION[fact_kind(fact, sentence, context)]


def calibrate(paths: Sequence[str], threshold: float = 0.7) -> dict[str, dict[str, float]]:
    """{kind: {"facts": n, "matched": share}} over the measured sentences of FActScore labeled files (the
    embedded splitter, the backend whose facts CALIBRATION describes)."""
    from parser.facts.embedded import EmbeddedFactSplitter

    splitter = EmbeddedFactSplitter()
    totals: Counter[str] = Counter()
    hits: Counter[str] = Counter()
    for path in paths:
        for response in load_factscore_labeled(path):
            wanted = [i for i, h in enumerate(response.human_facts) if h is not None]
            if not wanted:
                continue
            generated = splitter.split_sentences(list(response.sentences), wanted)
            context = " ".join(response.sentences)
            for i in wanted:
                facts, human = generated[i], response.human_facts[i] or ()
                matched = {g for g, _, sim in greedy_matches(facts, human) if sim >= threshold}
                for g, fact in enumerate(facts):
                    kind = fact_kind(fact, response.sentences[i], context)
                    totals[kind] += 1
                    hits[kind] += g in matched
    return {k: {"facts": totals[k], "matched": round(hits[k] / totals[k], 3) if totals[k] else 0.0} for k in totals}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    args = parser.parse_args(argv)
    json.dump(calibrate(args.files), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
