"""Shared translation for the crowd commands: look up projects/batches, turn service errors into CommandError."""
from __future__ import annotations

from django.core.management.base import CommandError

from annotation_tasks.models import Batch, Project


def project_named(name: str) -> Project:
    try:
        return Project.objects.get(name=name)
    except Project.DoesNotExist as exc:
        raise CommandError(f"no project named {name!r}") from exc


def batches(batch_id: int | None, project_name: str | None, statuses: tuple[str, ...] = (Batch.Status.PUBLISHED,)) -> list[Batch]:
    if batch_id is not None:
        try:
            return [Batch.objects.get(pk=batch_id)]
        except Batch.DoesNotExist as exc:
            raise CommandError(f"no batch {batch_id}") from exc
    qs = Batch.objects.filter(status__in=statuses)
    if project_name:
        qs = qs.filter(project=project_named(project_name))
    return list(qs.order_by("id"))


def table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    lines = ["  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(lines)
