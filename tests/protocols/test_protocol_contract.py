"""The protocol contract: every registered annotation protocol passes the same tests, through the element's API.

Each harness knows how to build a unit of its mode, what a careful worker sends, how to break a submission in
each way the protocol refuses, and how its labels read back from the analysis frames (services.frames).
Everything else is the same for all: the payload and its plan, refusals with a JSON path that write nothing,
a complete submission that writes labels and becomes frame rows, and an idempotent repeat.
"""
from __future__ import annotations

import copy
import json
import re
from typing import Any

import pandas as pd
import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    Batch,
    FactLabel,
    PairwisePreference,
    Project,
    QALabel,
    Source,
    SpanLabel,
    Worker,
)
from annotation_tasks.models.content import Origin
from annotation_tasks.models.labels import EntailmentLabel
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols import AnnotationProtocol, available_protocols, get_protocol, label_levels, label_order
from annotation_tasks.services import frames
from annotation_tasks.services.tokens import assignment_token
from annotation_tasks.services.units import compose_units, compose_validation_units
from annotation_tasks.signing import unit_ref
from tests.work.builders import GOLD_EXPLANATION, SECRET_META, SECRET_SYSTEM, make_response, make_unit
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db

MARKER = "another-workers-private-text"
Case = tuple[str, dict, str]  # (what is wrong, labels, the JSON path the error must name)


def _sections(payload: dict, kind: str) -> list[dict]:
    return [s for s in payload["plan"] if s["kind"] == kind]


def _with(labels: dict, key: str, index: int, **changes: Any) -> dict:
    out = copy.deepcopy(labels)
    out[key][index].update(changes)
    return out


def _replaced(labels: dict, key: str, value: Any) -> dict:
    out = copy.deepcopy(labels)
    out[key] = value
    return out


def _flag_cases(labels: dict, key: str, id_key: str, flag: str) -> list[Case]:
    """The refusals every list of {id, flag} labels has: not a list, unknown, unhashable, twice, not a boolean,
    one left out."""
    n = len(labels[key])
    return [
        (f"{key} not a list", _replaced(labels, key, "all"), f"labels.{key}"),
        (f"{key} unknown id", _with(labels, key, 0, **{id_key: 10**9}), f"labels.{key}[0].{id_key}"),
        (f"{key} id is a list", _with(labels, key, 0, **{id_key: [1]}), f"labels.{key}[0].{id_key}"),
        (f"{key} twice", _replaced(labels, key, [*labels[key], labels[key][0]]), f"labels.{key}[{n}].{id_key}"),
        (f"{key} flag not boolean", _with(labels, key, 0, **{flag: "yes"}), f"labels.{key}[0].{flag}"),
        (f"{key} one left out", _replaced(labels, key, labels[key][:-1]), f"labels.{key}"),
    ]


