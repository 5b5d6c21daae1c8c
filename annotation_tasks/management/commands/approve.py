"""approve --batch ID [--all] | --assignment ID [--reject --feedback TEXT]: review submitted work."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError
from annotation_tasks.management.commands._crowd import batches
from annotation_tasks.models import Assignment
from annotation_tasks.services import quality


class Command(BaseCommand):
    help = "Approve submitted work by the batch's approval policy (default), all of it, or one assignment."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int)
        parser.add_argument("--project")
        parser.add_argument("--assignment", type=int)
        parser.add_argument("--all", action="store_true", help="approve every submitted assignment of the batch")
        parser.add_argument("--reject", action="store_true", help="reject --assignment instead")
        parser.add_argument("--feedback", default="", help="shown to the worker")
        parser.add_argument("--reason", default="approved from the command line")

    def handle(self, *args, **opts) -> None:
        try:
            if opts["assignment"]:
                a = Assignment.objects.select_related("worker").filter(pk=opts["assignment"]).first()
                if a is None:
                    raise CommandError(f"no assignment {opts['assignment']}")
                if opts["reject"]:
                    if not opts["feedback"]:
                        raise CommandError("--reject needs --feedback (the worker sees it)")
                    d = quality.reject(a, opts["feedback"], reason=opts["reason"])
                else:
                    d = quality.approve(a, reason=opts["reason"], feedback=opts["feedback"])
                self.stdout.write(f"assignment {a.pk}: {d.action} {d.status} (decision {d.pk})")
                return
            for batch in batches(opts["batch"], opts["project"]):
                if opts["all"]:
                    n = 0
                    for a in Assignment.objects.filter(unit__batch=batch, status=Assignment.Status.SUBMITTED).select_related("worker"):
                        quality.approve(a, reason=opts["reason"], feedback=opts["feedback"])
                        n += 1
                    self.stdout.write(f"batch {batch.name}: approved {n}")
                else:
                    r = quality.apply_approval_policy(batch)
                    self.stdout.write(f"batch {batch.name}: approved {r['approved']}, waiting {r['waiting']}"
                                      + (f", unverified (left for a person) {r['unverified']}" if r.get("unverified") else ""))
        except (ProviderError, quality.QualityError) as exc:
            raise CommandError(str(exc)) from exc
