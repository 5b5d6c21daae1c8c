"""Writer helpers shared by the importers: project lookup, token offsets, worker/batch rows, counts."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from annotation_tasks.models import Batch, Project, Worker

IMPORTED = "imported"
BULK = 500  # rows per INSERT: keeps statements under SQLite's variable limit on wide tables


@dataclass
class ImportResult:
    """What one import did: lines read, lines skipped because already present, rows created per model."""

    file: str
    lines: int = 0
    skipped: int = 0
    created: Counter = field(default_factory=Counter)

    def summary(self) -> str:
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.created.items()) if n)
        return (
            f"{self.file}: {self.lines} records, {self.lines - self.skipped} imported, "
            f"{self.skipped} already present; created {parts or 'nothing'}"
        )


def get_or_create_project(name: str, protocol: Sequence[str]) -> tuple[Project, bool]:
    """The named project; a new one gets the protocol that fits the imported format."""
    return Project.objects.get_or_create(name=name, defaults={"protocol": list(protocol)})


def offsets_for(tokens: Sequence[str]) -> tuple[str, list[list]]:
    """Text = tokens joined by single spaces, and [[token, char_start, char_end], ...] over it."""
    out: list[list] = []
    pos = 0
    for tok in tokens:
        out.append([tok, pos, pos + len(tok)])
        pos += len(tok) + 1
    return " ".join(tokens), out


def import_batch(project: Project, file_name: str) -> tuple[Batch, bool]:
    """The batch that holds the imported labels of one file (named so a re-import finds it)."""
    return Batch.objects.get_or_create(
        project=project,
        name=f"import:{file_name}"[:200],
        defaults={"provider": IMPORTED, "status": Batch.Status.IMPORTED},
    )


def imported_workers(external_ids: Iterable[str]) -> dict[str, Worker]:
    """Workers of provider "imported" by external id, created when missing (conflict-safe)."""
    wanted = list(dict.fromkeys(external_ids))
    existing = {w.external_id: w for w in Worker.objects.filter(provider=IMPORTED, external_id__in=wanted)}
    missing = [Worker(provider=IMPORTED, external_id=x) for x in wanted if x not in existing]
    if missing:
        Worker.objects.bulk_create(missing, batch_size=BULK, ignore_conflicts=True)
        existing = {w.external_id: w for w in Worker.objects.filter(provider=IMPORTED, external_id__in=wanted)}
    return existing
