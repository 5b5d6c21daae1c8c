"""Serving a unit to a worker, saving drafts, and turning a submission into labels.

What reaches the browser is built here and only here: texts, tokens, ids, the project's instructions,
the worker's own draft. Never gold labels, system names, metadata, other workers' labels, or human facts
written in other assignments.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    FactLabel,
    PairwisePreference,
    QALabel,
    Response,
    SpanLabel,
    Unit,
)
from annotation_tasks.models.content import Origin
from annotation_tasks.models.projects import Protocol
from annotation_tasks.services import queue
from annotation_tasks.services.tokens import BadToken, read_assignment_token, read_preview_token
from annotation_tasks.services.units import MODE_FACTSCORE, MODE_QASEM, MODE_VALIDATION, crowd_qas

FACT_VALUES = {v.value for v in FactLabel.Value}
DONE_STATUSES = (Assignment.Status.SUBMITTED, Assignment.Status.APPROVED, Assignment.Status.REJECTED)


class WorkError(Exception):
    status_code = 400

    def __init__(self, message: str, errors: list[dict] | None = None):
        super().__init__(message)
        self.errors = errors or [{"field": "", "message": message}]


class Forbidden(WorkError):
    status_code = 403


class Conflict(WorkError):
    status_code = 409


class Invalid(WorkError):
    status_code = 400


# -- tokens ------------------------------------------------------------------------------------


def assignment_for_token(token: str, *, for_write: bool = False) -> Assignment:
    """The assignment a token names; Forbidden when tampered, foreign, returned or expired for good."""
    try:
        claim = read_assignment_token(token)
    except BadToken as exc:
        raise Forbidden("invalid token") from exc
    assignment = (
        Assignment.objects.select_related("unit__project", "unit__source", "unit__batch", "worker")
        .filter(pk=claim.assignment_id, worker_id=claim.worker_id)
        .first()
    )
    if assignment is None:
        raise Forbidden("invalid token")
    overdue = assignment.expires_at is not None and assignment.expires_at < timezone.now()
    if assignment.status == Assignment.Status.EXPIRED or (assignment.status == Assignment.Status.ASSIGNED and overdue):
        if not queue.revive(assignment):
            raise Forbidden("this assignment has expired")
    if assignment.status == Assignment.Status.RETURNED:
        raise Forbidden("this assignment was returned")
    if for_write and assignment.status in DONE_STATUSES:
        raise Conflict("already submitted")
    return assignment


def unit_for_preview_token(token: str) -> Unit:
    try:
        unit_id = read_preview_token(token)
    except BadToken as exc:
        raise Forbidden("invalid token") from exc
    unit = Unit.objects.select_related("project", "source").filter(pk=unit_id).first()
    if unit is None:
        raise Forbidden("invalid token")
    return unit


# -- the unit payload ----------------------------------------------------------------------------


@dataclass
class _Shown:
    responses: list[int] = field(default_factory=list)
    spans: list[int] = field(default_factory=list)
    qas: list[int] = field(default_factory=list)
    facts: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[int]]:
        return {"responses": self.responses, "spans": self.spans, "qas": self.qas, "facts": self.facts}


def unit_responses(unit: Unit) -> list[Response]:
    """The unit's responses in display order (A, B, ...)."""
    return list(Response.objects.filter(unit_responses__unit=unit).order_by("unit_responses__position", "id"))


