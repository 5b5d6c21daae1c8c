"""Fact validation (issue 23 item 11): an expert keeps, fixes, splits or drops each model fact before workers see
it; the publish gate refuses units holding undecided facts (same override as QAs); workers see the fix, never a
dropped fact, and the original stays for provenance."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation_tasks.models import AtomicFact, Batch, FactLabel, Project, ProjectMembership, Source
from annotation_tasks.protocols import mode_for_steps
from annotation_tasks.protocols.manifest import protocols_manifest
from annotation_tasks.services.batches import publish_blockers
from annotation_tasks.services.frames import labels_frame
from annotation_tasks.services.units import compose_units
from tests.work.builders import make_response
from tests.work.conftest import new_assignment

pytestmark = pytest.mark.django_db
PROTOCOL = ["fact_validation", "fact_labeling"]


def make_fact_project(researcher, protocol=PROTOCOL, n_sentences=3, unit_caps=None, name="Facts") -> tuple[Project, Batch]:
    """One source, one response of n_sentences sentences with two model facts each, composed into a local batch."""
    project = Project.objects.create(name=name, protocol=protocol, annotations_per_item=1,
                                     **({"unit_caps": unit_caps} if unit_caps else {}))
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    source = Source.objects.create(project=project, external_id="s0", text="ref")
    make_response(project, source, "r0", n_qas=n_sentences, with_facts=True, gold=False)
    batch = Batch.objects.create(project=project, name="b1", provider="local")
    compose_units(batch)
    return project, batch


def _gate(batch):
    return [b for b in publish_blockers(batch) if b.code == "undecided_facts"]


def _decide(client, project, fact_id, **body):
    return client.post(f"/api/projects/{project.pk}/fact-validation/{fact_id}/", body, format="json")


def _shown_facts(unit) -> list[str]:
    """The fact texts a new worker's payload shows for the unit, in order."""
    _, token = new_assignment(unit, f"w{unit.assignments.count()}")
    payload = APIClient().get(f"/api/work/{token}/unit").json()
    return [f["text"] for r in payload["responses"] for f in r["facts"]]


def test_the_step_is_declared_by_the_validation_protocol_and_composes_fact_units(researcher):
    manifest = protocols_manifest()
    (validation,) = [p for p in manifest["protocols"] if p["name"] == "validation"]
    assert "fact_validation" in [s["value"] for s in validation["steps"]]
    assert validation["default_steps"] == ["qa_validation"]  # choosing QA validation does not add it
    assert {"value": "fact_validation", "protocol": "validation"}.items() <= next(
        s for s in manifest["steps"] if s["value"] == "fact_validation").items()
    assert mode_for_steps(PROTOCOL) == "factscore"


