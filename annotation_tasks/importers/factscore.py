"""FActScore labeled format (one generation per line) → topic sources, responses, atomic facts, expert labels.

Representation: Source per topic (external_id = topic, text ""), Response f"{system}:{topic}" with the
generation as text and {input, topic, cat, abstained} in metadata; sentences keep text, is_relevant and
whether the human facts were null. Model facts become AtomicFact(kind="model"), human facts
AtomicFact(kind="human") labelled S / NS / IR by one approved assignment of the imported expert worker.
Key order and nulls are recorded so export writes each line back byte for byte.
The system is the file's (its stem or --system) unless a line carries `system` (our export of a project with more
than one system writes it): then that line's response is the line's system, and a topic may come once per system.
Our own export of app-labelled work reads back too: a human fact whose `label` is null (nobody's counted vote)
gets no label, and one an expert adjudicated (`label` = the decision, then `majority` = the crowd's and
`adjudication` = its provenance) keeps the crowd's majority as the vote and the decision as an AdjudicatedLabel;
a sentence's `crowd-atomic-facts` (the crowd's labels of an imported response) is kept as written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation_tasks.importers import adjudications
from annotation_tasks.importers.base import ErrorCollector, Where, check_type, read_jsonl, require
from annotation_tasks.importers.common import (
    BULK,
    IMPORTED,
    ImportResult,
    import_batch,
    imported_workers,
    sources_by_external_id,
    start_import,
)
from annotation_tasks.importers.tokenize import sentence_token_ranges, tokenize
from annotation_tasks.models import (
    AdjudicatedLabel,
    Assignment,
    AtomicFact,
    FactLabel,
    Project,
    Response,
    Source,
    Unit,
    UnitResponse,
)
from annotation_tasks.models.projects import Protocol

PROTOCOL = [Protocol.FACT_LABELING.value]
LINE_KEYS = ("input", "output", "topic", "cat", "annotations")
SYSTEM_KEY = "system"  # optional: the line's system (over the file's), kept in the key order, not in the extras
SENTENCE_KEYS = ["text", "is-relevant", "model-atomic-facts", "human-atomic-facts"]
CROWD_KEY = "crowd-atomic-facts"  # our export: the crowd's labels of an imported response's facts, kept as written
LABELS = ("S", "NS", "IR")
EXPERT = "factscore-expert"


@dataclass(frozen=True)
class HumanFact:
    text: str
    label: str | None  # the vote to store: the file's label, or the crowd's majority beside an adjudication
    adjudication: adjudications.Decision | None = None


@dataclass
class SentenceRecord:
    text: str
    is_relevant: bool
    model_facts: list[str] | None
    human_facts: list[HumanFact] | None
    keys: list[str]
    crowd_facts: list[dict[str, Any]] | None = None


@dataclass
class GenerationRecord:
    line: int
    system: str
    input: str
    output: str
    topic: str
    cat: Any
    keys: list[str]
    extra: dict[str, Any]
    sentences: list[SentenceRecord] | None = field(default=None)  # None = abstained

    @property
    def response_external_id(self) -> str:
        return f"{self.system}:{self.topic}"


def read(path: Path, system: str) -> list[GenerationRecord]:
    """Every line of one file, validated; topics must be unique within the file."""
    records: list[GenerationRecord] = []
    seen: dict[str, int] = {}  # response external id ("<system>:<topic>") → line
    errors = ErrorCollector()  # every bad line is reported (the first MAX_ERRORS listed), not only the first
    for lineno, obj in read_jsonl(path, errors):
        with errors.line():
            rec = parse_line(obj, Where(path.name, lineno), system)
            key = rec.response_external_id
            if key in seen:
                of = f" of system {rec.system!r}" if SYSTEM_KEY in rec.keys else ""
                raise Where(path.name, lineno, "topic").error(f"topic {rec.topic!r}{of} already on line {seen[key]}")
            seen[key] = lineno
            records.append(rec)
    errors.check()
    return records


def parse_line(obj: Any, where: Where, system: str) -> GenerationRecord:
    check_type(obj, where, dict)
    topic = require(obj, "topic", where, str)
    if not topic:
        raise where.child("topic").error("empty topic")
    if SYSTEM_KEY in obj:  # the line's own system, over the file's
        system = require(obj, SYSTEM_KEY, where, str)
        if not system.strip():
            raise where.child(SYSTEM_KEY).error("empty system name")
        if len(system) > 200:
            raise where.child(SYSTEM_KEY).error("system name longer than 200 characters")
    elif len(system) > 200:
        raise Where(where.file, None, "system").error("system name longer than 200 characters")
    if len(f"{system}:{topic}") > 255:
        raise where.child("topic").error("system and topic together are longer than 255 characters")
    rec = GenerationRecord(
        line=where.line or 0,
        system=system,
        input=require(obj, "input", where, str),
        output=require(obj, "output", where, str),
        topic=topic,
        cat=obj.get("cat"),
        keys=list(obj.keys()),
        extra={k: v for k, v in obj.items() if k not in LINE_KEYS and k != SYSTEM_KEY},
    )
    annotations = require(obj, "annotations", where, list, allow_none=True)
    if annotations is not None:
        rec.sentences = [
            _parse_sentence(s, where.child("annotations").child(i)) for i, s in enumerate(annotations)
        ]
    return rec


def _parse_sentence(obj: Any, where: Where) -> SentenceRecord:
    check_type(obj, where, dict)
    unknown = [k for k in obj if k not in SENTENCE_KEYS and k != CROWD_KEY]
    if unknown:
        raise where.child(unknown[0]).error("unexpected field (a sentence has text, is-relevant, model-atomic-facts, human-atomic-facts)")
    model = require(obj, "model-atomic-facts", where, list, allow_none=True)
    human = require(obj, "human-atomic-facts", where, list, allow_none=True)
    model_facts = None
    if model is not None:
        model_facts = [_fact(f, where.child("model-atomic-facts").child(i), labelled=False).text
                       for i, f in enumerate(model)]
    human_facts = None
    if human is not None:
        human_facts = [_fact(f, where.child("human-atomic-facts").child(i), labelled=True) for i, f in enumerate(human)]
    return SentenceRecord(
        text=require(obj, "text", where, str),
        is_relevant=require(obj, "is-relevant", where, bool),
        model_facts=model_facts,
        human_facts=human_facts,
        keys=[k for k in obj if k != CROWD_KEY],
        crowd_facts=_crowd_facts(obj, where) if CROWD_KEY in obj else None,
    )


def _crowd_facts(obj: dict, where: Where) -> list[dict[str, Any]]:
    """Our export's `crowd-atomic-facts`: [{text, label}], kept as written (the votes behind them are not in it)."""
    items = check_type(obj[CROWD_KEY], where.child(CROWD_KEY), list)
    for i, fact in enumerate(items):
        at = where.child(CROWD_KEY).child(i)
        check_type(fact, at, dict)
        if list(fact) != ["text", "label"]:
            raise at.error("a crowd fact has text, label (in that order)")
        check_type(fact["text"], at.child("text"), str)
        _label(fact, "label", at)
    return items


