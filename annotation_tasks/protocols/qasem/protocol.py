"""QASem two-step protocol: step 1 answer-span coverage, step 2 QA support, optionally a pairwise comparison.

Workers see the QAs an expert has not marked invalid. A QA whose answer span was marked not covered is derived
(sent as not supported) and cannot be supported. With two responses and the pairwise step the worker also
scores A against B, on faithfulness and relevance for RAG items (passages or a question) else on consistency.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from annotation_tasks.compiled_sql import OrmSql
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    PairwisePreference,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    UnitResponse,
)
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols.base import (
    AnnotationProtocol,
    Errors,
    Export,
    Key,
    LabelLevel,
    Shown,
    Step,
    Submission,
)
from annotation_tasks.protocols.fields import (
    PAIRWISE_KEYS,
    PAIRWISE_LEVEL,
    as_list,
    check_fields,
    flags,
    is_bool,
    item_id,
    pairwise_scores,
    require_all,
    text_error,
)

RAG_ASPECTS = ["faithfulness", "relevance"]
PLAIN_ASPECTS = ["consistency"]
QA_FIELDS = ("id", "predicate_id", "question", "answer", "answer_start", "answer_end")
# Set on a Unit instance by protocols/payload.py when it reads the unit's responses: whether the unit is a later part
# of a split response (pairwise_section then needs no query of its own). An instance lives for one request.
LATER_PART_ATTR = "_factcrowd_later_part"


def crowd_qas(response_ids: Iterable[int]):
    """QAs that may be shown to the crowd: everything an expert has not marked invalid."""
    return QA.objects.filter(response_id__in=list(response_ids)).exclude(validity=QA.Validity.INVALID)


def pairwise_aspects(source: Source) -> list[str]:
    """The aspects a pairwise comparison asks about: the one place that decides (the element reads the plan)."""
    return list(RAG_ASPECTS if (source.passages or source.question) else PLAIN_ASPECTS)


def pairwise_section(unit: Unit, responses: list[Any]) -> dict[str, Any] | None:
    """The plan's pairwise section when the project compares and the unit has exactly two responses."""
    if not unit.project.has_step(Protocol.PAIRWISE) or len(responses) != 2:
        return None
    later_part = getattr(unit, LATER_PART_ATTR, None)  # read with the unit's responses (protocols/payload.py)
    if later_part is None:
        later_part = bool(unit.pk) and UnitResponse.objects.filter(unit=unit, items__part__gt=0).exists()
    if later_part:
        return None  # a later part of a pair split over the unit caps: the first part asks (services.units)
    ids = [r["id"] if isinstance(r, dict) else r.pk for r in responses]
    return {"kind": Protocol.PAIRWISE.value, "response_ids": ids, "aspects": pairwise_aspects(unit.source)}


def qa_items(response: Response, qa_queryset, shown: Shown) -> dict[str, list[dict]]:
    """Predicates, QAs and answer spans of one response (see qa_items_of)."""
    return qa_items_of([response.pk], qa_queryset, {response.pk: shown})[response.pk]


_QA_ROW = (*QA_FIELDS, "response_id", "predicate__token_index", "predicate__text", "predicate__verb_form",
           "predicate__kind")
_MOST_COMPILED_IDS = 8  # SQL compiled once per number of responses up to this many (a unit has a few)
_BY_ARITY: dict[tuple[Any, int], Any] = {}


def _rows_for_ids(build: Callable[[list[int]], Any], response_ids: list[int]) -> list[tuple]:
    """The rows of the values_list queryset `build(response_ids)`, from SQL the ORM compiled once per `build` and
    number of ids (OrmSql: the unit GET's item queries cost more to compile than to run)."""
    n = len(response_ids)
    if n == 0:
        return []
    if n > _MOST_COMPILED_IDS:
        return list(build(response_ids))
    compiled = _BY_ARITY.get((build, n))
    if compiled is None:
        compiled = _BY_ARITY[(build, n)] = OrmSql(lambda **ids: build([ids[f"r{i}"] for i in range(n)]),
                                                  **{f"r{i}": int for i in range(n)})
    return compiled.rows(**{f"r{i}": rid for i, rid in enumerate(response_ids)})


def _crowd_qa_rows(response_ids: list[int]):
    return crowd_qas(response_ids).order_by("order", "id").values_list(*_QA_ROW)


def _span_qa_rows(response_ids: list[int]):
    return AnswerSpan.qas.through.objects.filter(answerspan__response_id__in=response_ids).values_list(
        "answerspan_id", "qa_id")


def _span_rows(response_ids: list[int]):
    return AnswerSpan.objects.filter(response_id__in=response_ids).order_by("order", "start", "id").values_list(
        "id", "start", "end", "text", "response_id")


