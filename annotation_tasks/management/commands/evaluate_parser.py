"""evaluate_parser --gold FILE.gold.csv --sentences FILE.full.csv | --qanom annot.dev.csv [--backend] [--iou T] [--json]"""
from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services.parsing import get_parser
from parser import evaluation


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
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")

    def handle(self, *args, gold: str | None, sentences: str | None, qanom: str | None, backend: str | None,
               iou: float, json: bool, **options) -> None:
        if not qanom and not (gold and sentences):
            raise CommandError("give --gold and --sentences (QA-SRL GS) or --qanom")
        if not 0 < iou <= 1:
            raise CommandError(f"--iou must be in (0, 1], got {iou}")
        try:
            parser = get_parser(backend)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        began = time.perf_counter()
        try:
            if qanom:
                report = evaluation.evaluate_nominal(evaluation.load_qanom(qanom), parser.parse_tokenized, iou)
                kind = "qanom"
            else:
                data = evaluation.load_qasrl_gs(gold, sentences)
                report = evaluation.evaluate_verbal(data, parser.parse_tokenized, iou)
                kind = "qasrl"
        except (OSError, KeyError) as exc:
            raise CommandError(f"cannot read the gold files: {exc}") from exc
        result = {"data": kind, "backend": parser.name, **report.as_dict(), "seconds": round(time.perf_counter() - began, 2)}
        if json:
            self.stdout.write(_dumps(result))
            return
        self.stdout.write(render(result))


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
