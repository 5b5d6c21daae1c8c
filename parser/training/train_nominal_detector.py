"""Train the eventive-noun detector on QANom train and write its JSON artefact.

    .venv/bin/python -m parser.training.train_nominal_detector \
        --train ../shared/data/qanom/annot.train.csv [--out parser/data/nominal_detector.json] [--cache /tmp/x.jsonl]

Each released candidate (a noun the lexicons link to a verb) becomes one example: the features of
parser.embedded.detector over spaCy's parse of the QANom tokens, labelled with the gold is_verbal. The
regularisation strength and the decision threshold are chosen by 5-fold cross-validation on train, grouped by
document (sentences of one article never straddle folds), maximising F1; dev is left for reporting. The artefact
keeps the features seen in at least three examples, as plain JSON weights (scikit-learn is needed here only).
"""
from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from parser import lexicon
from parser.embedded import load_spacy
from parser.embedded.detector import FEATURE_VERSION, MODEL_PATH, features
from parser.training.linear_fit import f1_of, fit


def read_candidates(path: Path) -> tuple[dict[str, list[str]], dict[tuple[str, int], bool]]:
    """Sentences (tokens) and candidates (sentence id, index) -> is_verbal from a QANom annot.*.csv."""
    sentences: dict[str, list[str]] = {}
    labels: dict[tuple[str, int], bool] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            sid = row["qasrl_id"]
            sentences.setdefault(sid, row["sentence"].split(" "))
            key = (sid, int(row["target_idx"]))
            labels[key] = labels.get(key, False) or row["is_verbal"].strip().lower() == "true"
    return sentences, labels


def extract(sentences: dict[str, list[str]], labels: dict[tuple[str, int], bool]) -> list[dict]:
    """One example per candidate the lexicons know: sentence id, features, label."""
    from spacy.tokens import Doc

    nlp = load_spacy()
    by_sentence: dict[str, list[int]] = {}
    for sid, idx in labels:
        by_sentence.setdefault(sid, []).append(idx)
    ids = sorted(by_sentence)
    docs = nlp.pipe((Doc(nlp.vocab, words=sentences[sid]) for sid in ids), batch_size=64)
    examples = []
    for sid, doc in zip(ids, docs, strict=True):
        for idx in sorted(by_sentence[sid]):
            tok = doc[idx]
            verb = lexicon.nominalization_verb(tok.lower_)
            if verb is None or not tok.is_alpha:
                continue  # never a candidate at run time
            examples.append({"sid": sid, "features": features(tok, verb), "label": labels[(sid, idx)]})
    return examples


def load_examples(train: Path, cache: Path | None) -> list[dict]:
    stamp = {"train": str(train.resolve()), "mtime": train.stat().st_mtime, "feature_version": FEATURE_VERSION}
    if cache is not None and cache.exists():
        with cache.open(encoding="utf-8") as handle:
            if json.loads(handle.readline()) == stamp:
                return [json.loads(line) for line in handle]
    examples = extract(*read_candidates(train))
    if cache is not None:
        with cache.open("w", encoding="utf-8") as handle:
            handle.write(json.dumps(stamp) + "\n")
            handle.writelines(json.dumps(e) + "\n" for e in examples)
    return examples


def train(examples: list[dict], min_count: int = 3, seed: int = 0) -> dict:
    """Cross-validate C and the threshold (F1 over the candidates), fit on all of train: the artefact as a dict."""
    fitted = fit(examples, f1_of, min_count=min_count, seed=seed)
    return {
        "feature_version": FEATURE_VERSION,
        "about": "P(eventive) of a QANom noun candidate: sigmoid(intercept + sum of the weights of its features)",
        "trained_on": "QANom annot.train.csv",
        **fitted,
        "cv_f1": fitted["cv_objective"],
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True, type=Path, help="QANom annot.train.csv")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--cache", type=Path, default=None, help="features cached here between runs (JSON lines)")
    ap.add_argument("--min-count", type=int, default=3)
    args = ap.parse_args(argv)
    examples = load_examples(args.train, args.cache)
    artefact = train(examples, min_count=args.min_count)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(artefact, indent=0, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in artefact.items() if k != "weights"} | {"features": len(artefact["weights"])}))


if __name__ == "__main__":
    main()