def _response_payload(response: Response, label: str, mode: str, shown: _Shown) -> dict[str, Any]:
    """One response as the element sees it. Plain .values() rows with explicit field lists: fast for large units
    (no model instances), and nothing reaches the browser unless it is named here."""
    qas: list[dict] = []
    spans_out: list[dict] = []
    facts_out: list[dict] = []
    predicates: dict[int, dict] = {}
    if mode in (MODE_QASEM, MODE_VALIDATION):
        qa_qs = QA.objects.filter(response=response) if mode == MODE_VALIDATION else crowd_qas([response.pk])
        for row in qa_qs.order_by("order", "id").values(
            "id", "predicate_id", "question", "answer", "answer_start", "answer_end",
            "predicate__token_index", "predicate__text", "predicate__verb_form", "predicate__kind",
        ):
            pid = row["predicate_id"]
            predicates.setdefault(pid, {
                "id": pid, "token_index": row.pop("predicate__token_index"), "text": row.pop("predicate__text"),
                "verb_form": row.pop("predicate__verb_form"), "kind": row.pop("predicate__kind"),
            })
            qas.append({k: row[k] for k in ("id", "predicate_id", "question", "answer", "answer_start", "answer_end")})
        qa_ids = {q["id"] for q in qas}
        span_qas: dict[int, list[int]] = {}
        for span_id, qa_id in AnswerSpan.qas.through.objects.filter(answerspan__response=response).values_list(
            "answerspan_id", "qa_id"
        ):
            span_qas.setdefault(span_id, []).append(qa_id)
        for span in AnswerSpan.objects.filter(response=response).order_by("order", "start", "id").values(
            "id", "start", "end", "text"
        ):
            all_ids = sorted(span_qas.get(span["id"], []))
            span_qa_ids = [i for i in all_ids if i in qa_ids]
            if all_ids and not span_qa_ids:
                continue  # every QA of this span was judged invalid
            spans_out.append({**span, "qa_ids": span_qa_ids})
            shown.spans.append(span["id"])
        shown.qas.extend(q["id"] for q in qas)
    if mode == MODE_FACTSCORE:
        facts_out = list(
            AtomicFact.objects.filter(response=response, created_by_assignment__isnull=True)
            .order_by("sentence_index", "order", "id")
            .values("id", "sentence_index", "text")
        )
        shown.facts.extend(f["id"] for f in facts_out)
    shown.responses.append(response.pk)
    return {
        "id": response.pk,
        "label": label,
        "text": response.text,
        "tokens": [list(t)[:3] for t in (response.tokens or [])],
        "sentences": [
            {"start": s.get("start"), "end": s.get("end"), "text": s.get("text", "")} for s in (response.sentences or [])
        ],
        "predicates": sorted(predicates.values(), key=lambda p: p["token_index"]),
        "qas": qas,
        "spans": spans_out,
        "facts": facts_out,
    }


def _payload(unit: Unit, assignment_part: dict[str, Any]) -> tuple[dict[str, Any], _Shown]:
    shown = _Shown()
    project = unit.project
    source = unit.source
    responses = [
        _response_payload(r, f"Response {chr(ord('A') + i)}", unit.mode, shown) for i, r in enumerate(unit_responses(unit))
    ]
    return (
        {
            "assignment": assignment_part,
            "project": {"name": project.name, "instructions": project.instructions, "protocol": list(project.protocol or [])},
            "source": {"id": source.pk, "text": source.text, "passages": list(source.passages or []), "question": source.question},
            "responses": responses,
            "draft": None,
            "draft_saved_at": None,
        },
        shown,
    )


def unit_payload(assignment: Assignment) -> dict[str, Any]:
    """The GET unit answer for a worker; the first fetch records what was shown and when work started."""
    data, record = unit_payload_then_record(assignment)
    record()
    return data


def unit_payload_then_record(assignment: Assignment) -> tuple[dict[str, Any], Callable[[], None]]:
    """The GET unit answer, and what the first fetch records (the items shown, when work started) as a callable.

    The unit page embeds the answer and runs the callable once the page has been sent: the write (one commit)
    is then off the path to the first label. `started_at` is the time the answer was built either way, and a
    submit that finds nothing recorded rebuilds what was shown (see submit)."""
    unit = assignment.unit
    data, shown = _payload(
        unit, {"id": assignment.pk, "status": assignment.status, "mode": unit.mode, "preview": False}
    )
    data["draft"] = assignment.draft
    data["draft_saved_at"] = assignment.draft_saved_at.isoformat() if assignment.draft_saved_at else None
    changes: dict[str, Any] = {}
    if assignment.started_at is None:
        changes["started_at"] = timezone.now()
    if not assignment.shown:
        changes["shown"] = shown.as_dict()

    def record() -> None:
        if changes:  # the first fetch only
            Assignment.objects.filter(pk=assignment.pk).update(**changes)
            for name, value in changes.items():
                setattr(assignment, name, value)
            changes.clear()

    return data, record


def preview_payload(unit: Unit) -> dict[str, Any]:
    data, _ = _payload(unit, {"id": None, "status": "preview", "mode": unit.mode, "preview": True})
    return data


# -- drafts --------------------------------------------------------------------------------------


