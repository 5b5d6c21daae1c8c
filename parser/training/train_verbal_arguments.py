"""Train the scorer of verbal answers on a QA-SRL GS dev split and write its JSON artefact.

    .venv/bin/python -m parser.training.train_verbal_arguments \
        --gold ../shared/data/qasrl_gs/wikipedia.dev.gold.csv --sentences ../shared/data/qasrl_gs/wikipedia.dev.full.csv \
        [--out parser/data/verbal_arguments.json] [--min-precision 0] [--iou 0.5]

The embedded rules propose QAs for each gold verb (gold predicates given, as the evaluation does); every answer
span is one example, labelled by whether it matches a gold answer of that verb (token IOU >= 0.5, the QA-SRL GS
script's, one to one, as the evaluation counts). A logistic regression over the rule that found the answer, its
question class and where it lies (parser.embedded.verbal.argument_features) learns which answers to drop. C and
the threshold are chosen by 5-fold cross-validation grouped by article: the threshold with the best argument F1
(recall over every gold answer) among those whose cross-validated precision reaches --min-precision (0 by
default: the parser keeps what helps F1; a project that wants precision first sets the policy's least verbal
confidence, which is this probability).
The boundary step (parser.embedded.verbal.Split) is fitted the same way on the same split: each way to cut a
single-answer span in two at a dependent that ends it is one example, positive when the head part and the cut-off
part match two different gold answers; its threshold maximises the argument F1 the cuts would give (a kept
positive adds a match, a kept negative an answer gold lacks). It is stored under "split" in the same artefact.
QA-SRL GS publishes no train split; the artefact is fitted on wikipedia dev so that wikinews dev, the split the
figures are reported on, stays unseen (confirm there with manage.py evaluate_parser).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from parser import evaluation, lexicon
from parser.embedded import load_spacy
from parser.embedded.verbal import ARGUMENT_MODEL_PATH, VERBAL_ARGUMENT_FEATURE_VERSION, Split, candidate_qas
from parser.training.linear_fit import THRESHOLDS, fit

# A cut is made only when it more likely adds a match than not (its probability is P(gain > 0)): lower
# thresholds add a little CV F1 through cuts that are mostly wrong ("less than one serving ~!~ a day").
SPLIT_THRESHOLDS = tuple(t for t in THRESHOLDS if t >= 0.5)


def extract(gold: evaluation.GoldSet, iou: float, split_examples: list[dict] | None = None) -> tuple[list[dict], int]:
    """Examples (one per proposed answer) and the number of gold answers of the gold verbs; with
    `split_examples`, one example per way to cut an answer in two is appended to it."""
    from spacy.tokens import Doc

    nlp = load_spacy()
    lexicon.warm()
    by_sentence = gold.predicates_by_sentence()
    ids = [sid for sid in gold.sentences if sid in by_sentence]
    examples: list[dict] = []
    gold_total = 0
    docs = nlp.pipe((Doc(nlp.vocab, words=gold.sentences[sid]) for sid in ids), batch_size=64)
    for sid, doc in zip(ids, docs, strict=True):
        for idx in by_sentence[sid]:
            spans = [sp for qa in gold.qas[(sid, idx)] for sp in qa.answers]
            gold_total += len(spans)
            splits: list[Split] = []
            candidates, context = candidate_qas(doc[idx], 0, splits)
            proposed = [((a.start, a.end), [*f, *context]) for qa, feats in candidates
                        for a, f in zip(qa.answers, feats, strict=True)]
            matched = {i for i, _ in evaluation.match_arguments([p for p, _ in proposed], spans, iou)}
            examples += [{"sid": sid, "features": f, "label": i in matched} for i, (_, f) in enumerate(proposed)]
            if split_examples is not None:
                base = len(evaluation.match_arguments([p for p, _ in proposed], spans, iou))
                for sp in splits:
                    gain = split_gain_of(sp, [p for p, _ in proposed], spans, iou, base)
                    split_examples.append({"sid": sid, "features": sp.features, "label": gain > 0, "gain": gain})
    return examples, gold_total


def split_gain_of(split: Split, proposed: list[tuple[int, int]], gold_spans: list[tuple[int, int]], iou: float,
                  base: int) -> int:
    """The matches a cut adds to the verb's (-1 to 2), counted one to one as the evaluation does with the
    verb's other answers as they are, against `base` matches without it; one answer becomes two, so the cut
    also adds 1 - gain unmatched answers."""
    after = [p for p in proposed if p != split.span] + [split.head, split.rest]
    return len(evaluation.match_arguments(list(dict.fromkeys(after)), gold_spans, iou)) - base


def split_gain(matched: int, proposed: int, gold_total: int, gains: list[int], min_precision: float) -> Any:
    """The objective of the boundary step: the argument F1 after the kept cuts, from `matched` of `proposed`
    answers before them and each cut's gain (split_gain_of), in the examples' order."""
    import numpy as np

    gain = np.array(gains, dtype=int)

    def objective(labels: Any, kept: Any) -> float:
        added = int(gain[kept].sum())
        tp = matched + added
        fp = proposed - matched + int(kept.sum()) - added
        f1 = 2 * tp / (tp + fp + gold_total)
        return f1 if tp / (tp + fp) >= min_precision else f1 - 1.0
    return objective


def precision_first(gold_total: int, min_precision: float) -> Any:
    """The objective: argument F1 where precision reaches `min_precision`, else below every such F1. F1 is
    rounded to 0.001 and ties go to the more precise choice: CV F1 is flat over a wide band of thresholds
    (0.20-0.45 within 0.0003 on wikipedia), where the highest one costs nothing and drops the most doubtful answers."""
    def objective(labels: Any, kept: Any) -> float:
        tp = int((kept & (labels == 1)).sum())
        fp = int((kept & (labels == 0)).sum())
        if not tp:
            return -1.0
        f1 = 2 * tp / (tp + fp + gold_total)
        precision = tp / (tp + fp)
        score = round(f1, 3) + 1e-4 * precision
        return score if precision >= min_precision else score - 1.0
    return objective


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gold", required=True, type=Path, help="QA-SRL GS *.dev.gold.csv")
    ap.add_argument("--sentences", required=True, type=Path, help="QA-SRL GS *.dev.full.csv")
    ap.add_argument("--out", type=Path, default=ARGUMENT_MODEL_PATH)
    ap.add_argument("--iou", type=float, default=evaluation.QA_SRL_GS_IOU)
    ap.add_argument("--min-precision", type=float, default=0.0)
    ap.add_argument("--min-count", type=int, default=3)
    args = ap.parse_args(argv)
    split_examples: list[dict] = []
    examples, gold_total = extract(evaluation.load_qasrl_gs(args.gold, args.sentences), args.iou, split_examples)
    fitted = fit(examples, precision_first(gold_total, args.min_precision), min_count=args.min_count)
    matched = sum(e["label"] for e in examples)
    gains = [e.pop("gain") for e in split_examples]
    split = fit(split_examples, split_gain(matched, len(examples), gold_total, gains, args.min_precision),
                min_count=args.min_count, c_grid=(0.1, 0.3, 1.0), thresholds=SPLIT_THRESHOLDS)
    artefact = {
        "feature_version": VERBAL_ARGUMENT_FEATURE_VERSION,
        "about": "P(a rule's verbal answer matches a QA-SRL GS answer at IOU >= 0.5): sigmoid(intercept + sum of weights)",
        "trained_on": args.gold.name,
        "iou": args.iou,
        "min_precision": args.min_precision,
        "gold_answers": gold_total,
        **fitted,
        "split": split,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(artefact, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in artefact.items() if k not in {"weights", "split"}}
                     | {"features": len(artefact["weights"]),
                        "split": {k: v for k, v in split.items() if k != "weights"} | {"features": len(split["weights"])}}))


if __name__ == "__main__":
    main()
