"""Parsing a project's responses in the background: the Django side of `parser/`.

Why it is shaped this way:
- Each response is parsed and written in its own transaction and stamped with Response.parsed_at, so a worker
  that crashes or is killed leaves every response either fully parsed or untouched; re-running the same Job
  resumes, skipping the responses this run (this Job, this backend) already wrote.
- Re-parsing replaces only the parser's own output: QAs a person validated or edited, imported QAs, and
  anything already labeled by annotators stay, and so do the tokens their indices point at (then the parser
  reads the stored tokens instead of re-tokenizing).
- The Job around it (queue on commit, progress, heartbeat, outcome, resume) is services.jobs, as for every Job.
- The project's parse policy (Project.parse_policy, parser.policy: predicate kinds, a minimum confidence, at most
  K QAs per predicate, a minimum fact confidence) decides which of the parser's QAs and facts are written; every
  written QA and fact keeps its confidence, and the Job's result says how many were dropped and why.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Job, Predicate, Project, Response
from annotation_tasks.models.content import Origin
from annotation_tasks.models.projects import Protocol
from annotation_tasks.services import jobs
from parser import registry
from parser.facts.confidence import DEFAULT_MIN_FACT_CONFIDENCE, fact_confidence
from parser.policy import REASONS, PolicyError, QAPolicy, apply_policy
from parser.spans import merge_answer_spans
from parser.types import ParsedText

CHUNK = 32  # responses parsed per backend call (nlp.pipe / T5 batches); each still written on its own
_SENTENCE_KEYS = {"start", "end", "text", "char_start", "char_end"}


def backend_name(backend: str | None = None) -> str:
    """The backend to use (argument, else settings.PARSER_BACKEND); ValueError when unknown."""
    name = (backend or getattr(settings, "PARSER_BACKEND", "") or registry.DEFAULT_BACKEND).strip().lower()
    if name not in registry.available_backends():
        raise ValueError(f"unknown parser backend {name!r}; choose one of {', '.join(registry.available_backends())}")
    return name


def _setting(name: str) -> Any:
    return getattr(settings, name, None)


def backend_options(name: str) -> dict[str, Any]:
    """Settings a backend needs (model directories), as its registry entry declares them (parser.registry.OPTIONS)."""
    return registry.backend_options(name, _setting)


def get_parser(backend: str | None = None) -> registry.ParserBackend:
    name = backend_name(backend)
    return registry.get_backend(name, **backend_options(name))


def unparsed_responses(project: Project):
    """Responses nothing has decomposed yet: never parsed, and no imported QAs or atomic facts either
    (a QASem release or a FActScore file arrives already decomposed)."""
    return (
        project.responses.filter(parsed_at__isnull=True)
        .exclude(pk__in=QA.objects.filter(response__project=project).values("response_id"))
        .exclude(pk__in=AtomicFact.objects.filter(response__project=project).values("response_id"))
    )


class ParseRunning(ValueError):
    """A parse Job of the project is queued or running (not stalled): a second would parse the same responses."""

    def __init__(self, job: Job) -> None:
        self.job = job
        super().__init__(f"parse job {job.pk} of this project is {job.status}; wait for it to end (a stalled one can "
                         f"be resumed: manage.py resume {job.pk})")


def running_parse_job(project: Project) -> Job | None:
    """The project's parse Job that is queued or running and not stalled, if any."""
    active = Job.objects.filter(project=project, kind=Job.Kind.PARSE,
                                status__in=[Job.Status.QUEUED, Job.Status.RUNNING])
    return active.exclude(jobs.stalled_q(timezone.now())).order_by("id").first()


def start_parse_job(project: Project, backend: str | None = None, user: Any = None, *, queue: bool = True,
                    only_unparsed: bool = False) -> Job:
    """Create a parse Job for every response of `project` and queue it once the transaction commits.

    only_unparsed=True (the dashboard's "Start parsing") leaves responses that are already decomposed alone:
    re-parsing imported responses would put the parser's QAs next to the imported ones, in units already
    published. queue=False leaves it for the caller to run (`parse --inline` runs it in its own process).
    """
    name = backend_name(backend)
    missing = registry.missing_settings(name, _setting)
    if missing:
        raise ValueError(f"the {name} backend needs {', '.join(missing)}")
    with transaction.atomic():  # the project's row locked (PostgreSQL): two starts 1 ms apart see each other's Job
        list(Project.objects.select_for_update().filter(pk=project.pk).values_list("pk"))
        if queue and (running := running_parse_job(project)) is not None:  # a double click, a second CLI call
            raise ParseRunning(running)
        return jobs.start(
            project,
            Job.Kind.PARSE,
            params={"backend": name, **({"only_unparsed": True} if only_unparsed else {})},
            total=(unparsed_responses(project) if only_unparsed else project.responses).count(),
            user=user,
            queue=queue,
        )