def save_draft(assignment: Assignment, draft: Any) -> timezone.datetime:
    """Store the element's draft; activity also pushes the expiry back so a working annotator keeps the unit."""
    now = timezone.now()
    updated = queue.retry_locked(
        lambda: Assignment.objects.filter(pk=assignment.pk, status=Assignment.Status.ASSIGNED).update(
            draft=draft, draft_saved_at=now, expires_at=now + queue.timeout_for(assignment.unit)
        )
    )
    if not updated:
        assignment.refresh_from_db()
        if assignment.status in DONE_STATUSES:
            raise Conflict("already submitted")
        raise Forbidden("this assignment is not open")
    return now


# -- submission ----------------------------------------------------------------------------------


@dataclass
class SubmitResult:
    status: str
    duplicate: bool


class _Errors:
    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.items.append({"field": path, "message": message})


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _list(labels: Mapping, key: str, errors: _Errors) -> list:
    value = labels.get(key, [])
    if value is None:
        return []
    if not isinstance(value, list):
        errors.add(f"labels.{key}", "must be a list")
        return []
    return value


def _flags(labels: Mapping, key: str, id_key: str, flag: str, shown: set, errors: _Errors, *,
           unknown: str, twice: str) -> dict[int, bool]:
    """labels[key] as {item[id_key]: item[flag]}: each id one of `shown`, at most once, each flag a boolean."""
    out: dict[int, bool] = {}
    for i, item in enumerate(_list(labels, key, errors)):
        path = f"labels.{key}[{i}]"
        item_id = item.get(id_key) if isinstance(item, dict) else None
        if item_id not in shown:
            errors.add(f"{path}.{id_key}", unknown)
        elif item_id in out:
            errors.add(f"{path}.{id_key}", twice)
        elif not _is_bool(item.get(flag)):
            errors.add(f"{path}.{flag}", "must be true or false")
        else:
            out[item_id] = item[flag]
    return out


def _validate_qasem(unit: Unit, shown: dict, labels: Mapping, errors: _Errors, responses: list[Response]) -> dict:
    project = unit.project
    need_spans = project.has_step(Protocol.SPAN_COVERAGE)
    need_qas = project.has_step(Protocol.QA_SUPPORT)
    shown_spans, shown_qas = set(shown.get("spans", [])), set(shown.get("qas", []))
    spans = _flags(labels, "spans", "span_id", "covered", shown_spans, errors,
                   unknown="not a span of this unit", twice="labeled twice")
    qas: dict[int, dict] = {}
    for i, item in enumerate(_list(labels, "qas", errors)):
        path = f"labels.qas[{i}]"
        qid = item.get("qa_id") if isinstance(item, dict) else None
        if qid not in shown_qas:
            errors.add(f"{path}.qa_id", "not a QA of this unit")
        elif qid in qas:
            errors.add(f"{path}.qa_id", "labeled twice")
        elif not _is_bool(item.get("supported")):
            errors.add(f"{path}.supported", "must be true or false")
        elif not _is_bool(item.get("derived_from_span", False)):
            errors.add(f"{path}.derived_from_span", "must be true or false")
        elif not isinstance(item.get("note", ""), str):
            errors.add(f"{path}.note", "must be text")
        else:
            qas[qid] = {"supported": item["supported"], "derived": item.get("derived_from_span", False),
                        "note": item.get("note", "") or "", "index": i}
    if need_spans:
        for sid in sorted(shown_spans - set(spans)):
            errors.add("labels.spans", f"span {sid} is not labeled")
    if need_qas:
        for qid in sorted(shown_qas - set(qas)):
            errors.add("labels.qas", f"QA {qid} is not labeled")
        uncovered = {sid for sid, covered in spans.items() if not covered}
        if uncovered:
            for qa_id, span_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=uncovered).values_list(
                "qa_id", "answerspan_id"
            ):
                got = qas.get(qa_id)
                if got is not None and got["supported"]:
                    errors.add(f"labels.qas[{got['index']}].supported",
                               f"span {span_id} is not covered, so its QA cannot be supported")
    pairwise: dict[str, int] = {}
    if project.has_step(Protocol.PAIRWISE) and len(responses) == 2:
        # RAG items (retrieved passages or a question) are compared on two aspects, like the element shows.
        rag = bool(unit.source.passages or unit.source.question)
        wanted = {"faithfulness", "relevance"} if rag else {"consistency"}
        for i, item in enumerate(_list(labels, "pairwise", errors)):
            path = f"labels.pairwise[{i}]"
            aspect = item.get("aspect") if isinstance(item, dict) else None
            score = item.get("score") if isinstance(item, dict) else None
            if aspect not in wanted:
                errors.add(f"{path}.aspect", f"must be one of {', '.join(sorted(wanted))}")
            elif aspect in pairwise:
                errors.add(f"{path}.aspect", "given twice")
            elif not isinstance(score, int) or isinstance(score, bool) or not 1 <= score <= 5:
                errors.add(f"{path}.score", "must be an integer from 1 to 5")
            else:
                pairwise[aspect] = score
        for aspect in sorted(wanted - set(pairwise)):
            errors.add("labels.pairwise", f"aspect {aspect} has no score")
    return {"spans": spans, "qas": qas, "pairwise": pairwise}


