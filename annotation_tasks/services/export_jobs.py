"""Exports as background Jobs with progress and a download link (issue 25 item 3).

A JSONL export streams (the API sends its lines as the exporter yields them). Its CSV needs every record's keys
before the header (two passes), and the Hugging Face dataset is a folder zipped at the end: behind a proxy with
a 30 s timeout, building them inside one request fails for a project of 10^6 labels. So both run as a Job: the
request answers 202 with the Job at once; a Celery worker writes the file under VAR_DIR/exports/<project>/<id>/
(line by line: memory does not grow with the project), reports progress (lines written of the items counted up
front), and the Job's result names the download (GET /api/jobs/<id>/download/, the project's researchers only).
Files older than EXPORT_KEEP_HOURS are removed when a new export job starts.
"""
from __future__ import annotations

import shutil
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from django.conf import settings

from annotation_tasks.exporters import csv_writer
from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Job, Project, Response
from annotation_tasks.services import derived, exports, jobs

EXPORT_KEEP_HOURS = 24
PROGRESS_EVERY = 2_000  # lines between progress writes
T = TypeVar("T")


def export_dir() -> Path:
    return Path(getattr(settings, "VAR_DIR", Path(settings.BASE_DIR) / "var")) / "exports"


def expected_lines(project: Project, fmt: str) -> int:
    """Roughly how many lines the export writes (the Job's total): its items, counted cheaply."""
    qas = QA.objects.filter(response__project=project).count
    if fmt == "qa-jsonl":
        return qas()
    if fmt in ("factscore", "qasem-release"):
        return Response.objects.filter(project=project).count()
    if fmt in exports.DATASET_FORMATS:
        return (qas() + AnswerSpan.objects.filter(response__project=project).count()
                + (Response.objects.filter(project=project).count()
                   if AtomicFact.objects.filter(response__project=project).exists() else 0))
    return 0


def start_export_job(project: Project, fmt: str, *, as_csv: bool = False, user: Any = None,
                     **options: Any) -> Job:
    """Check the export can run (ExportError before any Job), then queue it; answers at once."""
    if fmt not in exports.FORMATS and fmt not in exports.DATASET_FORMATS:
        raise exports.ExportError(f"unknown format {fmt!r}")
    aggregation = options.get("aggregation", "majority")
    if aggregation not in exports.AGGREGATIONS:
        raise exports.ExportError(f"unknown aggregation {aggregation!r}")
    _sweep()
    return jobs.start(project, Job.Kind.EXPORT, user=user, total=expected_lines(project, fmt), params={
        "export_format": fmt, "csv": as_csv, "options": options, "folder": uuid.uuid4().hex})


def job_file(job: Job) -> Path | None:
    """The finished export's file, or None (not finished, failed, or removed since)."""
    name, folder = (job.result or {}).get("file"), (job.params or {}).get("folder")
    if job.status != Job.Status.DONE or not name or not folder:
        return None
    path = export_dir() / str(job.project_id) / str(folder) / Path(str(name)).name
    return path if path.is_file() else None


def run_export_job(job_id: int) -> Job:
    return jobs.run(job_id, _body)


def _counted(lines: Iterator[T], progress: jobs.Progress) -> Iterator[T]:
    n = 0
    for line in lines:
        n += 1
        if n % PROGRESS_EVERY == 0:
            progress.set(done=n)
        yield line


def _body(job: Job, progress: jobs.Progress) -> dict[str, Any]:
    params = job.params
    fmt, as_csv, options = params["export_format"], bool(params.get("csv")), dict(params.get("options") or {})
    folder = export_dir() / str(job.project_id) / params["folder"]
    if folder.exists():  # a resumed Job starts its file again
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in job.project.name)
    try:
        if fmt in exports.DATASET_FORMATS:
            target = folder / f"{safe}.{fmt}.zip"
            dataset = folder / "dataset"
            exports.export_dataset(job.project.name, dataset, csv=as_csv,
                                   on_rows=lambda n: progress.set(done=min(n, max(job.total - 1, 0))), **options)
            progress.set(done=max(job.total - 1, 0))
            with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                for path in sorted(dataset.rglob("*")):
                    if path.is_file():
                        archive.write(path, path.relative_to(dataset).as_posix())
            shutil.rmtree(dataset)
            lines = None
        elif as_csv:  # straight from the records: no JSONL written and read back
            target = folder / f"{safe}.{fmt}.csv"
            records = _counted(exports.export_records(job.project.name, fmt, **options), progress)
            lines = exports._atomic_write(
                target, lambda handle: csv_writer.csv_from_records(records, handle, folder), newline="")
        else:
            target = folder / f"{safe}.{fmt}.jsonl"
            source = _counted(exports.export_lines(job.project.name, fmt, **options), progress)
            lines = exports._atomic_write(target, lambda handle: exports.write_lines(source, handle))
    except exports.ExportError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise jobs.JobFailed(str(exc)) from exc
    finally:
        derived.release_memory()  # the worker lives on: the next export starts from its baseline, not this peak
    progress.set(done=max(job.total, lines or 0))
    return {"file": target.name, "bytes": target.stat().st_size, "lines": lines,
            "download": f"/api/jobs/{job.pk}/download/"}


def _sweep() -> None:
    """Remove export files older than EXPORT_KEEP_HOURS (a download link is good for that long)."""
    root = export_dir()
    if not root.is_dir():
        return
    cutoff = time.time() - EXPORT_KEEP_HOURS * 3600
    for folder in root.glob("*/*"):
        try:
            if folder.is_dir() and folder.stat().st_mtime < cutoff:
                shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue
