"""prolific_hooks [--target-url URL]: subscribe FactCrowd to Prolific's webhooks (a new workspace secret, kept here).

Subscribes the study and submission status events (study.status.change, submission.status.change) to
PUBLIC_BASE_URL/api/crowd/prolific/hooks/ (or --target-url: Prolific needs a public https URL), each subscription
confirmed with the X-Hook-Secret header Prolific answers. Run it again to rotate the secret: Prolific keeps one
active secret per workspace. Polling sync keeps running as the reconciliation.
"""
from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.crowd import ProviderError

HOOK_PATH = "/api/crowd/prolific/hooks/"


class Command(BaseCommand):
    help = "Subscribe to Prolific's study and submission webhooks with a fresh workspace secret."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--target-url", help=f"public https URL of {HOOK_PATH} (default: PUBLIC_BASE_URL + it)")

    def handle(self, *args, **opts) -> None:
        from annotation_tasks.services import webhooks

        target = opts["target_url"] or settings.PUBLIC_BASE_URL.rstrip("/") + HOOK_PATH
        if not target.startswith("https://"):
            raise CommandError(f"Prolific delivers only to a public https:// URL, not {target!r}: set PUBLIC_BASE_URL "
                               "or give --target-url")
        try:
            ids = webhooks.subscribe_prolific(target)
        except ProviderError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"subscribed {target} to {', '.join(webhooks.HOOK_EVENTS)} (subscriptions {', '.join(ids)}); "
                          "the workspace secret is stored")