ADJUDICATED_KEYS = ["text", "label", "majority", "adjudication"]  # our export's adjudicated human fact


def _fact(obj: Any, where: Where, labelled: bool) -> HumanFact:
    check_type(obj, where, dict)
    allowed = ["text", "label"] if labelled else ["text"]
    keys = list(obj.keys())
    if keys != allowed and not (labelled and keys == ADJUDICATED_KEYS):
        missing = [k for k in allowed if k not in obj]
        if missing:
            raise where.child(missing[0]).error("missing field")
        extra = [k for k in obj if k not in (ADJUDICATED_KEYS if labelled else allowed)]
        if extra:
            raise where.child(extra[0]).error(f"unexpected field (a fact has {', '.join(allowed)})")
        raise where.error(f"fields must come in the order {', '.join(ADJUDICATED_KEYS if len(keys) > 2 else allowed)}")
    text = require(obj, "text", where, str)
    if not labelled:
        return HumanFact(text, None)
    label = _label(obj, "label", where)
    if "adjudication" not in obj:
        return HumanFact(text, label)
    if label is None:
        raise where.child("label").error("an adjudicated fact carries the decided label")
    decision = adjudications.parse(obj["adjudication"], where.child("adjudication"), LABELS)
    if decision.label != label:
        raise where.child("label").error(f"{label!r} is not the adjudicated label {decision.label!r}")
    return HumanFact(text, _label(obj, "majority", where), decision)


def _label(obj: dict, key: str, where: Where) -> str | None:
    """S / NS / IR, or null: a fact nobody's counted vote labels (our export of app work writes such facts)."""
    label = obj[key]
    if label is not None and label not in LABELS:
        raise where.child(key).error(f"unknown label {label!r} (expected S, NS or IR, or null for no label)")
    return label


