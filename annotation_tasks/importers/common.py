"""Writer helpers shared by the importers: project lookup, token offsets, worker/batch rows, counts."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from annotation_tasks.models import Batch, Project, Response, Source, Worker

R = TypeVar("R")

IMPORTED = "imported"
BULK = 500  # rows per INSERT: keeps statements under SQLite's variable limit on wide tables


@dataclass
class ImportResult:
    """What one import did: lines read, lines skipped because already present, rows created per model, and the
    lines skipped although their content differs from what is stored (`changed`: "line N: response id")."""

    file: str
    lines: int = 0
    skipped: int = 0
    created: Counter = field(default_factory=Counter)
    changed: list[str] = field(default_factory=list)

    def summary(self) -> str:
        parts = ", ".join(f"{n} {name}" for name, n in sorted(self.created.items()) if n)
        text = (
            f"{self.file}: {self.lines} records, {self.lines - self.skipped} imported, "
            f"{self.skipped} already present; created {parts or 'nothing'}"
        )
        if self.changed:
            shown = "; ".join(self.changed[:5]) + (" ..." if len(self.changed) > 5 else "")
            text += (f"; {len(self.changed)} of the lines already present differ from the stored response and were "
                     f"NOT applied ({shown})")
        return text


def in_chunks(values: Iterable, size: int = BULK) -> Iterator[list]:
    """Lists of at most `size` values: keeps `IN (...)` under SQLite's bound-parameter limit on big files."""
    chunk: list = []
    for v in values:
        chunk.append(v)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def existing_response_ids(project: Project, external_ids: Iterable[str]) -> set[str]:
    """External ids of responses already in the project (what an idempotent re-import skips)."""
    found: set[str] = set()
    for chunk in in_chunks(external_ids):
        found.update(Response.objects.filter(project=project, external_id__in=chunk).values_list("external_id", flat=True))
    return found


def start_import(project: Project, records: Sequence[R], file_name: str,
                 response_id: Callable[[R], str], text_of: Callable[[R], str] | None = None,
                 line_of: Callable[[R], int] | None = None) -> tuple[ImportResult, list[R]]:
    """The import's result so far (lines read; records whose response is already in the project skipped) and the
    records still to write, in file order. With `text_of`, a skipped record whose response text differs from the
    stored one is listed in result.changed: a re-import never changes stored work silently."""
    result = ImportResult(file=file_name, lines=len(records))
    existing = existing_response_ids(project, (response_id(r) for r in records))
    todo = [r for r in records if response_id(r) not in existing]
    result.skipped = len(records) - len(todo)
    if text_of is not None and existing:
        stored = existing_response_texts(project, existing)
        for r in records:
            rid = response_id(r)
            if rid in stored and stored[rid] != text_of(r):
                result.changed.append(f"line {line_of(r) if line_of else '?'}: {rid}")
    return result, todo


def existing_response_texts(project: Project, external_ids: Iterable[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for chunk in in_chunks(external_ids):
        out.update(Response.objects.filter(project=project, external_id__in=chunk).values_list("external_id", "text"))
    return out


def sources_by_external_id(project: Project, external_ids: Iterable[str]) -> dict[str, Source]:
    out: dict[str, Source] = {}
    for chunk in in_chunks(external_ids):
        out.update({s.external_id: s for s in Source.objects.filter(project=project, external_id__in=chunk)})
    return out


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

    def fetch() -> dict[str, Worker]:
        out: dict[str, Worker] = {}
        for chunk in in_chunks(wanted):
            out.update({w.external_id: w for w in Worker.objects.filter(provider=IMPORTED, external_id__in=chunk)})
        return out

    existing = fetch()
    missing = [Worker(provider=IMPORTED, external_id=x) for x in wanted if x not in existing]
    if missing:
        Worker.objects.bulk_create(missing, batch_size=BULK, ignore_conflicts=True)
        existing = fetch()
    return existing