class QASemHarness:
    """Two responses of a RAG item: spans, QAs (one derived from an uncovered span) and a comparison."""

    mode = "qasem"

    def unit(self):
        return make_unit("QASem contract", n_qas=2, passages=["Anna visited Paris."])

    def complete(self, payload: dict, marker: str) -> dict:
        first_span = payload["responses"][0]["spans"][0]["id"]
        labels = qasem_labels(payload, uncovered={first_span}, pairwise=4)
        asked = next(q for q in labels["qas"] if not q["derived_from_span"])
        asked["note"] = marker
        return labels

    def invalid(self, payload: dict, labels: dict) -> list[Case]:
        derived = next(i for i, q in enumerate(labels["qas"]) if q["derived_from_span"])
        return [
            *_flag_cases(labels, "spans", "span_id", "covered"),
            *_flag_cases(labels, "qas", "qa_id", "supported"),
            ("derived not boolean", _with(labels, "qas", 0, derived_from_span="no"), "labels.qas[0].derived_from_span"),
            ("note not text", _with(labels, "qas", 0, note=5), "labels.qas[0].note"),
            ("supported under an uncovered span", _with(labels, "qas", derived, supported=True),
             f"labels.qas[{derived}].supported"),
            ("unknown aspect", _with(labels, "pairwise", 0, aspect="consistency"), "labels.pairwise[0].aspect"),
            ("aspect is a list", _with(labels, "pairwise", 0, aspect=["relevance"]), "labels.pairwise[0].aspect"),
            ("aspect twice", _replaced(labels, "pairwise", [labels["pairwise"][0]] * 2), "labels.pairwise[1].aspect"),
            ("score out of range", _with(labels, "pairwise", 0, score=6), "labels.pairwise[0].score"),
            ("score a boolean", _with(labels, "pairwise", 0, score=True), "labels.pairwise[0].score"),
            ("aspect without score", _replaced(labels, "pairwise", labels["pairwise"][:1]), "labels.pairwise"),
        ]

    def written(self, assignment: Assignment) -> int:
        return sum(m.objects.filter(assignment=assignment).count() for m in (SpanLabel, QALabel, PairwisePreference))

    def expected_rows(self, payload: dict, labels: dict) -> list[tuple]:
        rows = [("span", s["span_id"], "covered" if s["covered"] else "not_covered") for s in labels["spans"]]
        rows += [("qa", q["qa_id"], "supported" if q["supported"] else "not_supported") for q in labels["qas"]]
        rows += [("pairwise", p["aspect"], p["score"]) for p in labels["pairwise"]]
        return sorted(rows, key=repr)

    def add_items_not_to_judge(self, unit) -> None:
        """An expert marked one QA invalid: it (and a span only it answers) leaves the crowd's unit."""
        qa = QA.objects.filter(response__in=unit.responses.all()).order_by("id").first()
        QA.objects.filter(pk=qa.pk).update(validity=QA.Validity.INVALID)

    def judged(self, unit) -> dict[str, set[int]]:
        qas = QA.objects.filter(response__in=unit.responses.all()).exclude(validity=QA.Validity.INVALID)
        spans = AnswerSpan.objects.filter(response__in=unit.responses.all())
        kept = {s.pk for s in spans if not s.qas.exists() or s.qas.filter(pk__in=qas).exists()}
        return {"qas": set(qas.values_list("id", flat=True)), "spans": kept,
                "predicates": set(qas.values_list("predicate_id", flat=True))}

    def frame_rows(self, assignment: Assignment) -> list[tuple]:
        project = assignment.unit.project
        labels = frames.labels_frame(project)
        mine = labels[labels["assignment_id"] == assignment.pk]
        rows = [(str(lv), int(i), str(lab)) for lv, i, lab in zip(mine["level"], mine["item_id"], mine["label"], strict=True)]
        prefs = frames.preferences_frame(project)
        prefs = prefs[prefs["assignment_id"] == assignment.pk]
        rows += [("pairwise", a, int(s)) for a, s in zip(prefs["aspect"], prefs["score"], strict=True)]
        return sorted(rows, key=repr)