def resume_parse_job(job: Job, *, queue: bool = True) -> Job:
    """Queue a failed or stalled parse Job again; it skips the responses it already wrote."""
    if job.kind != Job.Kind.PARSE:
        raise ValueError(f"job {job.pk} is a {job.kind} job, not a parse job")
    return jobs.resume(job, queue=queue)


def run_parse_job(job_id: int) -> Job:
    """The worker side: parse every response not yet parsed by this Job, one transaction each."""
    return jobs.run(job_id, _parse)


FACT_POLICY = {"min_fact_confidence": DEFAULT_MIN_FACT_CONFIDENCE}


@dataclasses.dataclass(frozen=True)
class ParsePolicy:
    """A project's parse policy: the QA part is parser.policy's (H5: kinds, min_confidence,
    max_qas_per_predicate; precision-first default), the fact part is the least fact confidence."""

    qas: QAPolicy = dataclasses.field(default_factory=QAPolicy)
    min_fact_confidence: float = FACT_POLICY["min_fact_confidence"]

    def as_dict(self) -> dict[str, Any]:
        """JSON as Project.parse_policy stores it (min_confidence: a number, or one per predicate kind)."""
        threshold = self.qas.min_confidence
        return {
            "kinds": sorted(self.qas.kinds),
            "min_confidence": dict(threshold) if isinstance(threshold, Mapping) else threshold,
            "max_qas_per_predicate": self.qas.max_qas_per_predicate,
            "min_fact_confidence": self.min_fact_confidence,
        }


def check_policy(data: Any, path: str = "parse_policy") -> ParsePolicy:
    """A policy from JSON (missing fields take the default); PolicyError names the bad field path."""
    if data is None:
        return ParsePolicy()
    if not isinstance(data, dict):
        raise PolicyError(f"{path}: expected an object, got {type(data).__name__}")
    qa_part = {k: v for k, v in data.items() if k not in FACT_POLICY}
    fact = data.get("min_fact_confidence", FACT_POLICY["min_fact_confidence"])
    if isinstance(fact, bool) or not isinstance(fact, int | float) or not 0 <= fact <= 1:
        raise PolicyError(f"{path}.min_fact_confidence: expected a number from 0 to 1")
    return ParsePolicy(QAPolicy.from_dict(qa_part, path), float(fact))


def project_policy(project: Project) -> ParsePolicy:
    """The project's parse policy; ValueError naming the field when the stored one is unusable (the API checks
    it on save, so only a row written around it gets here)."""
    try:
        return check_policy(project.parse_policy if project.parse_policy else None)
    except PolicyError as exc:
        raise ValueError(f"project {project.name!r}: {exc}") from exc


DROPPED_FACTS = "fact_confidence"


def _parse(job: Job, progress: jobs.Progress) -> dict[str, Any]:
    name = job.params.get("backend") or backend_name(None)
    responses = job.project.responses.all()
    if job.params.get("only_unparsed"):  # still unparsed, or parsed by this Job before it was interrupted
        responses = responses.filter(
            Q(pk__in=unparsed_responses(job.project).values("pk")) | Q(parsed_at__gte=job.created_at, parser_backend=name)
        )
    responses = list(responses.order_by("id"))
    pending = [r for r in responses if not _parsed_by(r, job, name)]
    progress.set(total=len(responses), done=len(responses) - len(pending))
    written = {"responses": 0, "predicates": 0, "qas": 0, "answer_spans": 0, "atomic_facts": 0}
    policy = project_policy(job.project)
    # a resumed Job adds to what its first run dropped
    dropped = {k: int((job.result.get("dropped") or {}).get(k, 0)) for k in (*REASONS, DROPPED_FACTS)}
    parser = get_parser(name)
    facts_backend = _facts_backend(job.project)
    for start in range(0, len(pending), CHUNK):
        chunk = pending[start : start + CHUNK]
        for response, parsed in zip(chunk, _parse_chunk(parser, chunk), strict=True):
            with transaction.atomic():
                counts = write_parse(response, parsed, name, facts_backend)
            for key, value in counts.pop("dropped", {}).items():
                dropped[key] = dropped.get(key, 0) + value
            for key, value in counts.items():
                written[key] += value
            written["responses"] += 1
            progress.add()
    why = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in dropped.items() if n) or "none"
    summary = (f"{written['qas']} QAs and {written['atomic_facts']} facts written for {written['responses']} "
               f"responses; dropped by the parse policy: {why}")
    return {**job.result, **written, "backend": name, "policy": policy.as_dict(), "dropped": dropped,
            "dropped_total": sum(dropped.values()), "summaries": [summary]}


