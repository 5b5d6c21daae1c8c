"""Uploads from the dashboard: keep the file, then import it in a background Job (all or nothing).

The import itself is services.imports (the same code the CLI runs); this module only stores the upload,
creates the Job the dashboard polls, and records the outcome: a summary, or the errors naming file, line
and field. A failed import wrote nothing, because the importers validate everything before writing.
"""
from __future__ import annotations

import logging
import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from annotation_tasks.models import Job, Project

log = logging.getLogger(__name__)

FORMATS = ("items", "qasem-release", "factscore")
MAX_UPLOAD_BYTES = 200 * 1024 * 1024


class UploadError(ValueError):
    """The upload cannot be accepted at all (unknown format, empty or oversized file)."""


def upload_dir() -> Path:
    return Path(getattr(settings, "VAR_DIR", Path(settings.BASE_DIR) / "var")) / "uploads"


def guess_format(file_name: str, requested: str = "") -> str:
    """The importer to use: the one asked for, else plain items (JSONL/CSV) — published formats must be named."""
    fmt = requested or "items"
    if fmt not in FORMATS:
        raise UploadError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "items" and not file_name.lower().endswith((".jsonl", ".json", ".csv")):
        raise UploadError(f"{file_name}: plain items must be a .jsonl or .csv file")
    return fmt


def start_import_job(project: Project, upload: UploadedFile, fmt: str = "", *, system: str = "", user=None) -> Job:
    """Store the uploaded file and queue its import; the Job carries progress and the outcome."""
    name = Path(upload.name or "upload").name
    fmt = guess_format(name, fmt)
    if upload.size == 0:
        raise UploadError(f"{name}: the file is empty")
    if upload.size and upload.size > MAX_UPLOAD_BYTES:
        raise UploadError(f"{name}: larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    folder = upload_dir() / str(project.pk) / uuid.uuid4().hex
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name  # keep the original name: import errors and the import batch name use it
    with path.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    job = Job.objects.create(
        project=project,
        kind=Job.Kind.IMPORT,
        params={"file": name, "path": str(path), "format": fmt, "system": system},
        total=1,
        created_by=user if getattr(user, "is_authenticated", False) else None,
    )

    def _queue() -> None:
        from annotation_tasks.celery_tasks import run_import_job

        result = run_import_job.delay(job.pk)
        Job.objects.filter(pk=job.pk, celery_id="").update(celery_id=result.id or "")

    transaction.on_commit(_queue)
    return job


def run_import_job(job_id: int) -> Job:
    """The worker side: run the import, record the summary or the located errors."""
    from annotation_tasks.services import imports

    job = Job.objects.select_related("project").get(pk=job_id)
    if job.status in (Job.Status.DONE, Job.Status.FAILED):
        return job  # a redelivered message (acks_late) must not import twice
    Job.objects.filter(pk=job.pk).update(status=Job.Status.RUNNING, started_at=timezone.now())
    params = job.params
    path, fmt, project_name = params["path"], params["format"], job.project.name
    try:
        if fmt == "items":
            results = [imports.import_items(path, project_name)]
        elif fmt == "qasem-release":
            results = [imports.import_qasem_release(path, project_name)]
        else:
            results = imports.import_factscore([path], project_name, system=params.get("system") or None)
    except imports.ImportFormatError as exc:
        error = {"file": exc.file, "line": exc.line, "field": exc.field, "message": exc.message}
        _finish(job, Job.Status.FAILED, error=str(exc), result={"errors": [error]})
        return job
    except Exception as exc:  # an unexpected failure still ends the job, with its message
        log.exception("import job %s failed", job.pk)
        _finish(job, Job.Status.FAILED, error=f"{type(exc).__name__}: {exc}", result={"errors": []})
        return job
    summary = {
        "summaries": [r.summary() for r in results],
        "lines": sum(r.lines for r in results),
        "skipped": sum(r.skipped for r in results),
        "created": {k: sum(r.created.get(k, 0) for r in results) for r in results for k in r.created},
    }
    _finish(job, Job.Status.DONE, result=summary, done=1)
    return job


def _finish(job: Job, status: str, *, error: str = "", result: dict | None = None, done: int = 0) -> None:
    job.status = status
    job.error = error
    job.result = result or {}
    job.done = done
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "result", "done", "finished_at"])
