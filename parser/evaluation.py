"""Evaluation against gold QA-SRL (QA-SRL Gold Standard) and QANom data.

Metrics follow the QASem papers' argument detection: per predicate, every answer span of every QA is one argument;
a predicted span matches a gold span when their token IOU is >= the threshold, one-to-one, greedily by IOU (as
QANom's evaluation code does). The threshold is 0.3 by default (QANom's convention, and the QASem papers'
figures); the QA-SRL Gold Standard's own script uses 0.5; labeled matches also need the same He et al. role of the two questions. Gold predicates
are given to the parser for the argument metrics; predicate detection is measured separately on the same
sentences with the parser's own detection.
"""
from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from parser import qasrl_slots
from parser.types import PredicateFrame

IOU_THRESHOLD = 0.3  # QANom's convention; QA_SRL_GS_IOU is the QA-SRL GS evaluation script's
QA_SRL_GS_IOU = 0.5
# Published argument-detection F1 (span IOU >= 0.3) to place our figures against.
REFERENCE_F1 = {
    "qasrl": {"qasem_t5_small": 0.686, "qasem_consistency_t5_xl": 0.759},
    "qanom": {"qasem_consistency_t5_xl": 0.724},
}

Span = tuple[int, int]


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, other: Counts) -> None:
        self.tp, self.fp, self.fn = self.tp + other.tp, self.fp + other.fp, self.fn + other.fn

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float]:
        return {
            **asdict(self),
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
        }


@dataclass(frozen=True)
class GoldQA:
    slots: tuple[str, ...]
    answers: tuple[Span, ...]
    role: str


@dataclass
class GoldSet:
    """Sentences (tokens) and, per (sentence id, predicate index), the gold QAs."""

    sentences: dict[str, list[str]]
    qas: dict[tuple[str, int], list[GoldQA]] = field(default_factory=dict)
    # nominal candidates: (sentence id, index) -> is_verbal (QANom only)
    candidates: dict[tuple[str, int], bool] = field(default_factory=dict)

    def predicates_by_sentence(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = defaultdict(list)
        for sid, idx in self.qas:
            out[sid].append(idx)
        return {sid: sorted(v) for sid, v in out.items()}


def iou(a: Span, b: Span) -> float:
    joint = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - joint
    return joint / union if union else 0.0


def match_arguments(predicted: Sequence[Span], gold: Sequence[Span], threshold: float = IOU_THRESHOLD) -> list[tuple[int, int]]:
    """One-to-one matches (predicted index, gold index), best IOU first."""
    pairs = sorted(
        ((iou(p, g), i, j) for i, p in enumerate(predicted) for j, g in enumerate(gold)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    used_p: set[int] = set()
    used_g: set[int] = set()
    matches = []
    for score, i, j in pairs:
        if score < threshold:
            break
        if i in used_p or j in used_g:
            continue
        used_p.add(i)
        used_g.add(j)
        matches.append((i, j))
    return matches


def _parse_ranges(text: str) -> tuple[Span, ...]:
    spans = []
    for part in (text or "").split("~!~"):
        if ":" in part:
            a, b = part.split(":", 1)
            if a.strip().isdigit() and b.strip().isdigit() and int(b) > int(a):
                spans.append((int(a), int(b)))
    return tuple(spans)


def _gold_slots(row: dict[str, str]) -> tuple[str, ...]:
    def val(name: str) -> str:
        v = (row.get(name) or "").strip()
        return v if v else "_"

    verb = " ".join(x for x in ((row.get("verb_prefix") or "").replace("~!~", " ").strip(), row.get("verb_slot_inflection") or "") if x)
    return (val("wh"), val("aux"), val("subj"), verb or "_", val("obj"), val("prep"), val("obj2"))


def _gold_qa(row: dict[str, str]) -> GoldQA | None:
    answers = _parse_ranges(row.get("answer_range", ""))
    if not answers or not (row.get("wh") or "").strip():
        return None
    slots = _gold_slots(row)
    passive = (row.get("is_passive") or "").strip().lower() == "true"
    return GoldQA(slots, answers, qasrl_slots.role_of(slots, passive=passive))


def load_qasrl_gs(gold_csv: Path | str, sentences_csv: Path | str) -> GoldSet:
    """QA-SRL Gold Standard: *.gold.csv (one row per QA) and *.full.csv (qasrl_id, tokens, sentence)."""
    sentences: dict[str, list[str]] = {}
    with open(sentences_csv, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            sentences[row["qasrl_id"]] = row["tokens"].split(" ")
    gold = GoldSet(sentences)
    with open(gold_csv, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            key = (row["qasrl_id"], int(row["verb_idx"]))
            qa = _gold_qa(row)
            bucket = gold.qas.setdefault(key, [])
            if qa is not None:
                bucket.append(qa)
    return gold


def load_qanom(annot_csv: Path | str) -> GoldSet:
    """QANom annot.*.csv: candidates with is_verbal; QAs for the verbal ones."""
    gold = GoldSet({})
    with open(annot_csv, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            sid = row["qasrl_id"]
            gold.sentences.setdefault(sid, row["sentence"].split(" "))
            key = (sid, int(row["target_idx"]))
            is_verbal = (row.get("is_verbal") or "").strip().lower() == "true"
            gold.candidates[key] = gold.candidates.get(key, False) or is_verbal
            if is_verbal:
                bucket = gold.qas.setdefault(key, [])
                qa = _gold_qa(row)
                if qa is not None:
                    bucket.append(qa)
    return gold


@dataclass
class Report:
    arguments: Counts = field(default_factory=Counts)
    labeled: Counts = field(default_factory=Counts)
    predicates: Counts = field(default_factory=Counts)
    questions: int = 0
    valid_questions: int = 0
    sentences: int = 0
    gold_predicates: int = 0
    kind: str = "qasrl"
    baseline_detection_f1: float | None = None  # QANom: calling every released candidate eventive
    iou: float = IOU_THRESHOLD

    def as_dict(self) -> dict:
        return {
            "sentences": self.sentences,
            "gold_predicates": self.gold_predicates,
            "iou": self.iou,
            "arguments": self.arguments.as_dict(),
            "labeled_arguments": self.labeled.as_dict(),
            "predicate_detection": self.predicates.as_dict(),
            "questions": self.questions,
            "valid_question_share": round(self.valid_questions / self.questions, 4) if self.questions else 1.0,
            "reference_f1": REFERENCE_F1[self.kind],
            **({"detection_all_candidates_f1": round(self.baseline_detection_f1, 4)}
               if self.baseline_detection_f1 is not None else {}),
        }


def score_predicate(
    frame: PredicateFrame | None, gold_qas: Iterable[GoldQA], iou_threshold: float = IOU_THRESHOLD
) -> tuple[Counts, Counts, int, int]:
    """Argument counts (unlabeled, labeled) and (questions, valid questions) of one predicate."""
    gold_args = [(span, qa.role) for qa in gold_qas for span in qa.answers]
    pred_args: list[tuple[Span, str]] = []
    questions = valid = 0
    if frame is not None:
        for qa in frame.qas:
            questions += 1
            valid += qasrl_slots.is_valid(qa.raw_question)
            role = qa.role or qasrl_slots.role_of(qa.raw_question)
            pred_args.extend(((a.start, a.end), role) for a in qa.answers)
    matches = match_arguments([p[0] for p in pred_args], [g[0] for g in gold_args], iou_threshold)
    tp = len(matches)
    unlabeled = Counts(tp, len(pred_args) - tp, len(gold_args) - tp)
    ltp = sum(1 for i, j in matches if pred_args[i][1] == gold_args[j][1])
    labeled = Counts(ltp, len(pred_args) - ltp, len(gold_args) - ltp)
    return unlabeled, labeled, questions, valid


def evaluate_verbal(
    gold: GoldSet, parse_tokenized: Callable[..., list[list[PredicateFrame]]], iou_threshold: float = IOU_THRESHOLD
) -> Report:
    """QA-SRL GS: arguments with gold predicates given; verbal predicate detection on the same sentences."""
    report = Report(iou=iou_threshold)
    by_sentence = gold.predicates_by_sentence()
    ids = [sid for sid in gold.sentences if sid in by_sentence]
    tokens = [gold.sentences[sid] for sid in ids]
    given = parse_tokenized(tokens, predicates=[by_sentence[sid] for sid in ids])
    detected = parse_tokenized(tokens, predicates=None)
    report.sentences = len(ids)
    for sid, frames, own in zip(ids, given, detected, strict=True):
        by_index = {f.token_index: f for f in frames}
        for idx in by_sentence[sid]:
            report.gold_predicates += 1
            u, lab, q, v = score_predicate(by_index.get(idx), gold.qas[(sid, idx)], iou_threshold)
            report.arguments.add(u)
            report.labeled.add(lab)
            report.questions += q
            report.valid_questions += v
        predicted = {f.token_index for f in own if f.kind == "verbal"}
        wanted = set(by_sentence[sid])
        report.predicates.add(Counts(len(predicted & wanted), len(predicted - wanted), len(wanted - predicted)))
    return report


def evaluate_nominal(
    gold: GoldSet, parse_tokenized: Callable[..., list[list[PredicateFrame]]], iou_threshold: float = IOU_THRESHOLD
) -> Report:
    """QANom: eventive-noun detection over the released candidates; arguments of the gold eventive nouns."""
    report = Report(kind="qanom", iou=iou_threshold)
    ids = list(gold.sentences)
    tokens = [gold.sentences[sid] for sid in ids]
    verbal_nouns: dict[str, list[int]] = defaultdict(list)
    candidates: dict[str, list[tuple[int, bool]]] = defaultdict(list)
    for (sid, idx), is_verbal in gold.candidates.items():
        candidates[sid].append((idx, is_verbal))
        if is_verbal:
            verbal_nouns[sid].append(idx)
    given = parse_tokenized(tokens, predicates=[[] for _ in ids], nominal_predicates=[verbal_nouns.get(s, []) for s in ids])
    detected = parse_tokenized(tokens, predicates=None)
    report.sentences = len(ids)
    for sid, frames, own in zip(ids, given, detected, strict=True):
        by_index = {f.token_index: f for f in frames if f.kind == "nominal"}
        for idx in verbal_nouns.get(sid, []):
            report.gold_predicates += 1
            u, lab, q, v = score_predicate(by_index.get(idx), gold.qas.get((sid, idx), []), iou_threshold)
            report.arguments.add(u)
            report.labeled.add(lab)
            report.questions += q
            report.valid_questions += v
        predicted = {f.token_index for f in own if f.kind == "nominal"}
        for idx, is_verbal in candidates.get(sid, []):
            hit = idx in predicted
            report.predicates.add(Counts(int(hit and is_verbal), int(hit and not is_verbal), int(is_verbal and not hit)))
    positives = sum(gold.candidates.values())
    report.baseline_detection_f1 = Counts(positives, len(gold.candidates) - positives, 0).f1
    return report
