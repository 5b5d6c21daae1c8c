"""Per-predicate records of the nominal argument rules on a QANom split, to study and tune them on train.

    .venv/bin/python -m parser.training.nominal_records --qanom ../shared/data/qanom/annot.train.csv \
        --docs /tmp/qanom_train.spacy --out /tmp/qanom_train_records.jsonl

One line per gold eventive noun: the gold answer spans (with their wh-word and role) and every span the rules
propose (rule, kind, wh, the scorer's features). The spaCy parses are cached as a DocBin (`--docs`), so rule
changes are re-measured without re-parsing. `simulate` replays the evaluation's one-to-one IOU matching over
records, so that choices (thresholds, one answer per slot, trims) are measured on train as the evaluation would.
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from parser import evaluation, lexicon
from parser.embedded import load_spacy


def parsed_docs(qanom: Path, docs_path: Path | None) -> tuple[evaluation.GoldSet, list[str], list]:
    """The gold set, its sentence ids (sorted) and their spaCy parses (read from `docs_path` when cached)."""
    from spacy.tokens import Doc, DocBin

    gold = evaluation.load_qanom(qanom)
    nlp = load_spacy()
    ids = sorted({sid for sid, _ in gold.qas})
    if docs_path is not None and docs_path.exists():
        docs = list(DocBin().from_disk(docs_path).get_docs(nlp.vocab))
        if len(docs) == len(ids) and all(len(d) == len(gold.sentences[s]) for d, s in zip(docs, ids, strict=True)):
            return gold, ids, docs
    docs = list(nlp.pipe((Doc(nlp.vocab, words=gold.sentences[sid]) for sid in ids), batch_size=64))
    if docs_path is not None:
        DocBin(attrs=["TAG", "HEAD", "DEP", "POS", "LEMMA", "SENT_START"], docs=docs).to_disk(docs_path)
    return gold, ids, docs


def records(gold: evaluation.GoldSet, ids: list[str], docs: list) -> Iterator[dict]:
    """One record per gold eventive noun: gold answers and every proposed answer span with its features."""
    from parser.embedded.nominal import scored_questions
    from parser.embedded.questions import answer_spans

    by_sentence = gold.predicates_by_sentence()
    for sid, doc in zip(ids, docs, strict=True):
        for idx in by_sentence.get(sid, []):
            n = doc[idx]
            verb = lexicon.nominalization_verb(n.lower_) or n.lower_
            golds = [{"span": list(sp), "wh": qa.slots[0], "role": qa.role} for qa in gold.qas[(sid, idx)]
                     for sp in qa.answers]
            proposed = []
            for _, arg, feats in scored_questions(n, verb):
                for piece in answer_spans(arg):
                    proposed.append({"span": list(piece), "rule": arg.rule, "kind": arg.kind, "wh": arg.wh,
                                     "mention": piece == arg.mention, "features": feats})
            yield {"sid": sid, "idx": idx, "noun": n.text, "verb": verb, "gold": golds, "proposed": proposed}


def simulate(recs: Iterable[dict], keep: Callable[[dict, dict], bool], iou: float = evaluation.IOU_THRESHOLD
             ) -> evaluation.Counts:
    """Argument counts over records when the proposals `keep(record, proposal)` accepts are answered."""
    total = evaluation.Counts()
    for rec in recs:
        kept = [tuple(p["span"]) for p in rec["proposed"] if keep(rec, p)]
        spans = [tuple(g["span"]) for g in rec["gold"]]
        tp = len(evaluation.match_arguments(kept, spans, iou))
        total.add(evaluation.Counts(tp, len(kept) - tp, len(spans) - tp))
    return total


def scorer_keep() -> Callable[[dict, dict], bool]:
    """The parser's own choice (nominal_frame): the trained scorer's probability at least its threshold, a pronoun
    mention kept beside its antecedent only when it passes too."""
    from parser.embedded.nominal import argument_model

    model = argument_model()

    def keep(rec: dict, proposal: dict) -> bool:
        if model.probability(proposal["features"]) < model.threshold:
            return False
        return not proposal["mention"] or model.probability([*proposal["features"], "mention"]) >= model.threshold

    return keep


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qanom", required=True, type=Path)
    ap.add_argument("--docs", type=Path, default=None, help="spaCy parses cached here (DocBin)")
    ap.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    gold, ids, docs = parsed_docs(args.qanom, args.docs)
    recs = list(records(gold, ids, docs))
    with args.out.open("w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(rec) + "\n" for rec in recs)
    print(json.dumps({"predicates": len(recs), "arguments": simulate(recs, scorer_keep()).as_dict()}))


if __name__ == "__main__":
    main()