def qa_items_of(response_ids: list[int], qa_queryset, shown: dict[int, Shown]) -> dict[int, dict[str, list[dict]]]:
    """{response id: its predicates, QAs and answer spans}, read for all the responses in three queries (the unit
    GET is the annotator's hot path). `qa_queryset`: the QAs to show, of these responses, or None for crowd_qas
    (then every query runs from compiled-once SQL). Plain rows with explicit field lists: fast for large units (no
    model instances). A span whose every QA is left out is left out too."""
    qas: dict[int, list[dict]] = {rid: [] for rid in response_ids}
    predicates: dict[int, dict[int, dict]] = {rid: {} for rid in response_ids}
    if qa_queryset is None:
        qa_rows = (dict(zip(_QA_ROW, row, strict=True)) for row in _rows_for_ids(_crowd_qa_rows, response_ids))
    else:
        qa_rows = qa_queryset.order_by("order", "id").values(*_QA_ROW)
    for row in qa_rows:
        rid, pid = row["response_id"], row["predicate_id"]
        if rid not in qas:
            continue
        predicates[rid].setdefault(pid, {
            "id": pid, "token_index": row["predicate__token_index"], "text": row["predicate__text"],
            "verb_form": row["predicate__verb_form"], "kind": row["predicate__kind"],
        })
        qas[rid].append({k: row[k] for k in QA_FIELDS})
    span_qas: dict[int, list[int]] = {}
    for span_id, qa_id in _rows_for_ids(_span_qa_rows, response_ids):
        span_qas.setdefault(span_id, []).append(qa_id)
    spans: dict[int, list[dict]] = {rid: [] for rid in response_ids}
    qa_ids = {rid: {q["id"] for q in rows} for rid, rows in qas.items()}
    for span_id, start, end, text, rid in _rows_for_ids(_span_rows, response_ids):
        span: dict[str, Any] = {"id": span_id, "start": start, "end": end, "text": text}
        all_ids = sorted(span_qas.get(span_id, []))
        span_qa_ids = [i for i in all_ids if i in qa_ids[rid]]
        if all_ids and not span_qa_ids:
            continue  # every QA of this span was judged invalid
        spans[rid].append({**span, "qa_ids": span_qa_ids})
        shown[rid].spans.append(span_id)
    for rid in response_ids:
        shown[rid].qas.extend(q["id"] for q in qas[rid])
    return {
        rid: {"predicates": sorted(predicates[rid].values(), key=lambda p: p["token_index"]), "qas": qas[rid],
              "spans": spans[rid]}
        for rid in response_ids
    }


def _qa_labels(labels, shown_qas: set, errors: Errors) -> dict[int, dict]:
    qas: dict[int, dict] = {}
    for i, item in enumerate(as_list(labels, "qas", errors)):
        path = f"labels.qas[{i}]"
        qid = item_id(item, "qa_id")
        if qid not in shown_qas:
            errors.add(f"{path}.qa_id", "not a QA of this unit")
        elif qid in qas:
            errors.add(f"{path}.qa_id", "labeled twice")
        elif not is_bool(item.get("supported")):
            errors.add(f"{path}.supported", "must be true or false")
        elif not is_bool(item.get("derived_from_span", False)):
            errors.add(f"{path}.derived_from_span", "must be true or false")
        elif (note_error := text_error(item.get("note", "") or "")) is not None:
            errors.add(f"{path}.note", note_error)
        else:
            qas[qid] = {"supported": item["supported"], "derived": item.get("derived_from_span", False),
                        "note": item.get("note", "") or "", "index": i}
    return qas


def _supported_under_uncovered(spans: dict[int, bool], qas: dict[int, dict], errors: Errors) -> None:
    """A QA of a span marked not covered cannot be supported (step 2 follows step 1)."""
    uncovered = {sid for sid, covered in spans.items() if not covered}
    if not uncovered:
        return
    for qa_id, span_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=uncovered).values_list(
        "qa_id", "answerspan_id"
    ):
        got = qas.get(qa_id)
        if got is not None and got["supported"]:
            errors.add(f"labels.qas[{got['index']}].supported",
                       f"span {span_id} is not covered, so its QA cannot be supported")


GUIDE = """\
**Step 1 · Span coverage.** For each highlighted span of the response, decide whether the reference mentions it
(the same entity, event or detail, possibly in other words).

**Step 2 · QA support.** Each question–answer pair states one fact about the highlighted predicate. Mark it
supported only if the reference states (or clearly implies) exactly that. QAs whose span you marked not covered
are already not supported and are skipped.

**Compare.** After both responses: which one is more consistent with the reference? 1 = A much more, 3 = about
equal, 5 = B much more.
"""


LABEL_FIELDS = {"spans": ("span_id", "covered"), "qas": ("qa_id", "supported", "derived_from_span", "note"),
                "pairwise": ("aspect", "score")}  # what validate reads; anything else is refused (fields.check_fields)