def _parsed_by(response: Response, job: Job, name: str) -> bool:
    return bool(response.parsed_at and response.parser_backend == name and response.parsed_at >= job.created_at)


def _keeps_tokens(response: Response) -> bool:
    """Keep the stored tokens when anything that is not ours refers to their indices (or to the sentences)."""
    if not response.tokens:
        return False
    if any(set(s) - _SENTENCE_KEYS for s in (response.sentences or [])):
        return True
    kept_qas = _kept_qas(response)
    return (
        kept_qas.exists()
        or response.predicates.exclude(origin=Origin.PARSER).exists()
        or response.answer_spans.filter(Q(labels__isnull=False) | ~Q(origin=Origin.PARSER)).exists()
        or response.atomic_facts.exists()
    )


def _parse_chunk(parser: registry.ParserBackend, chunk: Sequence[Response]) -> list[ParsedText]:
    """Parse fresh texts in one batch; responses whose tokens must stay are parsed over those tokens."""
    keep = [_keeps_tokens(r) for r in chunk]
    fresh = iter(parser.parse_many([r.text for r, k in zip(chunk, keep, strict=True) if not k]))
    out = []
    for response, k in zip(chunk, keep, strict=True):
        if k:
            out.append(parser.parse_pretokenized(response.text, response.tokens, response.sentences or []))
        else:
            out.append(next(fresh))
    return out


def _kept_qas(response: Response):
    """QAs parsing never replaces: imported, human, validated, edited, or already labeled."""
    return response.qas.annotate(n_labels=Count("labels")).filter(
        ~Q(origin=Origin.PARSER) | Q(edited=True) | ~Q(validity=QA.Validity.UNKNOWN) | Q(n_labels__gt=0)
    )


def write_parse(response: Response, parsed: ParsedText, name: str, facts_backend: Any = None,
                policy: ParsePolicy | None = None) -> dict[str, Any]:
    """Replace the parser's own frames of one response with `parsed`, as far as `policy` keeps them (call inside a
    transaction). `policy`: the project's when not given. Returns what was written and
    {"dropped": {reason: QAs or facts}}."""
    response = Response.objects.select_for_update().get(pk=response.pk)
    policy = policy or project_policy(Project.objects.get(pk=response.project_id))
    parsed = apply_policy(parsed, policy.qas)  # parsed.dropped: the policy's reasons and any the parser gave
    dropped = dict(parsed.dropped)
    kept_ids = set(_kept_qas(response).values_list("id", flat=True))
    response.answer_spans.filter(origin=Origin.PARSER, labels__isnull=True).delete()
    response.qas.filter(origin=Origin.PARSER).exclude(id__in=kept_ids).delete()
    response.predicates.filter(origin=Origin.PARSER).annotate(n=Count("qas")).filter(n=0).delete()

    if parsed.token_rows() != response.tokens:  # a fresh parse (_parse_chunk decided nothing pins the tokens)
        response.tokens = parsed.token_rows()
        response.sentences = parsed.sentence_rows()

    predicates = {p.token_index: p for p in response.predicates.all()}
    # an argument a kept QA already covers (same predicate, same span) is not asked again: a person's edit of
    # the question must not bring the parser's original back beside it
    kept = {(q.predicate_id, q.answer_start, q.answer_end) for q in response.qas.filter(id__in=kept_ids)}
    order = (max(response.qas.values_list("order", flat=True), default=-1) or 0) + 1
    qa_rows: dict[tuple[int, int], list[QA]] = {}
    new_predicates = 0
    for f_index, frame in enumerate(parsed.frames):
        predicate = predicates.get(frame.token_index)
        if predicate is None:
            predicate = Predicate.objects.create(
                response=response,
                token_index=frame.token_index,
                text=frame.text[:200],
                verb_form=frame.verb_form[:200],
                kind=frame.kind,
                pos=frame.pos,
                sentence_index=frame.sentence_index,
                origin=Origin.PARSER,
            )
            predicates[frame.token_index] = predicate
            new_predicates += 1
        for q_index, qa in enumerate(frame.qas):
            rows = []
            for answer in qa.answers:
                key = (predicate.pk, answer.start, answer.end)
                if key in kept or answer.end <= answer.start:
                    continue
                kept.add(key)
                rows.append(
                    QA(
                        response=response,
                        predicate=predicate,
                        question=qa.question[:500],
                        raw_question=list(qa.raw_question),
                        answer=(answer.text or parsed.span_text(answer.start, answer.end))[:1000],
                        answer_start=answer.start,
                        answer_end=answer.end,
                        role=qa.role[:40],
                        origin=Origin.PARSER,
                        confidence=round(float(qa.confidence), 4),
                        order=order,
                        metadata={"backend": name},
                    )
                )
                order += 1
            qa_rows[(f_index, q_index)] = QA.objects.bulk_create(rows)

    spans_written = 0
    existing_spans = {(s.start, s.end): s for s in response.answer_spans.all()}
    for s_order, merged in enumerate(merge_answer_spans(parsed.frames)):
        qas = [
            qa_row
            for ref in merged.qa_refs
            for qa_row in qa_rows.get(ref, [])
            if (qa_row.answer_start, qa_row.answer_end) == (merged.start, merged.end)
        ]
        if not qas:
            continue
        span = existing_spans.get((merged.start, merged.end))
        if span is None:
            span = AnswerSpan.objects.create(
                response=response,
                start=merged.start,
                end=merged.end,
                text=(merged.text or parsed.span_text(merged.start, merged.end))[:1000],
                origin=Origin.PARSER,
                order=s_order,
            )
            existing_spans[(merged.start, merged.end)] = span
            spans_written += 1
        span.qas.add(*qas)

    facts_written, facts_dropped = (
        _write_atomic_facts(response, parsed, facts_backend, policy.min_fact_confidence)
        if facts_backend is not None else (0, 0)
    )
    response.parsed_at = timezone.now()
    response.parser_backend = name
    response.save(update_fields=["tokens", "sentences", "parsed_at", "parser_backend"])
    return {
        "predicates": new_predicates,
        "qas": sum(len(v) for v in qa_rows.values()),
        "answer_spans": spans_written,
        "atomic_facts": facts_written,
        "dropped": {**dropped, DROPPED_FACTS: facts_dropped},
    }


