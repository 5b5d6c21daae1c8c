"""Import services: the one entry point views, commands and Celery jobs use to load files into a project.

All or nothing: every file is read and validated before the first row is written, and all writes of a call
happen in one transaction. Idempotent: responses already in the project (same external id) are skipped,
so importing a file twice changes nothing.
"""
from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import import_module
from pathlib import Path

from django.db import transaction

from annotation_tasks.importers import atomic_facts, factscore, items, qasem_release, results_csv, wikieval
from annotation_tasks.importers.base import ImportFormatError
from annotation_tasks.importers.common import ImportResult, get_or_create_project
from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.models import Assignment, Batch, Project
from annotation_tasks.models.projects import DEFAULT_PROTOCOL
from annotation_tasks.services import work

__all__ = [
    "ImportFormatError", "ImportResult", "import_facts", "import_factscore", "import_items", "import_qasem_release",
    "import_results_csv", "import_wikieval", "run_import",
]


def _not_empty(records: list, path: Path) -> list:
    """An empty file (or one of blank lines) is a mistake, not an empty project: refuse it before creating anything."""
    if not records:
        raise ImportFormatError(path.name, None, None, "no records in the file (it is empty); nothing was created")
    return records


def import_qasem_release(path: str | Path, project_name: str) -> ImportResult:
    """A QASemConsistency release file (sources, responses, predicates, QAs, spans, the crowd's labels)."""
    path = Path(path)
    records = _not_empty(qasem_release.read(path), path)
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
        records = _not_empty(factscore.read(p, system or p.stem), p)
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


def import_facts(path: str | Path, project_name: str) -> ImportResult:
    """Atomic facts made elsewhere, per response and sentence, onto an existing project's responses."""
    path = Path(path)
    records = _not_empty(atomic_facts.read(path), path)
    with transaction.atomic():
        project = Project.objects.filter(name=project_name).first()
        if project is None:
            raise ImportFormatError("--project", None, None, f"no project named {project_name!r}")
        return atomic_facts.write(project, records, path.name)


def import_items(path: str | Path, project_name: str, *, update: bool = False) -> ImportResult:
    """Plain items (JSONL or CSV): sources with their responses, tokenized, not yet parsed. `update` applies lines
    whose response is already there with another text (reported in the result otherwise)."""
    path = Path(path)
    records = _not_empty(items.read(path), path)
    with transaction.atomic():
        project, _ = get_or_create_project(project_name, DEFAULT_PROTOCOL)
        return items.write(project, records, path.name, update=update)


def import_wikieval(path: str | Path, project_name: str) -> ImportResult:
    """Ragas' WikiEval layout (JSONL or CSV): per question its contexts and answers, for Ragas units."""
    path = Path(path)
    rows = wikieval.read(path)
    with transaction.atomic():
        project, _ = get_or_create_project(project_name, wikieval.PROTOCOL)
        return wikieval.write(project, rows, path.name)


def import_results_csv(
    batch: Batch, rows: Iterable[Mapping[str, str]] | io.TextIOBase, *, provider_name: str = "mturk",
    answer_to_labels: Callable[[Mapping[str, str]], dict | None] = results_csv.default_labels,
) -> results_csv.ImportResult:
    """An MTurk (or Turkle) results file into `batch`; labels go through the work service's validated submit."""

    def submit(assignment: Assignment, body: dict) -> str | None:
        try:
            work.submit(assignment, body)
        except work.WorkError as exc:
            return f"{exc} {getattr(exc, 'errors', '')}"
        return None

    records = results_csv.read(rows, answer_to_labels)
    return results_csv.write(batch, records, submit=submit, provider_name=provider_name)


def run_import(fmt: str, path: str | Path, project_name: str, **options: str) -> list[ImportResult]:
    """Import one file in the format `fmt` of the registry (importers.registry): the upload job and
    `manage.py import_file` call this. Options the format does not take, or left empty, are not passed."""
    spec = IMPORTERS.get(fmt)
    if spec is None:
        raise ImportFormatError("format", None, None, f"unknown format {fmt!r} (one of {', '.join(IMPORTERS)})")
    module, name = spec.service.split(":")
    service = getattr(import_module(module), name)
    given = {k: v for k, v in options.items() if k in spec.fields and v}
    result = service([path] if spec.many_files else path, project_name, **given)
    return list(result) if isinstance(result, list) else [result]