class QASemProtocol(AnnotationProtocol):
    mode = Unit.Mode.QASEM.value
    title = "QASem: span coverage, QA support (+ pairwise)"
    steps = (
        Step(Protocol.SPAN_COVERAGE.value, Protocol.SPAN_COVERAGE.label),
        Step(Protocol.QA_SUPPORT.value, Protocol.QA_SUPPORT.label),
        Step(Protocol.PAIRWISE.value, Protocol.PAIRWISE.label),
    )
    default_steps = (Protocol.SPAN_COVERAGE.value, Protocol.QA_SUPPORT.value)  # DEFAULT_PROTOCOL: no comparison
    plan_kinds = (Protocol.SPAN_COVERAGE.value, Protocol.QA_SUPPORT.value, Protocol.PAIRWISE.value)
    default_mode = True
    label_levels = (
        LabelLevel(
            name="span", item_type="span", labels=("not_covered", "covered"),
            display={"not_covered": "Not covered", "covered": "Covered"},
            model=SpanLabel, item_field="span_id", value_field="covered",
            items=lambda project: AnswerSpan.objects.filter(response__project=project),
            names=("covered", "not_covered"),
        ),
        LabelLevel(
            name="qa", item_type="qa", labels=("not_supported", "supported"),
            display={"not_supported": "Not supported", "supported": "Supported"},
            model=QALabel, item_field="qa_id", value_field="supported",
            items=lambda project: QA.objects.filter(response__project=project).exclude(validity=QA.Validity.INVALID),
            names=("supported", "not_supported"), extra_fields=("derived_from_span",),
        ),
    )
    review_levels = (PAIRWISE_LEVEL,)
    keys = (
        Key("c", "covered", "Span: covered"), Key("n", "not_covered", "Span: not covered"),
        Key("s", "supported", "QA: supported"), Key("n", "not_supported", "QA: not supported"),
        Key("e", "note", "QA: write a note"), *PAIRWISE_KEYS,
    )
    guide = GUIDE
    exports = (
        Export("qasem-release", "QASem consistency release", "One line per response: QAs, spans, every worker's "
               "labels and the majority (the published benchmark format)."),
        Export("qa-jsonl", "QA pairs (JSONL)", "One line per QA with its support label, votes and a dev/test split "
               "by source."),
    )
    review = "annotation_tasks.protocols.qasem.review:QASemReview"

    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        return qa_items(response, crowd_qas([response.pk]), shown)

    def responses_items(self, responses: list[Response], shown: dict[int, Shown]) -> dict[int, dict[str, list[dict]]]:
        ids = [r.pk for r in responses]
        return qa_items_of(ids, None, shown)

    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """Per response: its spans (step 1) when the protocol has span coverage and the response has spans, then
        its QAs (step 2, derived from the spans; step 1 without a span step); then the comparison."""
        project: Project = unit.project
        sections: list[dict] = []
        for r in responses:
            spans_step = project.has_step(Protocol.SPAN_COVERAGE) and bool(r["spans"])
            if spans_step:
                sections.append({"kind": Protocol.SPAN_COVERAGE.value, "response_id": r["id"], "step": 1})
            if project.has_step(Protocol.QA_SUPPORT) or not spans_step:
                sections.append({"kind": Protocol.QA_SUPPORT.value, "response_id": r["id"],
                                 "step": 2 if spans_step else 1, "derived_from_spans": spans_step})
        pairwise = pairwise_section(unit, responses)
        if pairwise is not None:
            sections.append(pairwise)
        return sections

    def validate(self, submission: Submission, errors: Errors) -> dict[str, Any]:
        project, labels = submission.unit.project, submission.labels
        check_fields(labels, LABEL_FIELDS, errors)
        shown_spans, shown_qas = set(submission.shown.get("spans", [])), set(submission.shown.get("qas", []))
        spans = flags(labels, "spans", "span_id", "covered", shown_spans, errors,
                      unknown="not a span of this unit", twice="labeled twice")
        qas = _qa_labels(labels, shown_qas, errors)
        if project.has_step(Protocol.SPAN_COVERAGE):
            require_all(shown_spans, spans, "labels.spans", "span {} is not labeled", errors)
        if project.has_step(Protocol.QA_SUPPORT):
            require_all(shown_qas, qas, "labels.qas", "QA {} is not labeled", errors)
            _supported_under_uncovered(spans, qas, errors)
        pairwise = pairwise_section(submission.unit, submission.responses)
        scores = pairwise_scores(labels, sorted(pairwise["aspects"]), errors) if pairwise else {}
        return {"spans": spans, "qas": qas, "pairwise": scores}

    def write(self, assignment: Assignment, submission: Submission, clean: dict[str, Any]) -> None:
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
        responses = submission.responses
        PairwisePreference.objects.bulk_create(
            [
                PairwisePreference(assignment=assignment, unit=submission.unit, response_a=responses[0],
                                   response_b=responses[1], aspect=aspect, score=score)
                for aspect, score in clean["pairwise"].items()
            ]
        )
