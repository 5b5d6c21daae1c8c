"""A WikiEval project end to end: import, compose ragas units, judge through the element's API, the report's
pairwise summary per Ragas aspect, and evaluate_scorer's share of pairs where a metric agrees with the humans."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation_tasks.models import AtomicFact, Batch, PairwisePreference, Project, Unit, Worker
from annotation_tasks.models.work import Assignment
from annotation_tasks.services import frames, scoring
from annotation_tasks.services.imports import import_wikieval
from annotation_tasks.services.reports import build_report
from annotation_tasks.services.tokens import assignment_token
from annotation_tasks.services.units import compose_units
from tests.ragas.test_wikieval_import import wikieval_row, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(tmp_path: Path) -> Project:
    rows = [wikieval_row(0), wikieval_row(1), wikieval_row(2, context_v2=KeyError, ungrounded_answer=KeyError)]
    import_wikieval(write_jsonl(tmp_path / "wikieval.jsonl", rows), "wikieval")
    return Project.objects.get(name="wikieval")


def _payload(client: APIClient, unit: Unit, worker: str) -> tuple[Assignment, str, dict]:
    w, _ = Worker.objects.get_or_create(provider="local", external_id=worker)
    a = Assignment.objects.create(unit=unit, worker=w)
    token = assignment_token(a)
    r = client.get(f"/api/work/{token}/unit")
    assert r.status_code == 200, r.content
    return a, token, r.json()


def test_units_compare_ragas_pairs_and_never_name_the_answers(project):
    units = compose_units(Batch.objects.create(project=project, name="b"))
    assert [u.mode for u in units] == [Unit.Mode.RAGAS] * 3
    client = APIClient()
    for unit in units:
        assignment, _, payload = _payload(client, unit, f"w{unit.pk}")
        assignment.refresh_from_db()
        sides = assignment.shown["sides"]  # which pairs this assignment sees swapped (recorded, item 10)
        systems = {r.pk: r.system for r in unit.responses.all()}
        assert [r["id"] for r in payload["responses"]] == sorted(systems)  # creation (shuffled) order
        (section,) = payload["plan"]
        assert section["kind"] == "ragas_pairwise" and section["response_ids"] == sorted(systems)
        pairs = {c["aspect"]: c for c in section["comparisons"]}
        named = {aspect: {systems.get(c["a"]), systems.get(c["b"])} for aspect, c in pairs.items()
                 if c["compares"] == "responses"}
        if len(systems) == 3:
            assert named == {"faithfulness": {"answer", "ungrounded_answer"},
                             "answer_relevance": {"answer", "poor_answer"}}
            first, second = (1, 0) if sides["context_relevance"] else (0, 1)
            assert pairs["context_relevance"] == {"aspect": "context_relevance", "compares": "contexts",
                                                  "a": first, "b": second}
        else:  # two answers, one context: both answer aspects compare the two, no context pair
            assert named == {"faithfulness": {"answer", "poor_answer"}, "answer_relevance": {"answer", "poor_answer"}}
            assert "context_relevance" not in pairs
        assert set(sides) == set(pairs)
        for c in pairs.values():  # a pair keeps the display order unless this assignment sees it swapped
            if c["compares"] == "responses":
                in_order = section["response_ids"].index(c["a"]) < section["response_ids"].index(c["b"])
                assert in_order != sides[c["aspect"]]
        raw = json.dumps(payload)
        assert "ungrounded_answer" not in raw and "poor_answer" not in raw and "wikipedia.org" not in raw
    assert compose_units(Batch.objects.get(project=project, name="b")) == []  # idempotent


def _prefer(section: dict, systems: dict[int, str], better: str) -> list[dict]:
    """Scores of a careful worker: the grounded answer (or the first context) much better on every aspect."""
    out = []
    for c in section["comparisons"]:
        a_wins = systems.get(c["a"]) == better if c["compares"] == "responses" else c["a"] == 0
        out.append({"aspect": c["aspect"], "score": 1 if a_wins else 5})
    return out


def test_labels_reach_the_report_per_aspect_and_the_metric_meta_evaluation(project):
    units = compose_units(Batch.objects.create(project=project, name="b"))
    client = APIClient()
    for unit in units:
        systems = {r.pk: r.system for r in unit.responses.all()}
        for k in range(3):
            a, token, payload = _payload(client, unit, f"worker{k}")
            labels = {"pairwise": _prefer(payload["plan"][0], systems, "answer")}
            if k == 2:  # one dissenter on faithfulness
                labels["pairwise"][0]["score"] = 6 - labels["pairwise"][0]["score"]
            r = client.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": 900}, format="json")
            assert r.status_code == 200, r.json()
    assert PairwisePreference.objects.filter(aspect="context_relevance").count() == 2 * 3
    assert not PairwisePreference.objects.filter(aspect="context_relevance", response_a__isnull=False).exists()

    summary = {(r["aspect"], r["system_first"], r["system_second"]): r for r in build_report(project)["pairwise"]}
    context = summary[("context_relevance", "context_v1", "context_v2")]
    assert context["n_judgments"] == 6 and context["first_wins_pct"] == 100.0
    faith = summary[("faithfulness", "answer", "ungrounded_answer")]
    assert faith["n_judgments"] == 6 and faith["first_wins_pct"] == pytest.approx(100 * 4 / 6)
    assert summary[("answer_relevance", "answer", "poor_answer")]["first_wins_pct"] == 100.0

    # a metric over the answers' facts: the grounded answer's facts supported, the others' not, except one row
    # where the metric prefers the ungrounded answer
    scores = []
    flipped = units[0]
    for unit in units:
        for response in unit.responses.all():
            fact = AtomicFact.objects.create(response=response, sentence_index=0, text=response.text)
            good = response.system == "answer"
            if unit == flipped and response.system in ("answer", "ungrounded_answer"):
                good = not good
            scores.append((fact.pk, 0.9 if good else 0.1, {}))
    scoring.write_scores("fact", "imported", "v1", scores)
    result = scoring.evaluate_scorer(project, "imported")
    assert result["level"] is None  # no human fact labels: only Ragas' pairs are evaluated

    prefs = frames.preferences_frame(project)
    share = {r.pk: (0.9 if (r.system == "answer") != (u == flipped and r.system != "poor_answer") else 0.1) >= 0.5
             for u in units for r in u.responses.all()}
    for aspect in ("faithfulness", "answer_relevance"):
        rows = prefs[prefs["aspect"] == aspect]
        pairs = rows.groupby(["unit_id", "response_a_id", "response_b_id"])["score"].mean().reset_index()
        decided = pairs[pairs["score"] != 3]
        agree = [(share[int(a)] - share[int(b)] > 0) == (s < 3) and share[int(a)] != share[int(b)]
                 for a, b, s in zip(decided["response_a_id"], decided["response_b_id"], decided["score"], strict=True)]
        got = result["ragas"][aspect]
        assert (got["pairs"], got["decided_pairs"]) == (len(pairs), len(decided))
        assert got["agreement"] == pytest.approx(sum(agree) / len(agree))
        assert got["compares"] == "answers"
    assert 0 < result["ragas"]["faithfulness"]["agreement"] < 1  # the flipped row counts against the metric
    assert result["ragas"]["context_relevance"]["agreement"] is None
    assert result["ragas"]["context_relevance"]["compares"] == "contexts"
    assert result["ragas"]["faithfulness"]["ragas_wikieval"] == 0.95


def test_evaluate_scorer_prints_the_ragas_agreement(project, capsys):
    units = compose_units(Batch.objects.create(project=project, name="b"))
    client = APIClient()
    unit = units[0]
    systems = {r.pk: r.system for r in unit.responses.all()}
    _, token, payload = _payload(client, unit, "w")
    labels = {"pairwise": _prefer(payload["plan"][0], systems, "answer")}
    assert client.post(f"/api/work/{token}/submit", {"labels": labels}, format="json").status_code == 200
    scoring.write_scores("fact", "imported", "v1", [
        (AtomicFact.objects.create(response=r, sentence_index=0, text=r.text).pk, 0.8 if r.system == "answer" else 0.2,
         {}) for r in unit.responses.all()
    ])
    call_command("evaluate_scorer", "--project", "wikieval", "--scorer", "imported")
    out = capsys.readouterr().out
    assert "ragas faithfulness: 1 of 1 answers pairs decided, metric agrees 1.00 (Ragas on WikiEval 0.95)" in out
    assert "ragas context_relevance: 0 of 0 contexts pairs decided, metric agrees -" in out
    call_command("evaluate_scorer", "--project", "wikieval", "--scorer", "imported", "--json")
    assert json.loads(capsys.readouterr().out)["ragas"]["answer_relevance"]["agreement"] == 1.0


def test_a_new_batch_of_a_wikieval_project_holds_ragas_units_with_their_default_assignments(project):
    from annotation_tasks.services.publishing import new_batch

    batch = new_batch(project, provider_name="local", units=2)
    units = list(batch.units.all())
    assert len(units) == 2 and {u.mode for u in units} == {Unit.Mode.RAGAS}
    assert {u.assignments_wanted for u in units} == {project.annotations_per_item}
    assert all(u.unit_responses.count() == u.source.responses.count() for u in units)  # one unit per question
