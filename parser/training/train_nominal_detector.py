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
import sys
from collections import Counter
from pathlib import Path

from parser import lexicon
from parser.embedded import load_spacy
from parser.embedded.detector import FEATURE_VERSION, MODEL_PATH, features

C_GRID = (0.05, 0.1, 0.2, 0.5, 1.0)
THRESHOLDS = tuple(round(0.2 + 0.01 * i, 2) for i in range(51))


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


def _document(sid: str) -> str:
    """The article a QANom sentence id belongs to (Wiki1k:wikinews:1767148:1:1 -> Wiki1k:wikinews:1767148)."""
    return ":".join(sid.split(":")[:3])


def train(examples: list[dict], min_count: int = 3, seed: int = 0) -> dict:
    """Cross-validate C and the threshold, fit on all of train, and return the artefact as a dict."""
    import numpy as np
    import sklearn
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold

    counts = Counter(f for e in examples for f in set(e["features"]))
    kept = [{f: 1.0 for f in e["features"] if counts[f] >= min_count} for e in examples]
    y = np.array([e["label"] for e in examples], dtype=int)
    groups = [_document(e["sid"]) for e in examples]
    vec = DictVectorizer()
    x = vec.fit_transform(kept)
    folds = list(GroupKFold(n_splits=5).split(x, y, groups))
    best = (-1.0, 0.0, 0.5)
    cv: dict[str, dict[str, float]] = {}
    for c in C_GRID:
        oof = np.zeros(len(y))
        for fit_idx, held_idx in folds:
            model = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x[fit_idx], y[fit_idx])
            oof[held_idx] = model.predict_proba(x[held_idx])[:, 1]
        scores = {t: _f1(y, oof >= t) for t in THRESHOLDS}
        threshold = max(scores, key=lambda t: (scores[t], -abs(t - 0.5)))
        cv[str(c)] = {"threshold": threshold, "f1": round(scores[threshold], 4)}
        print(f"C={c}: CV F1 {scores[threshold]:.4f} at threshold {threshold}", file=sys.stderr)
        if scores[threshold] > best[0]:
            best = (scores[threshold], c, threshold)
    f1, c, threshold = best
    model = LogisticRegression(C=c, max_iter=2000, random_state=seed).fit(x, y)
    weights = {name: round(float(w), 4) for name, w in zip(vec.get_feature_names_out(), model.coef_[0], strict=True)
               if abs(w) >= 5e-4}
    return {
        "feature_version": FEATURE_VERSION,
        "about": "P(eventive) of a QANom noun candidate: sigmoid(intercept + sum of the weights of its features)",
        "trained_on": "QANom annot.train.csv",
        "examples": len(y),
        "positives": int(y.sum()),
        "C": c,
        "threshold": threshold,
        "cv_f1": round(f1, 4),
        "cv": cv,
        "sklearn": sklearn.__version__,
        "intercept": round(float(model.intercept_[0]), 4),
        "weights": dict(sorted(weights.items())),
    }


def _f1(y, predicted) -> float:
    tp = int((predicted & (y == 1)).sum())
    fp = int((predicted & (y == 0)).sum())
    fn = int((~predicted & (y == 1)).sum())
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


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