class FactScoreHarness:
    """One response of two sentences, two model facts each: kept, edited (split), merged and added facts."""

    mode = "factscore"

    def unit(self):
        return make_unit("FActScore contract", protocol=["fact_labeling"], with_facts=True, n_responses=1, n_qas=2)

    def complete(self, payload: dict, marker: str) -> dict:
        response = payload["responses"][0]
        f = [x["id"] for x in response["facts"]]
        rid = response["id"]
        return {"facts": [
            {"fact_id": f[0], "label": "S"},
            {"text": marker, "sentence_index": 0, "response_id": rid, "edited_from": [f[1]], "label": "NS"},
            {"text": "Boris visited Lyon.", "sentence_index": 1, "response_id": rid, "edited_from": [f[2], f[3]],
             "label": "IR"},
            {"text": "An added fact.", "sentence_index": 1, "response_id": rid, "edited_from": [], "label": "S"},
        ]}

    def invalid(self, payload: dict, labels: dict) -> list[Case]:
        n = len(labels["facts"])
        return [
            ("facts not a list", _replaced(labels, "facts", {"fact_id": 1}), "labels.facts"),
            ("fact not an object", _replaced(labels, "facts", ["S", *labels["facts"][1:]]), "labels.facts[0]"),
            ("unknown label", _with(labels, "facts", 0, label="X"), "labels.facts[0].label"),
            ("label is a list", _with(labels, "facts", 0, label=["S"]), "labels.facts[0].label"),
            ("unknown fact", _with(labels, "facts", 0, fact_id=10**9), "labels.facts[0].fact_id"),
            ("fact id is a list", _with(labels, "facts", 0, fact_id=[1]), "labels.facts[0].fact_id"),
            ("fact twice", _replaced(labels, "facts", [*labels["facts"], labels["facts"][0]]), f"labels.facts[{n}].fact_id"),
            ("new fact without text", _with(labels, "facts", 1, text="  "), "labels.facts[1].text"),
            ("new fact of another response", _with(labels, "facts", 1, response_id=10**9), "labels.facts[1].response_id"),
            ("new fact outside the sentences", _with(labels, "facts", 1, sentence_index=7),
             "labels.facts[1].sentence_index"),
            ("edited from an unknown fact", _with(labels, "facts", 1, edited_from=[10**9]), "labels.facts[1].edited_from"),
            ("edited from a list", _with(labels, "facts", 1, edited_from=[[1]]), "labels.facts[1].edited_from"),
            ("empty fact list", _replaced(labels, "facts", []), "labels.facts"),
        ]

    def add_items_not_to_judge(self, unit) -> None:
        """Imported expert (human) facts sit beside the model's: the reference, never the crowd's to judge."""
        for response in unit.responses.all():
            AtomicFact.objects.create(response=response, sentence_index=0, text="An expert's own fact.",
                                      origin=Origin.HUMAN, kind="human", order=1000)

    def judged(self, unit) -> dict[str, set[int]]:
        facts = AtomicFact.objects.filter(response__in=unit.responses.all()).exclude(origin=Origin.HUMAN)
        return {"facts": set(facts.values_list("id", flat=True))}

    def written(self, assignment: Assignment) -> int:
        return FactLabel.objects.filter(assignment=assignment).count() + AtomicFact.objects.filter(
            created_by_assignment=assignment
        ).count()

    def expected_rows(self, payload: dict, labels: dict) -> list[tuple]:
        return sorted((("fact", f.get("fact_id", "new"), f["label"]) for f in labels["facts"]), key=repr)

    def frame_rows(self, assignment: Assignment) -> list[tuple]:
        labels = frames.labels_frame(assignment.unit.project)
        mine = labels[labels["assignment_id"] == assignment.pk]
        new = set(AtomicFact.objects.filter(created_by_assignment=assignment).values_list("id", flat=True))
        return sorted(
            ((str(lv), "new" if int(i) in new else int(i), str(lab))
             for lv, i, lab in zip(mine["level"], mine["item_id"], mine["label"], strict=True)),
            key=repr,
        )


