"""Measure how often each kind of verbal QA is right, for the confidence the embedded backend gives verbal QAs.

    .venv/bin/python -m parser.training.measure_verbal_precision \
        --gold ../shared/data/qasrl_gs/wikipedia.dev.gold.csv --sentences ../shared/data/qasrl_gs/wikipedia.dev.full.csv \
        [--iou 0.5] [--out parser/data/verbal_precision.json]

Gold predicates are given; each answer of each QA counts as right when it matches a gold answer (one to one, the
evaluation's matching). Precision is kept per question class (the wh-word with the He et al. role, e.g. "who:R0",
"when:when"), smoothed towards the overall precision (add 5 pseudo-answers), and per role as a fallback. The
wikipedia dev split is measured so that wikinews dev stays the split the figures are reported on.
"""
from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from parser import evaluation
from parser.embedded import EmbeddedParser
from parser.embedded.verbal import PRECISION_PATH, question_class

PRIOR = 5.0


def measure(gold: evaluation.GoldSet, iou: float) -> dict:
    parser = EmbeddedParser()
    by_sentence = gold.predicates_by_sentence()
    ids = [sid for sid in gold.sentences if sid in by_sentence]
    frames = parser.parse_tokenized([gold.sentences[s] for s in ids], predicates=[by_sentence[s] for s in ids])
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for sid, per in zip(ids, frames, strict=True):
        by_index = {f.token_index: f for f in per}
        for idx in by_sentence[sid]:
            frame = by_index.get(idx)
            if frame is None:
                continue
            pred = [(qa, (a.start, a.end)) for qa in frame.qas for a in qa.answers]
            spans = [sp for qa in gold.qas[(sid, idx)] for sp in qa.answers]
            matched = {i for i, _ in evaluation.match_arguments([p for _, p in pred], spans, iou)}
            for i, (qa, _) in enumerate(pred):
                for key in (question_class(qa.raw_question, qa.role), f"role:{qa.role}", "all"):
                    counts[key][0] += 1
                    counts[key][1] += i in matched
    overall = counts["all"][1] / counts["all"][0]
    table = {k: round((hit + PRIOR * overall) / (n + PRIOR), 3) for k, (n, hit) in sorted(counts.items())}
    return {"about": "precision of the embedded backend's verbal QAs by question class", "iou": iou,
            "answers": counts["all"][0], "precision": table}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gold", required=True)
    ap.add_argument("--sentences", required=True)
    ap.add_argument("--iou", type=float, default=evaluation.QA_SRL_GS_IOU)
    ap.add_argument("--out", type=Path, default=PRECISION_PATH)
    args = ap.parse_args(argv)
    result = measure(evaluation.load_qasrl_gs(args.gold, args.sentences), args.iou)
    result["measured_on"] = Path(args.gold).name
    args.out.write_text(json.dumps(result, indent=0) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "precision"} | {"all": result["precision"]["all"]}))


if __name__ == "__main__":
    main()
