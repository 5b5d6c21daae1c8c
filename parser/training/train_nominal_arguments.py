"""Train the scorer of nominal arguments on QANom train and write its JSON artefact.

    .venv/bin/python -m parser.training.train_nominal_arguments \
        --train ../shared/data/qanom/annot.train.csv [--out parser/data/nominal_arguments.json] [--cache /tmp/x.jsonl]

The embedded rules propose arguments for each gold eventive noun (possessor, of/by-phrases, compounds, PPs, the
clause's subject and adjuncts ...); each answer span they give is one example, labelled by whether it matches a
gold answer (token IOU >= 0.3, one to one, as the evaluation counts). A logistic regression over the rule and its
context (parser.embedded.nominal.argument_features) learns how far to trust each rule where; C and the threshold
are chosen by 5-fold cross-validation grouped by document, maximising argument F1 (recall over all gold answers).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from parser import evaluation, lexicon
from parser.embedded import load_spacy
from parser.embedded.nominal import ARGUMENT_FEATURE_VERSION, ARGUMENT_MODEL_PATH, SELF_RULES, scored_questions
from parser.embedded.questions import answer_spans
from parser.training.linear_fit import f1_of, fit


def extract(train: Path) -> tuple[list[dict], int]:
    """Examples (one per proposed answer span) and the number of gold answers of the gold eventive nouns."""
    from spacy.tokens import Doc

    gold = evaluation.load_qanom(train)
    nlp = load_spacy()
    by_sentence: dict[str, list[int]] = {}
    for sid, idx in gold.qas:
        by_sentence.setdefault(sid, []).append(idx)
    ids = sorted(by_sentence)
    examples: list[dict] = []
    gold_total = 0
    docs = nlp.pipe((Doc(nlp.vocab, words=gold.sentences[sid]) for sid in ids), batch_size=64)
    for sid, doc in zip(ids, docs, strict=True):
        for idx in by_sentence[sid]:
            n = doc[idx]
            verb = lexicon.nominalization_verb(n.lower_) or n.lower_
            spans = [sp for qa in gold.qas[(sid, idx)] for sp in qa.answers]
            gold_total += len(spans)
            proposed = [(piece, feats + (["mention"] if piece == arg.mention else []), arg.rule in SELF_RULES)
                        for _, arg, feats in scored_questions(n, verb) for piece in answer_spans(arg)]
            examples += [{"sid": sid, "features": feats, "label": hit} for feats, hit in _labels(proposed, spans)]
    return examples, gold_total


def _labels(proposed: list[tuple[tuple[int, int], list[str], bool]], spans: list[tuple[int, int]]
            ) -> list[tuple[list[str], bool]]:
    """Each proposed span's features and whether it matches a gold answer one to one; the noun's own phrase
    (SELF_RULES) is matched last, to the answers nothing else matches, so that it never takes an answer from a
    closer span ("new" for "new elections") and teaches the scorer that the closer rule missed."""
    first = [i for i, p in enumerate(proposed) if not p[2]]
    last = [i for i, p in enumerate(proposed) if p[2]]
    matched = {first[i] for i, _ in evaluation.match_arguments([proposed[i][0] for i in first], spans)}
    taken = {j for _, j in evaluation.match_arguments([proposed[i][0] for i in first], spans)}
    rest = [j for j in range(len(spans)) if j not in taken]
    matched |= {last[i] for i, _ in evaluation.match_arguments([proposed[i][0] for i in last], [spans[j] for j in rest])}
    return [(feats, i in matched) for i, (_, feats, _) in enumerate(proposed)]


def load_examples(train: Path, cache: Path | None) -> tuple[list[dict], int]:
    stamp = {"train": str(train.resolve()), "mtime": train.stat().st_mtime, "feature_version": ARGUMENT_FEATURE_VERSION}
    if cache is not None and cache.exists():
        with cache.open(encoding="utf-8") as handle:
            head = json.loads(handle.readline())
            if head.get("stamp") == stamp:
                return [json.loads(line) for line in handle], int(head["gold_total"])
    examples, gold_total = extract(train)
    if cache is not None:
        with cache.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps({"stamp": stamp, "gold_total": gold_total}) + "\n")
            handle.writelines(json.dumps(e) + "\n" for e in examples)
    return examples, gold_total


def train(examples: list[dict], gold_total: int, min_count: int = 5) -> dict:
    fitted = fit(examples, lambda y, kept: f1_of(y, kept, gold_total), min_count=min_count)
    return {
        "feature_version": ARGUMENT_FEATURE_VERSION,
        "about": "P(a rule's nominal argument matches a QANom answer): sigmoid(intercept + sum of feature weights)",
        "trained_on": "QANom annot.train.csv (gold eventive nouns)",
        "gold_answers": gold_total,
        **fitted,
        "cv_argument_f1": fitted["cv_objective"],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True, type=Path, help="QANom annot.train.csv")
    ap.add_argument("--out", type=Path, default=ARGUMENT_MODEL_PATH)
    ap.add_argument("--cache", type=Path, default=None, help="examples cached here between runs (JSON lines)")
    ap.add_argument("--min-count", type=int, default=5, help="features seen in fewer examples are dropped")
    args = ap.parse_args(argv)
    examples, gold_total = load_examples(args.train, args.cache)
    artefact = train(examples, gold_total, min_count=args.min_count)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(artefact, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in artefact.items() if k != "weights"} | {"features": len(artefact["weights"])}))


if __name__ == "__main__":
    main()
