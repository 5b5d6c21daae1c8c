"""evaluate_scorer --project NAME --scorer S [--scorer-version V] [--by dataset|system] [--json]"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.services import scoring


def _fmt(value, digits: int = 1) -> str:
    return "-" if value is None else (f"{value:.{digits}f}" if isinstance(value, float) else str(value))


class Command(BaseCommand):
    help = ("Meta-evaluate a scorer against the human labels: BAcc at 0.5 and ROC AUC per group, response-level "
            "correlation, per-system estimates and ranking, pairwise agreement.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--scorer", required=True, help="scorer name (built-in or imported)")
        parser.add_argument("--scorer-version", dest="scorer_version", default=None,
                            help="scorer version (default: the latest written)")
        parser.add_argument("--by", choices=scoring.EVAL_GROUPINGS, default=None, help="break item figures down")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout, nothing else")

    def handle(self, *args, project: str, scorer: str, scorer_version: str | None, by: str | None, json: bool,
               **options) -> None:
        try:
            result = scoring.evaluate_scorer(project, scorer, by=by, version=scorer_version, curves=json)
        except scoring.ScoringError as exc:
            raise CommandError(str(exc)) from exc
        if json:
            self.stdout.write(_dumps(result))
            return
        self.stdout.write(f"{result['scorer']} {result['version']} on {result['project']} ({result['level']} level)")
        for aspect, r in result["ragas"].items():
            self.stdout.write(f"ragas {aspect}: {r['decided_pairs']} of {r['pairs']} {r['compares']} pairs decided, "
                              f"metric agrees {_fmt(r['agreement'], 2)} (Ragas on WikiEval {r['ragas_wikieval']:.2f})")
        if result["level"] is None:
            return
        rows = [*(("  " + g, m) for g, m in result["by_group"].items()), ("all", result["all"])]
        self.stdout.write(f"{'group':<20} {'items':>6} {'supp%':>6} {'BAcc':>6} {'AUC':>6}")
        for name, m in rows:
            self.stdout.write(f"{name:<20} {m['items']:>6} {_fmt(m['supported_pct']):>6} {_fmt(m['bacc']):>6} "
                              f"{_fmt(m['auc']):>6}")
        r = result["responses"]
        self.stdout.write(f"responses {r['responses']}: pearson {_fmt(r['pearson'], 3)} spearman "
                          f"{_fmt(r['spearman'], 3)} MAE {_fmt(r['mae'])} points")
        systems = result["systems"]
        if systems and systems["systems"]:
            for s in systems["systems"]:
                self.stdout.write(f"  system {s['system']}: human {_fmt(s['human'])} metric {_fmt(s['metric'])} "
                                  f"error {_fmt(s['error'])}")
            self.stdout.write(f"ranking kept: {systems['ranking_kept']}")
        agreement = (result.get("human_agreement") or {}).get("all")
        if agreement:
            self.stdout.write(f"against the humans at {agreement['threshold']}: Cohen's kappa "
                              f"{_fmt(agreement['kappa'], 3)}, ECE {_fmt(agreement['ece'], 3)}")
        versus = result.get("crowd_vs_scorer")
        if versus:
            self.stdout.write(f"scorer vs crowd majority: {versus['disagreements']} disagreements, "
                              f"{versus['adjudicated']} adjudicated: crowd right {versus['crowd_right']}, scorer "
                              f"right {versus['scorer_right']} ({_fmt(versus['scorer_right_pct'])}%)")
            one = versus.get("versus_one_worker")
            if one:
                self.stdout.write(f"scorer vs one worker (judged by the item's other workers where they agree): "
                                  f"{one['disagreements']} disagreements, {one['judged']} judged: worker right "
                                  f"{one['worker_right']}, scorer right {one['scorer_right']} "
                                  f"({_fmt(one['scorer_right_pct'])}%; 50% = as good as a worker)")
        calibrated = result.get("systems_calibrated")
        if calibrated and calibrated["systems"]:
            for s in calibrated["systems"]:
                self.stdout.write(f"  calibrated (threshold {calibrated['threshold']:.3f}) {s['system']}: human "
                                  f"{_fmt(s['human'])} metric {_fmt(s['metric'])} error {_fmt(s['error'])}")
        for aspect, p in result["pairwise"].items():
            self.stdout.write(f"pairwise {aspect}: {p['pairs']} pairs, spearman {_fmt(p['spearman'], 3)}, "
                              f"agreement {_fmt(p['agreement_pct'])}%")


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False, allow_nan=False)