def _validate_factscore(shown: dict, labels: Mapping, errors: _Errors, responses: list[Response]) -> dict:
    shown_facts = set(shown.get("facts", []))
    fact_response = dict(
        AtomicFact.objects.filter(pk__in=shown_facts).values_list("id", "response_id")
    )
    sentence_counts = {r.pk: len(r.sentences or []) for r in responses}
    kept: dict[int, str] = {}
    new: list[dict] = []
    replaced: set[int] = set()
    for i, item in enumerate(_list(labels, "facts", errors)):
        path = f"labels.facts[{i}]"
        if not isinstance(item, dict):
            errors.add(path, "must be an object")
            continue
        label = item.get("label")
        if label not in FACT_VALUES:
            errors.add(f"{path}.label", "must be S, NS or IR")
            continue
        if "fact_id" in item and item.get("fact_id") is not None:
            fid = item["fact_id"]
            if fid not in shown_facts:
                errors.add(f"{path}.fact_id", "not a fact of this unit")
            elif fid in kept:
                errors.add(f"{path}.fact_id", "labeled twice")
            else:
                kept[fid] = label
            continue
        text = item.get("text")
        rid = item.get("response_id")
        sidx = item.get("sentence_index")
        edited_from = item.get("edited_from") or []
        if not isinstance(text, str) or not text.strip():
            errors.add(f"{path}.text", "a new fact needs its text")
        elif rid not in sentence_counts:
            errors.add(f"{path}.response_id", "not a response of this unit")
        elif not isinstance(sidx, int) or isinstance(sidx, bool) or not (
            0 <= sidx < max(sentence_counts[rid], 1)
        ):
            errors.add(f"{path}.sentence_index", "not a sentence of that response")
        elif not isinstance(edited_from, list) or any(
            f not in shown_facts or fact_response.get(f) != rid for f in edited_from
        ):
            errors.add(f"{path}.edited_from", "must list facts of the same response shown in this unit")
        else:
            new.append({"text": text.strip(), "response_id": rid, "sentence_index": sidx,
                        "edited_from": list(dict.fromkeys(edited_from)), "label": label})
            replaced.update(edited_from)
    if not kept and not new and shown_facts:
        errors.add("labels.facts", "the fact list is empty")
    # Model facts neither kept nor edited were deleted by the annotator (a wrong decomposition): allowed.
    return {"kept": kept, "new": new, "deleted": sorted(shown_facts - set(kept) - replaced)}


def _validate_validation(shown: dict, labels: Mapping, errors: _Errors) -> dict:
    shown_qas = set(shown.get("qas", []))
    out = _flags(labels, "validation", "qa_id", "valid", shown_qas, errors,
                 unknown="not a QA of this unit", twice="judged twice")
    for qid in sorted(shown_qas - set(out)):
        errors.add("labels.validation", f"QA {qid} is not judged")
    return {"validation": out}


