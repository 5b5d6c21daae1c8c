"""workers --project NAME [--evaluate] [--block W | --unblock W | --reverse DECISION --reason TEXT] [--with-platform-ids]

Workers are named as everywhere else (services.identity): pseudonym and display name; W is a pseudonym or an id.
"""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError
from annotation_tasks.management.commands._crowd import project_named, table
from annotation_tasks.models import QualityDecision
from annotation_tasks.services import identity, quality


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"


class Command(BaseCommand):
    help = "A table of a project's workers (gold accuracy, agreement, units done, status); quality actions."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--evaluate", action="store_true", help="apply the thresholds (qualify/warn/soft-block)")
        parser.add_argument("--block", metavar="WORKER", help="block on the platform (pseudonym W-... or id)")
        parser.add_argument("--unblock", metavar="WORKER")
        parser.add_argument("--reverse", type=int, metavar="DECISION_ID", help="reverse a logged decision")
        parser.add_argument("--reason", default="")
        parser.add_argument("--decisions", action="store_true", help="also list the decision log")
        parser.add_argument("--with-platform-ids", action="store_true",
                            help="also show each worker's platform id (provider:external id)")

    def handle(self, *args, **opts) -> None:
        project = project_named(opts["project"])
        try:
            if opts["block"] or opts["unblock"]:
                worker = identity.worker_by_ref(opts["block"] or opts["unblock"], project.pk)
                if not opts["reason"]:
                    raise CommandError("--reason is required (it is logged)")
                if opts["block"]:  # the CLI's --block is a platform block (its help says so)
                    d = quality.block(worker, opts["reason"], project=project, platform=True)
                else:
                    d = quality.unblock(worker, opts["reason"], project=project)
                self.stdout.write(f"{d.action} {worker.pseudonym_in(project.pk)}: {d.status} (decision {d.pk})")
            if opts["reverse"]:
                if not opts["reason"]:
                    raise CommandError("--reason is required (it is logged)")
                d = quality.reverse_decision(QualityDecision.objects.get(pk=opts["reverse"]), opts["reason"])
                self.stdout.write(f"reversed decision {opts['reverse']} with {d.action} (decision {d.pk})")
            if opts["evaluate"]:
                for d in quality.evaluate_workers(project):
                    self.stdout.write(f"{d.action} {d.worker.pseudonym_in(project.pk)}: {d.reason}")
        except (ProviderError, quality.QualityError, identity.IdentityError, QualityDecision.DoesNotExist) as exc:
            raise CommandError(str(exc)) from exc
        metrics = sorted(quality.worker_metrics(project).values(), key=lambda m: (m.provider, m.external_id))
        with_ids = opts["with_platform_ids"]
        who = identity.describe_many([m.worker_id for m in metrics], project_id=project.pk, with_platform_ids=with_ids)
        rows = [
            [str(m.worker_id), who[m.worker_id]["pseudonym"], who[m.worker_id]["name"], m.provider,
             *([who[m.worker_id]["platform_id"]] if with_ids else []), str(m.units_done),
             _pct(m.gold_accuracy) + (f" ({m.gold_correct}/{m.gold_total})" if m.gold_total else ""),
             _pct(m.agreement), "-" if m.median_time_on_task_ms is None else f"{m.median_time_on_task_ms / 1000:.0f}s",
             m.status]
            for m in metrics
        ]
        header = ["id", "worker", "name", "provider", *(["platform id"] if with_ids else []), "units",
                  "gold accuracy", "agreement", "median time", "status"]
        self.stdout.write(table(rows, header) if rows else "no workers yet")
        if opts["decisions"]:
            for d in QualityDecision.objects.filter(worker__assignments__unit__project=project).distinct():
                self.stdout.write(
                    f"{d.pk} {d.created_at:%Y-%m-%d %H:%M} {d.worker.pseudonym_in(project.pk)} {d.action} {d.status}: {d.reason}"
                )
