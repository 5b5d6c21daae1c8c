"""Shared translation for the import commands: run a service, print its summary, turn errors into CommandError."""
from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.importers import ImportFormatError, ImportResult
from annotation_tasks.importers.base import ImportErrors
from annotation_tasks.services import projects


def add_owner_argument(parser) -> None:
    parser.add_argument("--owner", default=None, metavar="USER",
                        help="researcher who owns the project, so it shows in their dashboard "
                             "(default: the only researcher account)")


def run_import(command: BaseCommand, call: Callable[[], ImportResult | list[ImportResult]], *,
               project: str | None = None, owner: str | None = None) -> None:
    """Run an import; with `project`, its owner (--owner, else the only researcher) is resolved before anything
    is read, and becomes a researcher of the project afterwards."""
    user = None
    if project is not None:
        try:
            user = projects.resolve_owner(owner, project, allow_none=True)
        except projects.ProjectAdminError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
    try:
        results = call()
    except ImportFormatError as exc:
        if isinstance(exc, ImportErrors) and exc.total > 1:  # every bad line (the first MAX_ERRORS), one a line
            raise CommandError(f"nothing imported: {exc.total} errors\n" + "\n".join(exc.lines())) from exc
        raise CommandError(f"nothing imported: {exc}") from exc
    for result in results if isinstance(results, list) else [results]:
        command.stdout.write(result.summary())
    if project is not None:
        projects.own(project, user)
        warn_if_unowned(command, project)


def warn_if_unowned(command: BaseCommand, project: str) -> None:
    """No researcher account existed to own the project: say so, and how to make it visible in the dashboard."""
    if not projects.has_researcher(project):
        command.stderr.write(f"note: project {project!r} has no researcher, so no dashboard shows it; create an "
                             f"account and run: manage.py project add-member {project} USER --role researcher")
