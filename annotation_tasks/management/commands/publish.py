"""publish --project NAME --provider local|mturk|prolific|... --units N --assignments 3 --reward 1.50 [--sandbox] [--yes]

Prolific (and URL-parameter panels) get one study for the batch: --units-per-place units a place (places = units x
assignments / units per place), --minutes-per-place to end a place early. MTurk takes no new requesters since
2026-07-30 and closes on 2026-09-30: publishing there needs MTURK_ENDPOINT_URL naming an MTurk-compatible endpoint.
"""
from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError, available_providers, get_provider
from annotation_tasks.management.commands._crowd import project_named
from annotation_tasks.models import Batch
from annotation_tasks.services import publishing
from annotation_tasks.services.batches import OVERRIDABLE, BatchRuleError, publish_blockers
from annotation_tasks.services.sessions import hourly_rate


def _nothing_to_publish(project) -> CommandError:
    """Why a new batch came out empty: no sources at all, or every source already in a batch."""
    if not project.sources.exists():
        return CommandError(f"no units to publish: project {project.name!r} has no sources yet "
                            "(import items first, e.g. manage.py import_items FILE --project NAME)")
    return CommandError("no units to publish: every source of the project is already in a batch")


class Command(BaseCommand):
    help = "Compose units into a batch and publish it on a crowd platform (prints the cost and asks first)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--project", required=True)
        parser.add_argument("--provider", choices=available_providers(), default=None)
        parser.add_argument("--batch", help="batch name (default: a new one); an existing batch resumes publishing")
        parser.add_argument("--units", type=int, help="this many new units, from whole unused sources (a source over the unit caps makes several)")
        parser.add_argument("--assignments", type=int, default=3)
        parser.add_argument("--reward", required=True, help="per assignment, e.g. 1.50")
        parser.add_argument("--sandbox", action="store_true", help="use the platform's sandbox (MTurk)")
        parser.add_argument("--yes", action="store_true", help="do not ask before spending")
        parser.add_argument("--title")
        parser.add_argument("--description")
        parser.add_argument("--min-approval-rate", type=int)
        parser.add_argument("--min-approved-hits", type=int)
        parser.add_argument("--locale", action="append", dest="locales", help="e.g. US or US-CA; repeatable")
        parser.add_argument("--qualification", action="append", default=[],
                            help="our own qualification a worker must hold (controlled crowdsourcing); repeatable")
        parser.add_argument("--rate", type=float, help="platform calls per second while publishing")
        parser.add_argument("--units-per-place", type=int,
                            help="one-study platforms (Prolific, panels): units a participant does in one place")
        parser.add_argument("--minutes-per-place", type=int, help="one-study platforms: a place ends after this")
        parser.add_argument("--panel-id-param", help="--provider panel: the query parameter holding the participant id")
        parser.add_argument("--completion-code", help="--provider panel: the code the panel gave you for completions")
        parser.add_argument("--completion-redirect",
                            help="--provider panel: where to send finished participants ({code}, {participant})")
        parser.add_argument("--minutes-per-unit", type=float,
                            help="your estimate of one unit's time before a pilot measures it (fair-pay check)")
        parser.add_argument("--override-validation-reason", default="",
                            help="publish units that hold undecided QAs anyway (QA validation protocols): why (logged)")

    def handle(self, *args, **opts) -> None:
        from django.conf import settings

        project = project_named(opts["project"])
        try:
            reward = Decimal(opts["reward"])
        except InvalidOperation as exc:
            raise CommandError(f"--reward {opts['reward']!r} is not an amount") from exc
        provider_name = opts["provider"] or settings.CROWD_DEFAULT_PROVIDER
        refusal = get_provider(provider_name, **({"sandbox": True} if opts["sandbox"] else {})).publish_refusal()
        if refusal is not None:  # before a batch is composed: nothing is left behind
            raise CommandError(refusal)
        batch = Batch.objects.filter(project=project, name=opts["batch"]).first() if opts["batch"] else None
        created = batch is None
        if batch is None:
            batch = publishing.new_batch(
                project, name=opts["batch"], provider_name=provider_name, units=opts["units"],
                assignments_per_unit=opts["assignments"],
            )
            if not batch.units.exists():
                batch.delete()
                raise _nothing_to_publish(project)

        def discard() -> None:
            """A batch this command composed and did not publish is removed: declining leaves nothing behind."""
            if created and batch.status == Batch.Status.DRAFT and not batch.units.exclude(provider_ref="").exists():
                batch.delete()

        blockers = _override_validation(batch, opts["override_validation_reason"], discard)
        if blockers:
            discard()
            raise CommandError(f"batch {batch.name}: " + " ".join(b.message for b in blockers))
        options = {
            k: v for k, v in {
                "title": opts["title"], "description": opts["description"],
                "min_approval_rate": opts["min_approval_rate"], "min_approved_hits": opts["min_approved_hits"],
                "locales": opts["locales"],
                "qualifications": {q: 1 for q in opts["qualification"]} or None,
                "units_per_place": opts["units_per_place"], "minutes_per_place": opts["minutes_per_place"],
                "estimated_minutes_per_unit": opts["minutes_per_unit"], "panel_id_param": opts["panel_id_param"],
                "completion_code": opts["completion_code"], "completion_redirect": opts["completion_redirect"],
            }.items() if v is not None
        }
        provider = get_provider(provider_name, **({"sandbox": True} if opts["sandbox"] else {}))

        def confirm(estimate, balance) -> bool:
            self.stdout.write(f"batch {batch.name} (id {batch.pk}) on {provider_name}: {estimate.describe()}")
            self.stdout.write(f"expected pay: {hourly_rate(batch, provider, reward).describe()}")
            if balance is not None:
                self.stdout.write(f"balance: {balance} {estimate.currency}")
            if opts["yes"]:
                return True
            return input("Publish and spend this? [y/N] ").strip().lower() in ("y", "yes")

        try:
            result = publishing.publish_batch(
                batch, reward=reward, assignments_per_unit=opts["assignments"], provider=provider, confirm=confirm,
                rate_per_second=opts["rate"], **options,
            )
        except (ProviderError, BatchRuleError) as exc:
            discard()
            raise CommandError(str(exc)) from exc
        if not result.confirmed:
            discard()
            self.stdout.write("not published (nothing was spent)" + ("; no batch was kept" if created else
                                                                     "; the batch stays a draft"))
            return
        self._report(batch, result, provider, provider_name, settings)

    def _report(self, batch, result, provider, provider_name: str, settings) -> None:
        self.stdout.write(
            f"published {len(result.published)} units ({result.already_published} were already published) "
            f"in batch {batch.name} (id {batch.pk})"
        )
        if batch.provider_ref:
            self.stdout.write(f"  as one study {batch.provider_ref}: {batch.settings.get('places')} places of "
                              f"{batch.settings.get('units_per_place')} units")
        if provider_name == "panel" and result.published:
            from annotation_tasks.crowd.panel import panel_link

            self.stdout.write(f"  the panel's link (put its participant-id placeholder at the end): {panel_link(batch)}")
            return
        for unit in result.published[:3]:
            try:
                self.stdout.write(f"  preview: {provider.preview_url(unit)}")
            except ProviderError:
                pass
        if result.published and provider_name == "local":
            self.stdout.write(f"  (links use PUBLIC_BASE_URL={settings.PUBLIC_BASE_URL}; if the server runs elsewhere, "
                              "export PUBLIC_BASE_URL=http://HOST:PORT before publishing)")


def _override_validation(batch: Batch, reason: str, discard) -> list:
    """The batch's publish blockers, after recording an override of the validation gate when one is asked."""
    blockers = publish_blockers(batch)
    if reason and any(b.code in OVERRIDABLE for b in blockers):
        from annotation_tasks.services.validation import ValidationInputError, override_validation

        try:
            override_validation(batch, reason)
        except ValidationInputError as exc:
            discard()
            raise CommandError(f"--override-validation-reason: {exc.message}") from exc
        blockers = publish_blockers(batch)
    return blockers