def test_undecided_facts_block_publishing_until_each_is_decided(researcher, client,
                                                                django_capture_on_commit_callbacks):
    project, batch = make_fact_project(researcher)
    facts = list(AtomicFact.objects.filter(response__project=project).order_by("id"))
    (blocker,) = _gate(batch)
    assert blocker.count == len(facts) and blocker.link == f"/#/p/{project.pk}/validate-facts/batch/{batch.pk}"
    assert "override_validation_reason" not in blocker.message
    r = client.post(f"/api/batches/{batch.pk}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert r.status_code == 400 and "not validated" in r.json()["validation"]
    listed = client.get(f"/api/projects/{project.pk}/fact-validation/",
                        {"batch": batch.pk, "validation": "unknown"}).json()
    assert listed["count"] == len(facts) and listed["counts"]["unknown"] == len(facts)
    assert set(listed["responses"]) == {str(facts[0].response_id)}
    for fact in facts[:-1]:
        assert _decide(client, project, fact.pk, decision="keep").status_code == 200
    assert _gate(batch)[0].count == 1
    r = _decide(client, project, facts[-1].pk, decision="drop")
    assert r.status_code == 200 and r.json()["counts"] == {"unknown": 0, "kept": len(facts) - 1, "fixed": 0,
                                                          "split": 0, "dropped": 1}
    assert _gate(batch) == []
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(f"/api/batches/{batch.pk}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert r.status_code == 202, r.content


def test_the_qa_override_opens_the_fact_gate_too(researcher):
    project, batch = make_fact_project(researcher)
    call_command("publish", "--project", project.name, "--batch", batch.name, "--reward", "0.10", "--yes",
                 "--provider", "local", "--override-validation-reason", "pilot: the splitter's facts raw")
    batch.refresh_from_db()
    assert batch.status == Batch.Status.PUBLISHED and _gate(batch) == []
    assert batch.settings["validation_override"]["undecided_facts"] == AtomicFact.objects.filter(
        response__project=project).count()


def test_projects_without_the_step_have_no_fact_gate(researcher):
    _, batch = make_fact_project(researcher, protocol=["fact_labeling"])
    assert _gate(batch) == []


def test_workers_see_the_fix_and_the_split_never_the_dropped_fact(researcher, client):
    project, batch = make_fact_project(researcher)
    unit = batch.units.get()
    f = list(AtomicFact.objects.filter(response__project=project).order_by("sentence_index", "order"))
    originals = [x.text for x in f]
    assert _shown_facts(unit) == originals
    r = _decide(client, project, f[0].pk, decision="fix", text="  Anna   visited Paris. ")
    assert r.status_code == 200 and r.json()["fact"]["written"][0]["text"] == "Anna visited Paris."
    assert _decide(client, project, f[1].pk, decision="split", texts=["Paris is a city.", "Paris is big."]).status_code == 200
    assert _decide(client, project, f[2].pk, decision="drop").status_code == 200
    for x in f[3:]:
        _decide(client, project, x.pk, decision="keep")
    shown = _shown_facts(unit)
    assert shown == ["Anna visited Paris.", "Paris is a city.", "Paris is big.", *originals[3:]]
    # provenance: the originals keep their text and decision; the written facts name them
    kept = {x.pk: x for x in AtomicFact.objects.filter(pk__in=[x.pk for x in f[:3]])}
    assert [kept[x.pk].text for x in f[:3]] == originals[:3]
    assert [kept[x.pk].validation for x in f[:3]] == ["fixed", "split", "dropped"]
    assert kept[f[0].pk].validated_by == researcher
    written = AtomicFact.objects.filter(validation="written").order_by("id")
    assert [list(w.edited_from.values_list("pk", flat=True)) for w in written] == [[f[0].pk], [f[1].pk], [f[1].pk]]


def test_a_decision_after_composition_reaches_a_sliced_unit(researcher, client):
    project, batch = make_fact_project(researcher, n_sentences=3, unit_caps={"facts": 2})
    units = list(batch.units.order_by("id"))
    assert len(units) == 3  # one sentence (two facts) per slice
    first = AtomicFact.objects.filter(response__project=project, sentence_index=1).order_by("order").first()
    assert _decide(client, project, first.pk, decision="fix", text="Boris visited Lyon.").status_code == 200
    assert _shown_facts(units[1])[0] == "Boris visited Lyon."
    # undo: back to undecided, the written fact goes and the original is shown again
    assert _decide(client, project, first.pk, decision="undecided").status_code == 200
    assert not AtomicFact.objects.filter(validation="written").exists()
    assert _shown_facts(units[1])[0] == first.text


def test_labels_of_a_dropped_fact_leave_the_analysis(researcher, client):
    project, batch = make_fact_project(researcher, n_sentences=1)
    unit = batch.units.get()
    a, _ = new_assignment(unit, "w1")
    a.status = a.Status.SUBMITTED
    a.save(update_fields=["status"])
    f0, f1 = AtomicFact.objects.filter(response__project=project).order_by("order")
    FactLabel.objects.bulk_create([FactLabel(assignment=a, fact=f0, label="S"), FactLabel(assignment=a, fact=f1, label="NS")])
    assert set(labels_frame(project, ["fact"])["item_id"]) == {f0.pk, f1.pk}
    assert _decide(client, project, f1.pk, decision="drop").status_code == 200
    assert set(labels_frame(project, ["fact"])["item_id"]) == {f0.pk}
    # a fact workers labelled cannot be rewritten: their labels judged its text
    r = _decide(client, project, f0.pk, decision="fix", text="Something else.")
    assert r.status_code == 400 and "labelled" in r.json()["fact"]


@pytest.mark.parametrize(("body", "field"), [
    ({"decision": "maybe"}, "decision"),
    ({}, "decision"),
    ({"decision": "fix"}, "text"),
    ({"decision": "fix", "text": "   "}, "text"),
    ({"decision": "fix", "text": ["a"]}, "text"),
    ({"decision": "fix", "text": "bad\x00text"}, "text"),
    ({"decision": "split", "texts": ["only one"]}, "texts"),
    ({"decision": "split", "texts": "a, b"}, "texts"),
    ({"decision": "split", "texts": ["one", 2]}, "texts[1]"),
    ({"decision": "split", "texts": ["one", ""]}, "texts[1]"),
])
def test_bad_decisions_are_refused_at_their_field(researcher, client, body, field):
    project, _ = make_fact_project(researcher, n_sentences=1)
    fact = AtomicFact.objects.filter(response__project=project).first()
    r = _decide(client, project, fact.pk, **body)
    assert r.status_code == 400 and field in r.json(), r.content
    fact.refresh_from_db()
    assert fact.validation == "unknown" and not AtomicFact.objects.filter(validation="written").exists()


def test_only_the_projects_model_facts_are_decided(researcher, client, django_user_model):
    project, _ = make_fact_project(researcher, n_sentences=1)
    other, _ = make_fact_project(django_user_model.objects.create_user("other", password="pw"), n_sentences=1,
                                 name="Other")
    theirs = AtomicFact.objects.filter(response__project=other).first()
    assert _decide(client, project, theirs.pk, decision="keep").status_code == 404
    assert _decide(client, other, theirs.pk, decision="keep").status_code == 404
    mine = AtomicFact.objects.filter(response__project=project).first()
    human = AtomicFact.objects.create(response=mine.response, text="An expert's fact.", kind="human", origin="imported")
    assert _decide(client, project, human.pk, decision="keep").status_code == 404
    _decide(client, project, mine.pk, decision="fix", text="Fixed.")
    written = AtomicFact.objects.get(validation="written")
    assert _decide(client, project, written.pk, decision="drop").status_code == 404
    bad = client.get(f"/api/projects/{project.pk}/fact-validation/", {"validation": "written"})
    assert bad.status_code == 400 and "validation" in bad.json()
    assert client.get(f"/api/projects/{project.pk}/fact-validation/", {"page": "x"}).status_code == 400


def test_the_factscore_export_keeps_the_splitters_facts_and_labels_the_fix(researcher, client):
    import json

    from annotation_tasks.exporters.factscore import export_lines

    project, batch = make_fact_project(researcher, n_sentences=1)
    f0, f1 = AtomicFact.objects.filter(response__project=project).order_by("order")
    _decide(client, project, f0.pk, decision="fix", text="Anna visited Paris.")
    _decide(client, project, f1.pk, decision="drop")
    written = AtomicFact.objects.get(validation="written")
    a, _ = new_assignment(batch.units.get(), "w1")
    a.status = a.Status.SUBMITTED
    a.save(update_fields=["status"])
    FactLabel.objects.create(assignment=a, fact=written, label="S")
    (line,) = [json.loads(x) for x in export_lines(project)]
    sentence = line["annotations"][0]
    assert [f["text"] for f in sentence["model-atomic-facts"]] == [f0.text, f1.text]
    assert [(f["text"], f["label"]) for f in sentence["human-atomic-facts"]] == [("Anna visited Paris.", "S")]


def test_parsing_again_keeps_the_experts_decisions(researcher, client, django_capture_on_commit_callbacks):
    from annotation_tasks.services import parsing
    from tests.parser.test_parsing_service import _make_project

    project = _make_project()
    project.protocol = PROTOCOL
    project.save()
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    with django_capture_on_commit_callbacks(execute=True):
        parsing.start_parse_job(project)
    facts = list(AtomicFact.objects.filter(response__project=project).order_by("id"))
    assert len(facts) >= 2
    assert _decide(client, project, facts[0].pk, decision="drop").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        parsing.start_parse_job(project)  # every response again
    assert AtomicFact.objects.get(pk=facts[0].pk).validation == "dropped"  # not replaced by a new undecided fact
