"""design --project NAME --target-ci W [--metric kappa|alpha|consistency|factscore] [--budget AMOUNT] [--json]"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.analysis.design import METRICS
from annotation_tasks.models import Project
from annotation_tasks.services.design import DEFAULT_PAY_PER_HOUR, DesignError, design_from_params


class Command(BaseCommand):
    help = ("The fewest annotators per item and items (per system) whose 95% interval on the metric is narrower than "
            "W, from the project's labels as a pilot (or stated priors), with labels, hours, cost and the coverage "
            "of a simulation drawing that design from the pilot's votes.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True, help="project name")
        parser.add_argument("--target-ci", required=True, help="interval width: kappa/alpha units, points for shares")
        parser.add_argument("--metric", default="kappa", choices=METRICS)
        parser.add_argument("--budget", default=None, help="amount available (same currency as --pay-per-hour)")
        parser.add_argument("--level", default=None, help="label level for kappa/alpha (qa, span, fact)")
        parser.add_argument("--seconds-per-label", default=None, help="default: the pilot's median, else 15")
        parser.add_argument("--pay-per-hour", default=str(DEFAULT_PAY_PER_HOUR))
        parser.add_argument("--prior-supported", default=None, help="before a pilot: expected share supported")
        parser.add_argument("--prior-kappa", default=None, help="before a pilot: expected kappa")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout, nothing else")

    def handle(self, *args, project: str, json: bool, **options) -> None:
        found = Project.objects.filter(name=project).first()
        if found is None:
            raise CommandError(f"no project named {project!r}")
        try:
            out = design_from_params(found, {k: v for k, v in options.items() if k in PARAMS})
        except DesignError as exc:
            raise CommandError(f"--{exc.field.replace('_', '-')}: {exc}") from exc
        if json:
            self.stdout.write(_dumps(out))
            return
        self.stdout.write(render(out))


PARAMS = ("target_ci", "metric", "budget", "level", "seconds_per_label", "pay_per_hour", "prior_supported",
          "prior_kappa")


def render(out: dict) -> str:
    unit = out["items_are"]
    lines = [
        f"Design for {out['project']}: 95% interval on {out['metric']} ({out['level']}) narrower than {out['target_ci']}",
        f"  {out['annotators_per_item']} annotators per item, {out['items']} {unit}"
        + (f" (systems: {', '.join(out['systems'])})" if out["systems"] else ""),
        f"  {out['labels']} labels, {out['hours']} hours at {out['seconds_per_label']:.1f} s per label, "
        f"cost {out['cost']} at {out['pay_per_hour']} per hour"
        + ("" if out["within_budget"] is None else (" (within budget)" if out["within_budget"] else " (OVER budget)")),
        f"  simulated coverage: {out['simulated_coverage']:.3f} of {out['simulated_draws']} draws of this design "
        f"from the {out['source']} narrower than {out['target_ci']}",
        "  alternatives (annotators, items, labels): "
        + "; ".join(f"{a['annotators_per_item']}, {a['items']}, {a['labels']}" for a in out["alternatives"]),
    ]
    return "\n".join(lines) + "\n"


def _dumps(out: dict) -> str:
    return json.dumps(out, ensure_ascii=False, allow_nan=False)