class ValidationHarness:
    """The expert pre-step on a two-QA response: one QA valid, one invalid; the invalid one leaves the frames."""

    mode = "validation"

    def unit(self):
        crowd_unit = make_unit("Validation contract", n_responses=1, n_qas=2)
        batch = Batch.objects.create(project=crowd_unit.project, name="validation")
        return compose_validation_units(batch)[0]

    def complete(self, payload: dict, marker: str) -> dict:
        qas = [q["id"] for r in payload["responses"] for q in r["qas"]]
        return {"validation": [{"qa_id": q, "valid": k > 0} for k, q in enumerate(qas)]}

    def invalid(self, payload: dict, labels: dict) -> list[Case]:
        return _flag_cases(labels, "validation", "qa_id", "valid")

    def add_items_not_to_judge(self, unit) -> None:
        """An invalid QA is still the expert's to judge again: validation shows every QA of its responses."""
        qa = QA.objects.filter(response__in=unit.responses.all()).order_by("id").first()
        QA.objects.filter(pk=qa.pk).update(validity=QA.Validity.INVALID)

    def judged(self, unit) -> dict[str, set[int]]:
        qas = QA.objects.filter(response__in=unit.responses.all())
        spans = AnswerSpan.objects.filter(response__in=unit.responses.all())
        return {"qas": set(qas.values_list("id", flat=True)), "spans": set(spans.values_list("id", flat=True)),
                "predicates": set(qas.values_list("predicate_id", flat=True))}

    def written(self, assignment: Assignment) -> int:
        project = assignment.unit.project
        return QA.objects.filter(response__project=project).exclude(validity=QA.Validity.UNKNOWN).count()

    def expected_rows(self, payload: dict, labels: dict) -> list[tuple]:
        return sorted(("qa", v["qa_id"]) for v in labels["validation"] if v["valid"])

    def frame_rows(self, assignment: Assignment) -> list[tuple]:
        shown = set(Assignment.objects.get(pk=assignment.pk).shown["qas"])
        qas = frames.qas_frame(assignment.unit.project)
        return sorted(("qa", int(i)) for i in qas["item_id"] if int(i) in shown)


class RagasHarness:
    """A WikiEval row: a question, two contexts and three answers; faithfulness sets the grounded answer against
    the ungrounded one, answer relevance against the poor one, context relevance the two contexts."""

    mode = "ragas"

    def unit(self):
        project = Project.objects.create(name="Ragas contract", protocol=["ragas_pairwise"], annotations_per_item=3)
        batch = Batch.objects.create(project=project, name="b1")
        source = Source.objects.create(
            project=project, external_id="q1", question="Where did Anna travel in 2023?",
            passages=["Anna visited Paris in 2023.", "Anna visited Paris in 2023. Paris is the capital of France."],
            metadata={"secret": SECRET_META},
        )
        for system in ("poor_answer", "answer", "ungrounded_answer"):
            make_response(project, source, f"q1:{system}", n_qas=1, system=system, gold=False)
        return compose_units(batch)[0]

    def complete(self, payload: dict, marker: str) -> dict:
        (section,) = _sections(payload, Protocol.RAGAS_PAIRWISE.value)
        return {"pairwise": [{"aspect": c["aspect"], "score": 1 + k} for k, c in enumerate(section["comparisons"])]}

    def invalid(self, payload: dict, labels: dict) -> list[Case]:
        pairwise = labels["pairwise"]
        return [
            ("pairwise not a list", _replaced(labels, "pairwise", {"aspect": "faithfulness"}), "labels.pairwise"),
            ("an aspect this unit does not ask", _with(labels, "pairwise", 0, aspect="consistency"),
             "labels.pairwise[0].aspect"),
            ("aspect is a list", _with(labels, "pairwise", 0, aspect=["faithfulness"]), "labels.pairwise[0].aspect"),
            ("aspect twice", _replaced(labels, "pairwise", [pairwise[0], pairwise[0]]), "labels.pairwise[1].aspect"),
            ("score out of range", _with(labels, "pairwise", 2, score=0), "labels.pairwise[2].score"),
            ("score a boolean", _with(labels, "pairwise", 1, score=True), "labels.pairwise[1].score"),
            ("score is text", _with(labels, "pairwise", 1, score="3"), "labels.pairwise[1].score"),
            ("context relevance left out", _replaced(labels, "pairwise", pairwise[:2]), "labels.pairwise"),
        ]

    def add_items_not_to_judge(self, unit) -> None:
        """The answers were parsed into QAs and facts: a Ragas unit compares answers whole and shows none."""
        for response in unit.responses.all():
            AtomicFact.objects.create(response=response, sentence_index=0, text="Anna visited Paris.", order=0)

    def judged(self, unit) -> dict[str, set[int]]:
        return {}

    def written(self, assignment: Assignment) -> int:
        return PairwisePreference.objects.filter(assignment=assignment).count()

    def expected_rows(self, payload: dict, labels: dict) -> list[tuple]:
        (section,) = _sections(payload, Protocol.RAGAS_PAIRWISE.value)
        score = {p["aspect"]: p["score"] for p in labels["pairwise"]}
        return sorted((c["aspect"], c["compares"], c["a"], c["b"], score[c["aspect"]]) for c in section["comparisons"])

    def frame_rows(self, assignment: Assignment) -> list[tuple]:
        prefs = frames.preferences_frame(assignment.unit.project)
        prefs = prefs[prefs["assignment_id"] == assignment.pk]
        rows = []
        for r in prefs.itertuples():
            if pd.notna(r.context_a):
                rows.append((r.aspect, "contexts", int(r.context_a), int(r.context_b), int(r.score)))
            else:
                rows.append((r.aspect, "responses", int(r.response_a_id), int(r.response_b_id), int(r.score)))
        return sorted(rows)


