"""Shared translation for the import commands: run a service, print its summary, turn errors into CommandError."""
from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.importers import ImportFormatError, ImportResult


def run_import(command: BaseCommand, call: Callable[[], ImportResult | list[ImportResult]]) -> None:
    try:
        results = call()
    except ImportFormatError as exc:
        raise CommandError(f"nothing imported: {exc}") from exc
    for result in results if isinstance(results, list) else [results]:
        command.stdout.write(result.summary())
