"""bonus --assignment ID --amount 0.50 --reason TEXT | --batch ID --amount X --min-gold-accuracy 0.9 [--yes]"""
from __future__ import annotations

from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError
from annotation_tasks.management.commands._crowd import batches
from annotation_tasks.models import Assignment
from annotation_tasks.services import quality


class Command(BaseCommand):
    help = "Pay bonuses (each at most once: repeats of the same bonus are no-ops)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--assignment", type=int)
        parser.add_argument("--batch", type=int)
        parser.add_argument("--amount", required=True)
        parser.add_argument("--reason", required=True, help="shown to the worker")
        parser.add_argument("--min-gold-accuracy", type=float, help="only workers at or above this gold accuracy")
        parser.add_argument("--key", default="", help="tell apart two intended bonuses of the same amount")
        parser.add_argument("--yes", action="store_true")

    def handle(self, *args, **opts) -> None:
        amount = Decimal(opts["amount"])
        if opts["assignment"]:
            targets = list(Assignment.objects.filter(pk=opts["assignment"]).select_related("worker"))
            if not targets:
                raise CommandError(f"no assignment {opts['assignment']}")
        elif opts["batch"]:
            (batch,) = batches(opts["batch"], None)
            targets = list(  # work that counts: never a batch bonus for work its platform has not vouched for
                Assignment.objects.filter(Assignment.counted_q(), unit__batch=batch).select_related("worker")
            )
            if opts["min_gold_accuracy"] is not None:
                metrics = quality.worker_metrics(batch.project, {a.worker for a in targets})
                targets = [
                    a for a in targets
                    if (m := metrics.get(a.worker_id)) and m.gold_accuracy is not None
                    and m.gold_accuracy >= opts["min_gold_accuracy"]
                ]
        else:
            raise CommandError("give --assignment or --batch")
        self.stdout.write(f"{len(targets)} bonuses of {amount} = {amount * len(targets)} (plus platform fees)")
        if not opts["yes"] and input("Pay? [y/N] ").strip().lower() not in ("y", "yes"):
            self.stdout.write("nothing paid")
            return
        paid = 0
        for a in targets:
            try:
                d = quality.pay_bonus(a, amount, opts["reason"], key=opts["key"])
            except (ProviderError, quality.QualityError) as exc:
                raise CommandError(f"assignment {a.pk}: {exc} ({paid} paid before)") from exc
            paid += 1
            self.stdout.write(f"assignment {a.pk} ({a.worker.external_id}): bonus {d.status} (decision {d.pk})")