def _write(assignment: Assignment, unit: Unit, responses: list[Response], clean: dict) -> None:
    if unit.mode == MODE_QASEM:
        SpanLabel.objects.bulk_create(
            [SpanLabel(assignment=assignment, span_id=sid, covered=c) for sid, c in clean["spans"].items()]
        )
        QALabel.objects.bulk_create(
            [
                QALabel(assignment=assignment, qa_id=qid, supported=v["supported"], derived_from_span=v["derived"],
                        note=v["note"])
                for qid, v in clean["qas"].items()
            ]
        )
        PairwisePreference.objects.bulk_create(
            [
                PairwisePreference(assignment=assignment, unit=unit, response_a=responses[0], response_b=responses[1],
                                   aspect=aspect, score=score)
                for aspect, score in clean["pairwise"].items()
            ]
        )
    elif unit.mode == MODE_FACTSCORE:
        labels = [FactLabel(assignment=assignment, fact_id=fid, label=lab) for fid, lab in clean["kept"].items()]
        for order, item in enumerate(clean["new"]):
            fact = AtomicFact.objects.create(
                response_id=item["response_id"], sentence_index=item["sentence_index"], text=item["text"],
                origin=Origin.HUMAN, kind="human", created_by_assignment=assignment, order=1000 + order,
            )
            if item["edited_from"]:
                fact.edited_from.set(item["edited_from"])
            labels.append(FactLabel(assignment=assignment, fact=fact, label=item["label"]))
        FactLabel.objects.bulk_create(labels)
    elif unit.mode == MODE_VALIDATION:
        valid = [q for q, v in clean["validation"].items() if v]
        invalid = [q for q, v in clean["validation"].items() if not v]
        QA.objects.filter(pk__in=valid).update(validity=QA.Validity.VALID)
        QA.objects.filter(pk__in=invalid).update(validity=QA.Validity.INVALID)


def submit(assignment: Assignment, body: Mapping[str, Any]) -> SubmitResult:
    """Validate and record a submission in one transaction; a repeat (also a concurrent one) records nothing.

    The assignment row is locked (select_for_update) before its status is read, so of two concurrent
    submits one writes and the other sees "submitted". SQLite has no row locks: the transaction opens with
    a write, which takes the database write lock before the status is read.
    """
    labels = body.get("labels") if isinstance(body, Mapping) else None
    if not isinstance(labels, Mapping):
        raise Invalid("labels missing", [{"field": "labels", "message": "must be an object"}])
    time_ms = body.get("time_on_task_ms")
    if time_ms is not None and (not isinstance(time_ms, int) or isinstance(time_ms, bool) or time_ms < 0):
        raise Invalid("bad time", [{"field": "time_on_task_ms", "message": "must be a non-negative integer"}])

    def attempt() -> SubmitResult:
        with transaction.atomic():
            if connection.vendor == "sqlite":
                Assignment.objects.filter(pk=assignment.pk).update(status=F("status"))
            locked = Assignment.objects.select_for_update(of=("self",)).select_related("unit__project", "unit__source").get(
                pk=assignment.pk
            )
            if locked.status in DONE_STATUSES:
                return SubmitResult(locked.status, True)
            if locked.status != Assignment.Status.ASSIGNED:
                raise Forbidden("this assignment is not open")
            unit = locked.unit
            responses = unit_responses(unit)
            shown = locked.shown or _payload(unit, {})[1].as_dict()
            errors = _Errors()
            if unit.mode == MODE_QASEM:
                clean = _validate_qasem(unit, shown, labels, errors, responses)
            elif unit.mode == MODE_FACTSCORE:
                clean = _validate_factscore(shown, labels, errors, responses)
            elif unit.mode == MODE_VALIDATION:
                clean = _validate_validation(shown, labels, errors)
            else:
                raise Invalid(f"unknown unit mode {unit.mode!r}")
            if errors.items:
                raise Invalid("incomplete or invalid submission", errors.items)
            _write(locked, unit, responses, clean)
            now = timezone.now()
            if time_ms is None and locked.started_at:
                elapsed = int((now - locked.started_at).total_seconds() * 1000)
            else:
                elapsed = time_ms
            Assignment.objects.filter(pk=locked.pk).update(
                status=Assignment.Status.SUBMITTED, submitted_at=now, time_on_task_ms=elapsed,
                submission={"labels": dict(labels), "time_on_task_ms": time_ms},
            )
            submitted = Assignment.objects.filter(unit=unit, status__in=DONE_STATUSES[:2]).count()
            if submitted >= unit.assignments_wanted:
                Unit.objects.filter(pk=unit.pk, status=Unit.Status.OPEN).update(status=Unit.Status.COMPLETE)
            return SubmitResult(Assignment.Status.SUBMITTED, False)

    for _ in range(5):
        try:
            return queue.retry_locked(attempt)
        except IntegrityError:
            # A concurrent submit of the same assignment won the race (possible only without row locks).
            time.sleep(0.05)
            current = Assignment.objects.get(pk=assignment.pk)
            if current.status in DONE_STATUSES:
                return SubmitResult(current.status, True)
    raise Conflict("could not record the submission, please retry")