class EntailmentHarness:
    """One response of two sentences, two model facts each: every fact supported / contradicted / not enough
    info, one with a rationale (the marker: another worker's rationale must never be shown)."""

    mode = "entailment"

    def unit(self):
        return make_unit("Entailment contract", protocol=["fact_entailment"], with_facts=True, n_responses=1,
                         n_qas=2, gold=False)

    def complete(self, payload: dict, marker: str) -> dict:
        facts = [f["id"] for r in payload["responses"] for f in r["facts"]]
        names = ("supported", "contradicted", "not_enough_info")
        out = [{"fact_id": f, "label": names[k % 3]} for k, f in enumerate(facts)]
        out[0]["rationale"] = marker
        return {"entailment": out}

    def invalid(self, payload: dict, labels: dict) -> list[Case]:
        n = len(labels["entailment"])
        return [
            ("not a list", _replaced(labels, "entailment", {"fact_id": 1}), "labels.entailment"),
            ("not an object", _replaced(labels, "entailment", ["supported", *labels["entailment"][1:]]),
             "labels.entailment[0]"),
            ("unknown fact", _with(labels, "entailment", 0, fact_id=10**9), "labels.entailment[0].fact_id"),
            ("fact id is a list", _with(labels, "entailment", 0, fact_id=[1]), "labels.entailment[0].fact_id"),
            ("fact twice", _replaced(labels, "entailment", [*labels["entailment"], labels["entailment"][0]]),
             f"labels.entailment[{n}].fact_id"),
            ("unknown label", _with(labels, "entailment", 1, label="S"), "labels.entailment[1].label"),
            ("label is a list", _with(labels, "entailment", 1, label=["supported"]), "labels.entailment[1].label"),
            ("rationale not text", _with(labels, "entailment", 0, rationale=5), "labels.entailment[0].rationale"),
            ("rationale with NUL", _with(labels, "entailment", 0, rationale="a\x00b"), "labels.entailment[0].rationale"),
            ("rationale too long", _with(labels, "entailment", 0, rationale="x" * 2001), "labels.entailment[0].rationale"),
            ("one left out", _replaced(labels, "entailment", labels["entailment"][:-1]), "labels.entailment"),
        ]

    def add_items_not_to_judge(self, unit) -> None:
        """Imported expert (human) facts sit beside the model's: the reference, never the crowd's to judge."""
        for response in unit.responses.all():
            AtomicFact.objects.create(response=response, sentence_index=0, text="An expert's own fact.",
                                      origin=Origin.HUMAN, kind="human", order=1000)

    def judged(self, unit) -> dict[str, set[int]]:
        facts = AtomicFact.objects.filter(response__in=unit.responses.all()).exclude(origin=Origin.HUMAN)
        return {"facts": set(facts.values_list("id", flat=True))}

    def written(self, assignment: Assignment) -> int:
        return EntailmentLabel.objects.filter(assignment=assignment).count()

    def expected_rows(self, payload: dict, labels: dict) -> list[tuple]:
        return sorted(("entailment", e["fact_id"], e["label"]) for e in labels["entailment"])

    def frame_rows(self, assignment: Assignment) -> list[tuple]:
        labels = frames.labels_frame(assignment.unit.project)
        mine = labels[labels["assignment_id"] == assignment.pk]
        return sorted((str(lv), int(i), str(lab))
                      for lv, i, lab in zip(mine["level"], mine["item_id"], mine["label"], strict=True))


