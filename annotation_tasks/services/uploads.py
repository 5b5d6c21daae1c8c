"""Uploads from the dashboard: keep the file, then import it in a background Job (all or nothing).

The import itself is services.imports (the same code the CLI runs); this module only stores the upload,
creates the Job the dashboard polls (services.jobs), and says what its outcome is: a summary, or the errors
naming file, line and field. A failed import wrote nothing, because the importers validate everything before
writing; and importing the same file again changes nothing, so a stalled import is safe to resume.
"""
from __future__ import annotations

import logging
import shutil
import uuid
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from annotation_tasks.importers.base import ImportErrors
from annotation_tasks.importers.registry import IMPORTERS
from annotation_tasks.models import Job, Project
from annotation_tasks.services import jobs

log = logging.getLogger(__name__)

FORMATS = tuple(IMPORTERS)  # the import registry's formats (importers/registry.py)
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
    suffixes = IMPORTERS[fmt].suffixes
    if suffixes and not file_name.lower().endswith(suffixes):
        raise UploadError(f"{file_name}: {IMPORTERS[fmt].label} must be a {' or '.join(suffixes)} file")
    return fmt


def start_import_job(project: Project, upload: UploadedFile, fmt: str = "", *, system: str = "", user=None) -> Job:
    """Store the uploaded file and queue its import; the Job carries progress and the outcome.

    The Job's params name the file and its folder under upload_dir() by a random id only: API clients see
    params, and a server path is none of their business."""
    name = Path(upload.name or "upload").name
    fmt = guess_format(name, fmt)
    if upload.size == 0:
        raise UploadError(f"{name}: the file is empty")
    if upload.size and upload.size > MAX_UPLOAD_BYTES:
        raise UploadError(f"{name}: larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB")
    folder_id = uuid.uuid4().hex
    folder = upload_dir() / str(project.pk) / folder_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name  # keep the original name: import errors and the import batch name use it
    with path.open("wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return jobs.start(
        project,
        Job.Kind.IMPORT,
        params={"file": name, "upload": folder_id, "format": fmt, "system": system},
        total=1,
        user=user,
    )


def upload_path(job: Job) -> Path:
    """Where the Job's uploaded file lies (older Jobs kept the path itself in params)."""
    params = job.params
    if params.get("upload"):
        return upload_dir() / str(job.project_id) / Path(params["upload"]).name / Path(params["file"]).name
    return Path(params["path"])


def remove_upload(job: Job) -> None:
    """Delete the Job's uploaded file and its folder once the import has ended (done or failed)."""
    path = upload_path(job)
    folder = path.parent
    try:
        path.unlink(missing_ok=True)
        if folder.is_relative_to(upload_dir()) and folder != upload_dir():
            shutil.rmtree(folder, ignore_errors=True)
    except OSError:
        log.warning("could not remove the upload of import job %s", job.pk, exc_info=True)


def run_import_job(job_id: int) -> Job:
    """The worker side: run the import, record the summary or the located errors; then remove the upload.

    A stalled job (its worker died) has not ended, so its file stays for the resume."""
    job = jobs.run(job_id, _import)
    if job.status in Job.Status.finished():
        remove_upload(job)
    return job


def _import(job: Job, progress: jobs.Progress) -> dict:
    from annotation_tasks.services import imports  # the importers and pandas: loaded by the worker only

    params = job.params
    path, fmt, project_name = upload_path(job), params["format"], job.project.name
    if not path.is_file() and (job.result or {}).get("errors"):  # refused before (a job from before FINAL)
        raise jobs.JobFailed(f"{params.get('file', 'upload')}: refused; fix the file and upload it again "
                             "(its errors are listed)", {**job.result, jobs.FINAL: True})
    if not path.is_file():
        raise jobs.JobFailed(f"{params.get('file', 'upload')}: the uploaded file is gone (removed after an earlier "
                             "run of this import); upload it again", {"errors": []})
    try:
        results = imports.run_import(fmt, path, project_name, system=params.get("system") or "")
    except imports.ImportFormatError as exc:  # ImportErrors: every bad line (the first MAX_ERRORS) and their count
        listed = exc.errors if isinstance(exc, ImportErrors) else [exc]
        errors = [{"file": e.file, "line": e.line, "field": e.field, "message": e.message} for e in listed]
        total = exc.total if isinstance(exc, ImportErrors) else 1
        # the file is refused as it is: running it again cannot help, so the job offers no Resume (jobs.FINAL)
        raise jobs.JobFailed(str(exc), {"errors": errors, "errors_total": total, jobs.FINAL: True}) from exc
    except Exception as exc:  # an unexpected failure still ends the job, with its message (no server paths)
        log.exception("import job %s failed", job.pk)
        message = str(exc).replace(str(path.parent), "").replace(str(upload_dir()), "")
        raise jobs.JobFailed(f"{type(exc).__name__}: {message}", {"errors": []}) from exc
    progress.set(done=1)
    return {
        "summaries": [r.summary() for r in results],
        "lines": sum(r.lines for r in results),
        "skipped": sum(r.skipped for r in results),
        "changed": sum(len(getattr(r, "changed", ())) for r in results),
        "created": {k: sum(r.created.get(k, 0) for r in results) for r in results for k in r.created},
    }