# ------------------------------------------------------------------------------------------------ atomic facts


def _facts_backend(project: Project) -> Any:
    """The atomic-fact splitter, only for projects that label atomic facts."""
    if not project.has_step(Protocol.FACT_LABELING.value):
        return None
    from parser import atomic_facts

    return atomic_facts.get_backend(
        getattr(settings, "ATOMIC_FACTS_BACKEND", "embedded"), **atomic_facts.settings_options(settings)
    )


def _write_atomic_facts(response: Response, parsed: ParsedText, backend: Any,
                        min_confidence: float = 0.0) -> tuple[int, int]:
    """Model facts per sentence, each with its confidence (parser.facts.confidence), those under the policy's
    minimum left out; never when facts came from elsewhere (imported, human, or labeled). (written, dropped)."""
    facts = response.atomic_facts
    if facts.exclude(origin=Origin.PARSER).exists() or facts.filter(
        Q(labels__isnull=False) | Q(edited_into__isnull=False) | ~Q(kind="model")
        | ~Q(validation=AtomicFact.Validation.UNKNOWN)  # an expert decided it (fact validation)
    ).exists():
        return 0, 0
    facts.all().delete()
    rows = []
    dropped = 0
    for s_index, sentence_facts in enumerate(backend.split(parsed)):
        sentence = parsed.sentences[s_index].text if s_index < len(parsed.sentences) else ""
        for i, text in enumerate(sentence_facts):
            confidence = fact_confidence(text, sentence, parsed.text)
            if confidence < min_confidence:
                dropped += 1
                continue
            rows.append(AtomicFact(response=response, sentence_index=s_index, text=text, origin=Origin.PARSER,
                                   kind="model", confidence=confidence, order=i))
    AtomicFact.objects.bulk_create(rows)
    return len(rows), dropped


def parse_responses_now(responses: Iterable[Response], backend: str | None = None) -> int:
    """Parse the given responses in this process (tests, shell); returns how many were written."""
    name = backend_name(backend)
    parser = get_parser(name)
    chunk = list(responses)
    for response, parsed in zip(chunk, _parse_chunk(parser, chunk), strict=True):
        with transaction.atomic():
            write_parse(response, parsed, name)
    return len(chunk)