HARNESSES = {h.mode: h for h in (QASemHarness(), FactScoreHarness(), ValidationHarness(), RagasHarness(),
                                 EntailmentHarness())}


@pytest.fixture(params=available_protocols())
def harness(request):
    mode = request.param
    assert mode in HARNESSES, f"protocol {mode!r} has no harness in the contract suite"
    return HARNESSES[mode]


@pytest.fixture
def client() -> APIClient:
    return APIClient()


def _assignment(unit, worker: str) -> tuple[Assignment, str]:
    w, _ = Worker.objects.get_or_create(provider="local", external_id=worker)
    a = Assignment.objects.create(unit=unit, worker=w)
    return a, assignment_token(a)


def _unit(client: APIClient, token: str) -> dict:
    r = client.get(f"/api/work/{token}/unit")
    assert r.status_code == 200, r.content
    return r.json()


def _submit(client: APIClient, token: str, labels: Any, ms: Any = 1200):
    return client.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": ms}, format="json")


def test_the_registry_serves_each_mode_with_its_protocol(harness) -> None:
    protocol = get_protocol(harness.mode)
    assert isinstance(protocol, AnnotationProtocol) and protocol.mode == harness.mode
    assert get_protocol(harness.mode) is protocol


def test_label_levels_use_the_analysis_label_names() -> None:
    levels = label_levels()
    assert [lv.name for lv in levels] == list(frames.LEVELS) == list(dict.fromkeys(lv.name for lv in levels))
    for level in levels:
        names = level.names or ()
        assert set(names) <= set(level.labels) == set(label_order()[level.name]), level.name
        assert len(set(level.labels)) == len(level.labels) and set(level.display) <= set(level.labels), level.name


def test_payload_has_a_plan_and_shows_nothing_secret_or_of_other_workers(client, harness) -> None:
    unit = harness.unit()
    _, other_token = _assignment(unit, "other")
    other_payload = _unit(client, other_token)
    assert _submit(client, other_token, harness.complete(other_payload, MARKER)).status_code == 200

    mine, token = _assignment(unit, "me")
    payload = _unit(client, token)
    response_ids = [r["id"] for r in payload["responses"]]
    plan = payload["plan"]
    assert plan and all(section["kind"] in get_protocol(harness.mode).plan_kinds for section in plan)
    covered = {section.get("response_id") for section in plan} | {
        rid for section in plan for rid in section.get("response_ids", [])
    }
    assert set(response_ids) <= covered and covered - {None} <= set(response_ids)
    for section in _sections(payload, Protocol.PAIRWISE.value):
        assert section["aspects"] and section["response_ids"] == response_ids
    raw = json.dumps(payload)
    for secret in (SECRET_SYSTEM, SECRET_META, GOLD_EXPLANATION, MARKER, "other"):
        assert secret not in raw, secret
    mine.refresh_from_db()
    assert mine.shown["responses"] == response_ids


def test_a_complete_submission_writes_labels_that_become_frame_rows(client, harness) -> None:
    unit = harness.unit()
    a, token = _assignment(unit, "w1")
    payload = _unit(client, token)
    labels = harness.complete(payload, "a note")
    r = _submit(client, token, labels)
    assert r.status_code == 200, r.json()
    assert r.json() == {"status": "submitted", "duplicate": False}
    a.refresh_from_db()
    assert a.status == Assignment.Status.SUBMITTED and a.time_on_task_ms == 1200
    assert harness.written(a) > 0
    expected = harness.expected_rows(payload, labels)
    assert expected and harness.frame_rows(a) == expected


