"""Export services: stream a project's data in one of the published formats to a file or a text stream.

Lines come from the exporters' generators and are written one by one, so memory does not grow with the
project. A file is written to a temporary name beside the target and renamed at the end: a failed export
never leaves a half-written file where a good one is expected.
"""
from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

from annotation_tasks.exporters import factscore, qa_jsonl, qasem_release
from annotation_tasks.models import Project

FORMATS: dict[str, Callable[..., Iterator[str]]] = {
    "qasem-release": qasem_release.export_lines,
    "factscore": factscore.export_lines,
    "qa-jsonl": qa_jsonl.export_lines,
}


class ExportError(ValueError):
    """An export that cannot run (unknown project or format)."""


def export_lines(project_name: str, fmt: str, **options) -> Iterator[str]:
    """The lines (without newlines) of a project in a format; raises ExportError before yielding anything."""
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    try:
        project = Project.objects.get(name=project_name)
    except Project.DoesNotExist as exc:
        raise ExportError(f"no project named {project_name!r}") from exc
    return FORMATS[fmt](project, **options)


def write_lines(lines: Iterator[str], out: TextIO) -> int:
    """Write each line and a newline; returns the number of lines."""
    n = 0
    for line in lines:
        out.write(line)
        out.write("\n")
        n += 1
    return n


def export_to_path(project_name: str, fmt: str, path: str | Path, **options) -> int:
    """Export into a file atomically (temp file + rename); returns the number of lines."""
    lines = export_lines(project_name, fmt, **options)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            n = write_lines(lines, handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return n
