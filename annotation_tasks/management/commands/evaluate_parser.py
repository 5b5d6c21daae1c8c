"""evaluate_parser --gold FILE.gold.csv --sentences FILE.full.csv | --qanom annot.dev.csv [--backend] [--iou T] [--json]"""
from __future__ import annotations

import json
import json as json_module
import time
from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.parsing import get_parser
from parser import evaluation
from parser.policy import DEFAULT_POLICY, QAPolicy, filter_frames
from parser.types import PredicateFrame


class Command(BaseCommand):
    help = "Argument (unlabeled / labeled) and predicate-detection P/R/F1 against QA-SRL GS or QANom gold data."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--gold", help="QA-SRL GS *.gold.csv")
        parser.add_argument("--sentences", help="QA-SRL GS *.full.csv (tokens of the same sentences)")
        parser.add_argument("--qanom", help="QANom annot.*.csv (nominal predicates)")
        parser.add_argument("--backend", default=None, help="parser backend (default: settings.PARSER_BACKEND)")
        parser.add_argument("--iou", type=float, default=evaluation.IOU_THRESHOLD,
                            help="span IOU for an argument match: 0.3 (default, QANom's convention and the QASem "
                                 "papers' figures) or 0.5 (the QA-SRL GS evaluation script's)")
        parser.add_argument("--policy", default=None,
                            help="score only the QAs a QA policy keeps: 'default' (parser.policy's precision-first "
                                 "default) or a JSON file with kinds / min_confidence / max_qas_per_predicate")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")

    def handle(self, *args, gold: str | None, sentences: str | None, qanom: str | None, backend: str | None,
               iou: float, policy: str | None, json: bool, **options) -> None:
        if not qanom and not (gold and sentences):
            raise CommandError("give --gold and --sentences (QA-SRL GS) or --qanom")
        if not 0 < iou <= 1:
            raise CommandError(f"--iou must be in (0, 1], got {iou}")
        try:
            parser = get_parser(backend)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        qa_policy = _read_policy(policy)
        parse = parser.parse_tokenized if qa_policy is None else _filtered(parser.parse_tokenized, qa_policy)
        began = time.perf_counter()
        try:
            if qanom:
                report = evaluation.evaluate_nominal(evaluation.load_qanom(qanom), parse, iou)
                kind = "qanom"
            else:
                data = evaluation.load_qasrl_gs(gold, sentences)
                report = evaluation.evaluate_verbal(data, parse, iou)
                kind = "qasrl"
        except (OSError, KeyError) as exc:
            raise CommandError(f"cannot read the gold files: {exc}") from exc
        result = {"data": kind, "backend": parser.name, **report.as_dict(), "seconds": round(time.perf_counter() - began, 2)}
        if qa_policy is not None:
            result["policy"] = qa_policy.to_dict()
        if json:
            self.stdout.write(_dumps(result))
            return
        self.stdout.write(render(result))


def _read_policy(value: str | None) -> QAPolicy | None:
    if not value:
        return None
    if value == "default":
        return DEFAULT_POLICY
    try:
        with open(value, encoding="utf-8") as handle:
            return QAPolicy.from_dict(json_module.load(handle), path=value)
    except (OSError, ValueError) as exc:  # PolicyError is a ValueError, and so is bad JSON
        raise CommandError(f"--policy: {exc}") from exc


def _filtered(parse_tokenized: Callable[..., list[list[PredicateFrame]]], policy: QAPolicy) -> Callable[..., list[list[PredicateFrame]]]:
    """parse_tokenized whose frames pass through the policy: the figures of what workers would be shown."""

    def parse(*args, **kwargs) -> list[list[PredicateFrame]]:
        return [filter_frames(frames, policy)[0] for frames in parse_tokenized(*args, **kwargs)]

    return parse


def render(r: dict) -> str:
    def row(name: str, m: dict) -> str:
        return f"{name:<22} P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  (tp {m['tp']} fp {m['fp']} fn {m['fn']})"

    lines = [
        f"{r['data']} gold, backend {r['backend']}: {r['sentences']} sentences, {r['gold_predicates']} gold predicates",
        row(f"arguments (IOU>={r['iou']:g})", r["arguments"]),
        row("labeled arguments", r["labeled_arguments"]),
        row("predicate detection", r["predicate_detection"]),
        f"{'valid questions':<22} {r['valid_question_share']:.1%} of {r['questions']}",
    ]
    if "detection_all_candidates_f1" in r:
        lines.append(f"{'  (all candidates)':<22} F1 {r['detection_all_candidates_f1']:.3f}  baseline: every released candidate")
    f1 = r["arguments"]["f1"]
    for name, ref in r["reference_f1"].items():
        lines.append(f"  vs {name}: {ref:.3f} ({f1 - ref:+.3f})")
    return "\n".join(lines) + "\n"


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
