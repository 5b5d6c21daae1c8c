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
from parser.embedded.verbal import ARGUMENT_MODEL_PATH, VERBAL_ARGUMENT_FEATURE_VERSION, candidate_qas
from parser.training.linear_fit import fit


def extract(gold: evaluation.GoldSet, iou: float) -> tuple[list[dict], int]:
    """Examples (one per proposed answer) and the number of gold answers of the gold verbs."""
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
            candidates, context = candidate_qas(doc[idx], 0)
            proposed = [((a.start, a.end), [*f, *context]) for qa, feats in candidates
                        for a, f in zip(qa.answers, feats, strict=True)]
            matched = {i for i, _ in evaluation.match_arguments([p for p, _ in proposed], spans, iou)}
            examples += [{"sid": sid, "features": f, "label": i in matched} for i, (_, f) in enumerate(proposed)]
    return examples, gold_total


def precision_first(gold_total: int, min_precision: float) -> Any:
    """The objective: argument F1 where precision reaches `min_precision`, else below every such F1."""
    def objective(labels: Any, kept: Any) -> float:
        tp = int((kept & (labels == 1)).sum())
        fp = int((kept & (labels == 0)).sum())
        if not tp:
            return -1.0
        f1 = 2 * tp / (tp + fp + gold_total)
        return f1 if tp / (tp + fp) >= min_precision else f1 - 1.0
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
    examples, gold_total = extract(evaluation.load_qasrl_gs(args.gold, args.sentences), args.iou)
    fitted = fit(examples, precision_first(gold_total, args.min_precision), min_count=args.min_count)
    artefact = {
        "feature_version": VERBAL_ARGUMENT_FEATURE_VERSION,
        "about": "P(a rule's verbal answer matches a QA-SRL GS answer at IOU >= 0.5): sigmoid(intercept + sum of weights)",
        "trained_on": args.gold.name,
        "iou": args.iou,
        "min_precision": args.min_precision,
        "gold_answers": gold_total,
        **fitted,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(artefact, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in artefact.items() if k != "weights"} | {"features": len(artefact["weights"])}))


if __name__ == "__main__":
    main()
