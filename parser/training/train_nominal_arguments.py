"""Train the scorer of nominal arguments (and the generator's paths) on QANom train and write its JSON artefact.

    .venv/bin/python -m parser.training.train_nominal_arguments \
        --train ../shared/data/qanom/annot.train.csv [--out parser/data/nominal_arguments.json] \
        [--docs /tmp/qanom_train.spacy]

The embedded rules propose arguments for each gold eventive noun (possessor, of/by-phrases, compounds, PPs, the
clause's subject and adjuncts ...); each answer span they give is one example, labelled by whether it matches a
gold answer (token IOU >= 0.3, one to one, as the evaluation counts). A logistic regression over the rule and its
context (parser.embedded.nominal.argument_features) learns how far to trust each rule where; C and the threshold
are chosen by 5-fold cross-validation grouped by document, maximising argument F1 (recall over all gold answers).

The generator (nominal.generated_arguments) first proposes every phrase within three dependency edges of the
noun that the rules do not; a path signature is kept when it was seen `--gen-min-count` times and matched a gold
answer at least `--gen-min-rate` of them, with the question its matched answers ask most (doer, theme or the
adjunct's wh-word). The scorer is then trained on the rules' and the kept paths' spans together.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from parser import evaluation, lexicon
from parser.embedded import nominal
from parser.embedded.nominal import ARGUMENT_FEATURE_VERSION, ARGUMENT_MODEL_PATH, SELF_RULES, scored_questions
from parser.embedded.questions import answer_spans
from parser.training.linear_fit import f1_of, fit
from parser.training.nominal_records import parsed_docs

WEIGHT_FLOOR = 0.01
ADJUNCT_ROLES = frozenset({"when", "where", "why", "how", "how long", "how much"})


def extract(train: Path, docs_path: Path | None = None) -> tuple[list[dict], int]:
    """Examples (one per proposed answer span: features, label, rule, the matched gold answer's wh and role) and
    the number of gold answers of the gold eventive nouns."""
    gold, ids, docs = parsed_docs(train, docs_path)
    by_sentence = gold.predicates_by_sentence()
    examples: list[dict] = []
    gold_total = 0
    for sid, doc in zip(ids, docs, strict=True):
        for idx in by_sentence.get(sid, []):
            n = doc[idx]
            verb = lexicon.nominalization_verb(n.lower_) or n.lower_
            golds = [(sp, qa.slots[0], qa.role) for qa in gold.qas[(sid, idx)] for sp in qa.answers]
            gold_total += len(golds)
            proposed = [(piece, feats + (["mention"] if piece == arg.mention else []), _tier(arg.rule), arg.rule)
                        for _, arg, feats in scored_questions(n, verb) for piece in answer_spans(arg)]
            for (feats, hit), (_, _, _, rule) in zip(_labels([p[:3] for p in proposed], [g[0] for g in golds]),
                                                     proposed, strict=True):
                example = {"sid": sid, "features": feats, "label": hit is not None, "rule": rule}
                if hit is not None:
                    example["wh"], example["role"] = golds[hit][1], golds[hit][2]
                examples.append(example)
    return examples, gold_total


def _tier(rule: str) -> int:
    """Matching order in labelling: the hand rules, then the generator's paths, then the noun's own phrase."""
    return 2 if rule in SELF_RULES else 1 if rule.startswith("gen:") else 0


def _labels(proposed: list[tuple[tuple[int, int], list[str], int]], spans: list[tuple[int, int]]
            ) -> list[tuple[list[str], int | None]]:
    """Each proposed span's features and the gold answer it matches one to one (None when none), matched tier
    by tier: the generator's spans and the noun's own phrase (SELF_RULES) only take the answers the closer rules
    leave, so that they never take an answer from a closer span ("new" for "new elections") and teach the scorer
    that the closer rule missed."""
    hit: dict[int, int] = {}
    rest = list(range(len(spans)))
    for tier in (0, 1, 2):
        mine = [i for i, p in enumerate(proposed) if p[2] == tier]
        pairs = evaluation.match_arguments([proposed[i][0] for i in mine], [spans[j] for j in rest])
        hit |= {mine[a]: rest[b] for a, b in pairs}
        taken = {rest[b] for _, b in pairs}
        rest = [j for j in rest if j not in taken]
    return [(feats, hit.get(i)) for i, (_, feats, _) in enumerate(proposed)]


def learn_generator(examples: list[dict], min_count: int, min_rate: float) -> dict[str, tuple[str, str]]:
    """The path signatures worth proposing, each with (kind, wh) from the answers it matched: the adjunct's wh,
    or "" for who/what (asked by the head's word class) as the doer (R0) or the theme."""
    seen: Counter[str] = Counter()
    asked: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for e in examples:
        rule = e["rule"]
        if not rule.startswith("gen:"):
            continue
        sig = rule[4:]
        seen[sig] += 1
        if e["label"]:
            slot = ("adj", e["wh"]) if e["wh"] in ADJUNCT_ROLES else ("agent" if e["role"] == "R0" else "obj", "")
            if slot[0] != "agent" or nominal.agent_allowed(sig):  # a doer asked elsewhere is never asked at all
                asked[sig][slot] += 1
    table = {}
    for sig, count in seen.items():
        hits = sum(asked[sig].values())
        if count >= min_count and hits and hits >= min_rate * count:
            table[sig] = asked[sig].most_common(1)[0][0]
    return dict(sorted(table.items()))


def train(examples: list[dict], gold_total: int, min_count: int = 5) -> dict:
    fitted = fit(examples, lambda y, kept: f1_of(y, kept, gold_total), min_count=min_count)
    # weights under 0.01 (a probability moved by at most a quarter of a point) dropped to keep the artefact small
    fitted["weights"] = {k: w for k, w in fitted["weights"].items() if abs(w) >= WEIGHT_FLOOR}
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
    ap.add_argument("--docs", type=Path, default=None, help="spaCy parses of train cached here (DocBin)")
    ap.add_argument("--min-count", type=int, default=5, help="features seen in fewer examples are dropped")
    ap.add_argument("--gen-min-count", type=int, default=10, help="generator paths seen fewer times are dropped")
    ap.add_argument("--gen-min-rate", type=float, default=0.15, help="and those matching fewer gold answers")
    args = ap.parse_args(argv)
    nominal.use_generator(None, everything=True)
    everything, _ = extract(args.train, args.docs)
    table = learn_generator(everything, args.gen_min_count, args.gen_min_rate)
    print(f"generator: {len(table)} paths", file=sys.stderr)
    nominal.use_generator(table)
    examples, gold_total = extract(args.train, args.docs)
    nominal.use_generator(None)
    artefact = train(examples, gold_total, min_count=args.min_count)
    artefact["generator"] = {sig: list(slot) for sig, slot in table.items()}
    artefact["generator_about"] = (f"path signature -> [kind, wh ('' = by the head)]: seen >= {args.gen_min_count} "
                                   f"times on train, matching >= {args.gen_min_rate} of them")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(artefact, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in artefact.items() if k not in {"weights", "generator"}}
                     | {"features": len(artefact["weights"]), "generator": len(table)}))


if __name__ == "__main__":
    main()
