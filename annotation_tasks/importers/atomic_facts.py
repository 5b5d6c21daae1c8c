"""Atomic facts produced elsewhere (another splitter, an LLM run, people) → AtomicFact rows of existing responses.

JSONL, one object per response and sentence:

    {"response_id": "InstructGPT:Ada Lovelace", "sentence_index": 0, "facts": ["Ada Lovelace was a writer.", ...]}
    {"source_id": "doc-7", "system": "bart", "sentence_index": 1, "facts": [...], "kind": "model"}

The response is named by its external id, or by its source's external id and its system. `kind` is "model"
(default: facts from a splitter, what workers label) or "human". Facts replace the parser's unlabeled facts of
that sentence; a sentence whose facts came from elsewhere, were labeled, or were edited is left alone and the
file is refused, naming the line. Re-importing the same facts is a no-op (counted as already present).
Like every importer: the whole file is read and checked first, then written in one transaction.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db.models import Q

from annotation_tasks.importers.base import ImportFormatError, Where, check_type, read_jsonl, require
from annotation_tasks.importers.common import BULK, ImportResult, in_chunks
from annotation_tasks.models import AtomicFact, Project, Response
from annotation_tasks.models.content import Origin

KEYS = {"response_id", "source_id", "system", "sentence_index", "facts", "kind"}
KINDS = ("model", "human")
MAX_FACTS = 200  # per sentence: more is a malformed file, not a decomposition
MAX_FACT_CHARS = 2000


@dataclass(frozen=True)
class FactRecord:
    line: int
    response_id: str | None
    source_id: str | None
    system: str | None
    sentence_index: int
    facts: tuple[str, ...]
    kind: str

    @property
    def reference(self) -> tuple[str, ...]:
        return ("response", self.response_id or "") if self.response_id is not None else ("source", self.source_id or "", self.system or "")


def read(path: Path) -> list[FactRecord]:
    """Every line of the file, checked; one response and sentence at most once."""
    records: list[FactRecord] = []
    seen: dict[tuple, int] = {}
    for lineno, obj in read_jsonl(path):
        rec = parse_line(obj, Where(path.name, lineno))
        key = (rec.reference, rec.sentence_index)
        if key in seen:
            raise Where(path.name, lineno, "sentence_index").error(
                f"facts for this response and sentence are already on line {seen[key]}"
            )
        seen[key] = lineno
        records.append(rec)
    if not records:
        raise ImportFormatError(path.name, None, None, "no records (empty file)")
    return records


def parse_line(obj: Any, where: Where) -> FactRecord:
    check_type(obj, where, dict)
    unknown = sorted(k for k in obj if k not in KEYS)
    if unknown:
        raise where.child(unknown[0]).error(
            "unexpected field (a record has response_id or source_id + system, sentence_index, facts, kind)"
        )
    response_id = source_id = system = None
    if "response_id" in obj:
        if "source_id" in obj or "system" in obj:
            raise where.child("source_id" if "source_id" in obj else "system").error(
                "give response_id, or source_id with system, not both"
            )
        response_id = _nonempty(require(obj, "response_id", where, str), where.child("response_id"))
    elif "source_id" in obj:
        source_id = _nonempty(str(require(obj, "source_id", where, str, int)), where.child("source_id"))
        system = _nonempty(require(obj, "system", where, str), where.child("system"))
    else:
        raise where.child("response_id").error("missing field (or give source_id with system)")
    index = require(obj, "sentence_index", where, int)
    if index < 0:
        raise where.child("sentence_index").error("must be 0 or more")
    facts = require(obj, "facts", where, list)
    if not facts:
        raise where.child("facts").error("empty list (a sentence without facts needs no record)")
    if len(facts) > MAX_FACTS:
        raise where.child("facts").error(f"{len(facts)} facts; at most {MAX_FACTS} per sentence")
    texts = []
    for i, fact in enumerate(facts):
        text = check_type(fact, where.child("facts").child(i), str).strip()
        if not text:
            raise where.child("facts").child(i).error("empty fact")
        if len(text) > MAX_FACT_CHARS:
            raise where.child("facts").child(i).error(f"longer than {MAX_FACT_CHARS} characters")
        if "\x00" in text:
            raise where.child("facts").child(i).error("contains a NUL character")
        texts.append(text)
    kind = obj.get("kind", "model")
    check_type(kind, where.child("kind"), str)
    if kind not in KINDS:
        raise where.child("kind").error(f"unknown kind {kind!r} (expected model or human)")
    return FactRecord(where.line or 0, response_id, source_id, system, index, tuple(texts), kind)


def _nonempty(value: str, where: Where) -> str:
    if not value.strip():
        raise where.error("empty")
    return value


def resolve(project: Project, records: list[FactRecord], file_name: str) -> dict[int, Response]:
    """The response of every record (by line), or an error naming the first line that names none."""
    by_id: dict[str, Response] = {}
    ids = sorted({r.response_id for r in records if r.response_id is not None})
    for chunk in in_chunks(ids):
        by_id.update({x.external_id: x for x in Response.objects.filter(project=project, external_id__in=chunk)})
    by_source: dict[tuple[str, str], list[Response]] = {}
    sources = sorted({r.source_id for r in records if r.source_id is not None})
    for chunk in in_chunks(sources):
        for x in Response.objects.filter(project=project, source__external_id__in=chunk).select_related("source"):
            by_source.setdefault((x.source.external_id, x.system), []).append(x)
    out: dict[int, Response] = {}
    for r in records:
        where = Where(file_name, r.line)
        if r.response_id is not None:
            response = by_id.get(r.response_id)
            if response is None:
                raise where.child("response_id").error(f"no response {r.response_id!r} in project {project.name!r}")
        else:
            found = by_source.get((r.source_id or "", r.system or ""), [])
            if not found:
                raise where.child("source_id").error(
                    f"no response of system {r.system!r} for source {r.source_id!r} in project {project.name!r}"
                )
            if len(found) > 1:
                raise where.child("system").error(
                    f"{len(found)} responses of system {r.system!r} for source {r.source_id!r}; name it by response_id"
                )
            response = found[0]
        sentences = response.sentences or []
        if sentences and r.sentence_index >= len(sentences):
            raise where.child("sentence_index").error(
                f"response {response.external_id!r} has {len(sentences)} sentences (0 to {len(sentences) - 1})"
            )
        out[r.line] = response
    return out


def write(project: Project, records: list[FactRecord], file_name: str) -> ImportResult:
    """Check every record against the project, then replace the parser's facts. Call inside transaction.atomic()."""
    responses = resolve(project, records, file_name)
    result = ImportResult(file=file_name, lines=len(records))
    existing: dict[tuple[int, int], list[AtomicFact]] = {}
    kept_ids: set[int] = set()
    for chunk in in_chunks(sorted({x.pk for x in responses.values()})):
        facts = AtomicFact.objects.filter(response_id__in=chunk)
        for fact in facts.order_by("response_id", "sentence_index", "order", "id"):
            existing.setdefault((fact.response_id, fact.sentence_index), []).append(fact)
        kept_ids.update(
            facts.filter(~Q(origin=Origin.PARSER) | Q(labels__isnull=False) | Q(edited_into__isnull=False) | ~Q(kind="model"))
            .values_list("id", flat=True)
        )
    to_delete: list[int] = []
    to_create: list[AtomicFact] = []
    for r in records:
        response = responses[r.line]
        current = existing.get((response.pk, r.sentence_index), [])
        if [f.text for f in current] == list(r.facts) and all(
            f.origin == Origin.IMPORTED and f.kind == r.kind for f in current
        ):
            result.skipped += 1
            continue
        kept = [f for f in current if f.pk in kept_ids]
        if kept:
            raise Where(file_name, r.line, "sentence_index").error(
                f"sentence {r.sentence_index} of {response.external_id!r} already has {len(kept)} facts that were "
                "imported, written by people, labeled or edited; nothing imported"
            )
        to_delete.extend(f.pk for f in current)
        to_create.extend(
            AtomicFact(response=response, sentence_index=r.sentence_index, text=text, origin=Origin.IMPORTED,
                       kind=r.kind, order=order)
            for order, text in enumerate(r.facts)
        )
    for chunk in in_chunks(to_delete):
        AtomicFact.objects.filter(pk__in=chunk).delete()
    AtomicFact.objects.bulk_create(to_create, batch_size=BULK)
    if to_create:
        result.created["atomic_facts"] += len(to_create)
    if to_delete:
        result.created["replaced parser facts"] += len(to_delete)
    return result
