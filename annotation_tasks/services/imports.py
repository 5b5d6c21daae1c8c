"""Import services: the one entry point views, commands and Celery jobs use to load files into a project.

All or nothing: every file is read and validated before the first row is written, and all writes of a call
happen in one transaction. Idempotent: responses already in the project (same external id) are skipped,
so importing a file twice changes nothing.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.db import transaction

from annotation_tasks.importers import factscore, items, qasem_release
from annotation_tasks.importers.base import ImportFormatError
from annotation_tasks.importers.common import ImportResult, get_or_create_project
from annotation_tasks.models.projects import DEFAULT_PROTOCOL

__all__ = ["ImportFormatError", "ImportResult", "import_factscore", "import_items", "import_qasem_release"]


def import_qasem_release(path: str | Path, project_name: str) -> ImportResult:
    """A QASemConsistency release file (sources, responses, predicates, QAs, spans, the crowd's labels)."""
    path = Path(path)
    records = qasem_release.read(path)
    with transaction.atomic():
        project, _ = get_or_create_project(project_name, qasem_release.PROTOCOL)
        return qasem_release.write(project, records, path.name)


def import_factscore(paths: Sequence[str | Path], project_name: str, system: str | None = None) -> list[ImportResult]:
    """FActScore labeled files; the system is each file's stem unless given."""
    if system is not None and not system.strip():
        raise ImportFormatError("--system", None, None, "empty system name")
    loaded = []
    seen: dict[str, str] = {}  # response external id → file that has it
    for p in map(Path, paths):
        records = factscore.read(p, system or p.stem)
        for r in records:
            if r.response_external_id in seen:
                raise ImportFormatError(
                    p.name, r.line, "topic",
                    f"response {r.response_external_id!r} is also in {seen[r.response_external_id]} "
                    "(same system and topic; give each file its own --system or import them separately)",
                )
            seen[r.response_external_id] = p.name
        loaded.append((p, records))
    with transaction.atomic():
        project, _ = get_or_create_project(project_name, factscore.PROTOCOL)
        return [factscore.write(project, records, p.name) for p, records in loaded]


def import_items(path: str | Path, project_name: str) -> ImportResult:
    """Plain items (JSONL or CSV): sources with their responses, tokenized, not yet parsed."""
    path = Path(path)
    records = items.read(path)
    with transaction.atomic():
        project, _ = get_or_create_project(project_name, DEFAULT_PROTOCOL)
        return items.write(project, records, path.name)
