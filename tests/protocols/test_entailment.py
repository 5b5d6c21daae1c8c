"""The worked example end to end on the server: a fact-entailment project made through the API, composed in its
mode, labelled by three workers through the submit endpoint, reviewed, in the report, adjudicated by the level's
item type, and exported (labels-jsonl) - with nothing but the protocol's package, label model, mode and harness."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from annotation_tasks.models import AdjudicatedLabel, Batch, Project, ProjectMembership, Source, Unit
from annotation_tasks.services import adjudication, exports, review
from annotation_tasks.services.reports import build_report
from annotation_tasks.services.units import compose_units
from tests.protocols.test_protocol_contract import _assignment, _submit, _unit
from tests.work.builders import make_response

pytestmark = pytest.mark.django_db


@pytest.fixture
def study():
    user = User.objects.create_user("res", password="pw", is_superuser=True)
    client = APIClient()
    client.force_authenticate(user)
    made = client.post("/api/projects/", {"name": "Entailment", "protocol": ["fact_entailment"],
                                          "annotations_per_item": 3}, format="json")
    assert made.status_code == 201, made.json()
    project = Project.objects.get(pk=made.json()["id"])
    ProjectMembership.objects.get_or_create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    source = Source.objects.create(project=project, external_id="s0", text="Anna visited Paris . Boris visited Lyon .")
    make_response(project, source, "r0", 1, system="sys", with_facts=True, gold=False)
    (unit,) = compose_units(Batch.objects.create(project=project, name="b1"))
    return project, unit, user


def test_an_entailment_project_runs_from_compose_to_export(study) -> None:
    project, unit, user = study
    assert unit.mode == Unit.Mode.ENTAILMENT
    client = APIClient()
    votes = {"w1": ["contradicted", "supported"], "w2": ["supported", "supported"], "w3": ["not_enough_info", "supported"]}
    assignments = {}
    for worker, labels in votes.items():
        assignment, token = _assignment(unit, worker)
        payload = _unit(client, token)
        assert [s["kind"] for s in payload["plan"]] == ["fact_entailment"]
        facts = [f["id"] for f in payload["responses"][0]["facts"]]
        assert len(facts) >= 2
        body = [{"fact_id": f, "label": lab, "rationale": f"{worker} read the source"}
                for f, lab in zip(facts, labels + ["supported"] * len(facts), strict=False)]
        r = _submit(client, token, {"entailment": body})
        assert r.status_code == 200, r.json()
        assignments[worker] = assignment
    first, second = facts[:2]

    rows = [r for r in review.assignment_review(assignments["w1"])["items"] if r["level"] == "entailment"]
    assert {(r["item_id"], r["answer"], r["note"]) for r in rows} >= {
        (first, "contradicted", "w1 read the source"), (second, "supported", "w1 read the source")}
    assert {r["item_id"] for r in rows} == set(facts)

    report = build_report(project)
    assert "entailment" in {row["level"] for row in report["agreement"]}

    queue = adjudication.queue(project, {"level": "entailment"})
    assert [r["item_id"] for r in queue["results"]] == [first]  # three different labels: the only disputed fact
    assert queue["results"][0]["labels"] == ["contradicted", "not_enough_info", "supported"]
    assert queue["results"][0]["context"]["text"]
    decided = adjudication.decide(project, {"level": "entailment", "item_id": first, "label": "supported",
                                            "reason": "the source says so"}, user)
    assert (decided.level, decided.fact_id, decided.value) == ("entailment", first, "supported")
    # the same fact at another level over facts is another target, not a clash
    AdjudicatedLabel.objects.create(project=project, level="fact", fact_id=first, value="S", reason="r",
                                    decided_at=decided.decided_at)
    with pytest.raises(adjudication.AdjudicationError) as refused:
        adjudication.decide(project, {"level": "entailment", "item_id": first, "label": "S", "reason": "x"}, user)
    assert refused.value.errors[0]["field"] == "label"

    lines = [json.loads(line) for line in exports.FORMATS["labels-jsonl"](project)]
    by_fact = {r["item_id"]: r for r in lines if r["level"] == "entailment"}
    assert sorted(by_fact[first]["votes"]) == ["contradicted", "not_enough_info", "supported"]
    assert by_fact[first]["majority"] == "contradicted"  # the tie rule: error first
    assert by_fact[first]["adjudication"]["label"] == "supported"
    assert by_fact[second]["majority"] == "supported" and by_fact[second]["adjudication"] is None