def test_each_kind_of_invalid_input_is_refused_with_its_path_and_writes_nothing(client, harness) -> None:
    unit = harness.unit()
    a, token = _assignment(unit, "w1")
    payload = _unit(client, token)
    labels = harness.complete(payload, "a note")
    before = harness.written(a)
    cases: list[Case] = [
        *harness.invalid(payload, labels),
        ("labels not an object", ["not", "an", "object"], "labels"),
    ]
    for what, bad, path in cases:
        r = _submit(client, token, bad)
        assert r.status_code == 400, what
        errors = r.json()["errors"]
        assert all(set(e) == {"field", "message"} and e["message"] for e in errors), what
        assert path in [e["field"] for e in errors], (what, errors)
        assert harness.written(a) == before, what
    r = _submit(client, token, labels, ms=-1)
    assert r.status_code == 400 and r.json()["errors"][0]["field"] == "time_on_task_ms"
    a.refresh_from_db()
    assert a.status == Assignment.Status.ASSIGNED and a.submission is None
    assert _submit(client, token, labels).status_code == 200  # nothing half-written stood in the way


def test_a_repeated_submission_records_nothing_new(client, harness) -> None:
    unit = harness.unit()
    a, token = _assignment(unit, "w1")
    labels = harness.complete(_unit(client, token), "a note")
    assert _submit(client, token, labels).json() == {"status": "submitted", "duplicate": False}
    written = harness.written(a)
    rows = harness.frame_rows(a)
    again = _submit(client, token, labels)
    assert again.status_code == 200 and again.json() == {"status": "submitted", "duplicate": True}
    assert harness.written(a) == written and harness.frame_rows(a) == rows


ITEM_KINDS = ("predicates", "qas", "spans", "facts")


def _items(payload: dict) -> dict[str, set[int]]:
    """The ids of every item a payload carries, by kind."""
    out: dict[str, set[int]] = {}
    for response in payload["responses"]:
        for kind in ITEM_KINDS:
            for item in response.get(kind) or []:
                out.setdefault(kind, set()).add(item["id"])
    return out


def _embedded(page) -> dict:
    """The unit answer a page embeds for the element (json_script, docs/annotator-api.md)."""
    assert page.status_code == 200, page.content[:300]
    match = re.search(r'<script id="factcrowd-unit" type="application/json">(.*?)</script>', page.content.decode(), re.S)
    assert match, "the page embeds no unit"
    return json.loads(match.group(1))


def test_every_worker_endpoint_shows_exactly_the_items_the_protocol_judges(client, harness) -> None:
    """Items a protocol does not ask the worker to judge (an expert's own facts, QAs an expert refused) never
    reach a worker: not through the API, the work page, or a platform's preview."""
    unit = harness.unit()
    harness.add_items_not_to_judge(unit)
    expected = {k: v for k, v in harness.judged(unit).items() if v}
    _, token = _assignment(unit, "w1")
    batch = unit.batch or Batch.objects.create(project=unit.project, name="preview")
    Batch.objects.filter(pk=batch.pk).update(provider="mturk")
    unit.batch_id, unit.provider_ref = batch.pk, "HITCONTRACT"
    unit.save(update_fields=["batch", "provider_ref"])
    answers = {
        "GET /api/work/<token>/unit": _unit(client, token),
        "GET /work/<token>/": _embedded(client.get(f"/work/{token}/")),
        "platform preview": _embedded(client.get(
            f"/work/unit/{unit_ref(unit)}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=HITCONTRACT")),
    }
    for endpoint, payload in answers.items():
        assert _items(payload) == expected, endpoint