def write(project: Project, records: list[GenerationRecord], file_name: str) -> ImportResult:
    """Create what is not yet in the project. Call inside transaction.atomic()."""
    result, todo = start_import(project, records, file_name, lambda r: r.response_external_id)
    if not todo:
        return result

    topics = list(dict.fromkeys(r.topic for r in todo))
    sources = sources_by_external_id(project, topics)
    new_sources = [Source(project=project, external_id=t, text="") for t in topics if t not in sources]
    Source.objects.bulk_create(new_sources, batch_size=BULK)
    sources.update({s.external_id: s for s in new_sources})
    result.created["sources"] += len(new_sources)

    responses = [_response(project, sources[r.topic], r) for r in todo]
    Response.objects.bulk_create(responses, batch_size=BULK)
    result.created["responses"] += len(responses)

    facts: list[AtomicFact] = []
    labelled: list[tuple[int, AtomicFact, str]] = []  # (index into todo, fact, label)
    decided: list[AdjudicatedLabel] = []
    for i, (r, resp) in enumerate(zip(todo, responses, strict=True)):
        for s_idx, s in enumerate(r.sentences or []):
            for order, text in enumerate(s.model_facts or []):
                facts.append(
                    AtomicFact(response=resp, sentence_index=s_idx, text=text, origin=IMPORTED, kind="model", order=order)
                )
            for order, human in enumerate(s.human_facts or []):
                fact = AtomicFact(response=resp, sentence_index=s_idx, text=human.text, origin=IMPORTED, kind="human",
                                  order=order)
                facts.append(fact)
                if human.label is not None:
                    labelled.append((i, fact, human.label))
                if human.adjudication is not None:
                    decided.append(adjudications.row(project, "fact", human.adjudication, fact=fact))
    AtomicFact.objects.bulk_create(facts, batch_size=BULK)
    result.created["atomic_facts"] += len(facts)
    for row in decided:
        row.fact_id = row.fact.pk  # bulk_create gave the facts their keys after the rows were built
    AdjudicatedLabel.objects.bulk_create(decided, batch_size=BULK)
    result.created["adjudicated_labels"] += len(decided)

    with_labels = sorted({i for i, _, _ in labelled})
    if not with_labels:
        return result
    batch, made = import_batch(project, file_name)
    result.created["batches"] += int(made)
    units = {
        i: Unit(
            project=project,
            batch=batch,
            source=responses[i].source,
            mode="factscore",
            assignments_wanted=1,
            status=Unit.Status.COMPLETE,
        )
        for i in with_labels
    }
    Unit.objects.bulk_create(list(units.values()), batch_size=BULK)
    UnitResponse.objects.bulk_create(
        [UnitResponse(unit=u, response=responses[i], position=0) for i, u in units.items()], batch_size=BULK
    )
    expert = imported_workers([EXPERT])[EXPERT]
    assignments = {
        i: Assignment(unit=u, worker=expert, status=Assignment.Status.APPROVED) for i, u in units.items()
    }
    Assignment.objects.bulk_create(list(assignments.values()), batch_size=BULK)
    FactLabel.objects.bulk_create(
        [FactLabel(assignment=assignments[i], fact=fact, label=label) for i, fact, label in labelled],
        batch_size=BULK,
    )
    result.created["units"] += len(units)
    result.created["assignments"] += len(assignments)
    result.created["fact_labels"] += len(labelled)
    return result


def _response(project: Project, source: Source, r: GenerationRecord) -> Response:
    """The generation with token offsets and sentences located in it (offsets only where found)."""
    tokens = tokenize(r.output)
    sentences = []
    texts = [s.text for s in r.sentences or []]
    for s, rng in zip(r.sentences or [], sentence_token_ranges(r.output, tokens, texts), strict=True):
        sent: dict[str, Any] = {"text": s.text, "is_relevant": s.is_relevant, "human_facts_null": s.human_facts is None}
        if s.model_facts is None:
            sent["model_facts_null"] = True
        if s.keys != SENTENCE_KEYS:
            sent["release_keys"] = s.keys
        if s.crowd_facts:
            sent["crowd_facts"] = s.crowd_facts
        if rng is not None:
            sent["start"], sent["end"] = rng
        sentences.append(sent)
    metadata = {
        "input": r.input,
        "topic": r.topic,
        "cat": r.cat,
        "abstained": r.sentences is None,
        "release_keys": r.keys,
    }
    if r.extra:
        metadata["release_extra"] = r.extra
    return Response(
        project=project,
        source=source,
        external_id=r.response_external_id,
        system=r.system,
        text=r.output,
        tokens=tokens,
        sentences=sentences,
        metadata=metadata,
    )
