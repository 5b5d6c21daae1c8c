"""Units a worker can finish: caps on spans / QAs / facts per unit, long responses split across units."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import QA, AnswerSpan, AtomicFact, Batch, Project, Source, Unit, UnitResponse
from annotation_tasks.protocols import payload as unit_payload
from annotation_tasks.services import frames
from annotation_tasks.services.units import DEFAULT_CAPS, CapsError, check_caps, compose_units
from tests.work.builders import make_response
from tests.work.conftest import new_assignment
from tests.work.helpers import qasem_labels

pytestmark = pytest.mark.django_db


def _project(protocol, caps=None, name="Caps"):
    project = Project.objects.create(name=name, protocol=protocol, annotations_per_item=3,
                                     **({"unit_caps": caps} if caps else {}))
    return project, Batch.objects.create(project=project, name="b1")


def _shown(unit):
    data, shown = unit_payload.build(unit, {})
    return data, shown


def test_a_long_response_becomes_units_whose_items_partition_it_and_each_fits_the_caps():
    project, batch = _project(["span_coverage", "qa_support"], caps={"spans": 4, "qas": 5, "facts": 30})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    response = make_response(project, source, "long", n_qas=11)  # 11 sentences, one span + one QA each
    units = compose_units(batch)
    assert len(units) == 3  # 11 spans under a cap of 4: 4 + 4 + 3
    seen_spans, seen_qas = [], []
    for unit in units:
        data, shown = _shown(unit)
        (r,) = data["responses"]
        assert len(r["spans"]) <= 4 and len(r["qas"]) <= 5
        assert sorted(shown.spans) == sorted(s["id"] for s in r["spans"])
        assert sorted(shown.qas) == sorted(q["id"] for q in r["qas"])
        # a span keeps its QAs in the same unit (step 2 follows step 1)
        assert {i for s in r["spans"] for i in s["qa_ids"]} == {q["id"] for q in r["qas"]}
        assert {p["id"] for p in r["predicates"]} == {q["predicate_id"] for q in r["qas"]}
        seen_spans += shown.spans
        seen_qas += shown.qas
    # a partition: every item once, none left out
    assert sorted(seen_spans) == sorted(AnswerSpan.objects.filter(response=response).values_list("id", flat=True))
    assert sorted(seen_qas) == sorted(QA.objects.filter(response=response).values_list("id", flat=True))
    parts = list(UnitResponse.objects.filter(response=response).order_by("unit_id").values_list("items", flat=True))
    assert [p["part"] for p in parts] == [0, 1, 2] and {p["parts"] for p in parts} == {3}


def test_slices_are_whole_sentences_in_reading_order():
    project, batch = _project(["span_coverage", "qa_support"], caps={"spans": 3, "qas": 3})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    response = make_response(project, source, "r", n_qas=7)
    compose_units(batch)
    starts = []
    for ur in UnitResponse.objects.filter(response=response).order_by("unit_id"):
        starts.append(sorted(AnswerSpan.objects.filter(pk__in=ur.items["spans"]).values_list("start", flat=True)))
    assert [s for part in starts for s in part] == sorted(s for part in starts for s in part)
    assert [len(p) for p in starts] == [3, 3, 1]


def test_a_source_that_fits_stays_one_unit_and_responses_pack_together():
    project, batch = _project(["span_coverage", "qa_support"])
    source = Source.objects.create(project=project, external_id="s", text="ref")
    for j in range(3):
        make_response(project, source, f"r{j}", n_qas=4)  # 3 x 4 spans = 12 = the default cap
    (unit,) = compose_units(batch)
    assert UnitResponse.objects.filter(unit=unit, items__isnull=True).count() == 3
    make_response(project, Source.objects.create(project=project, external_id="t", text="ref"), "big", n_qas=13)
    made = compose_units(batch)
    assert len(made) == 2  # 13 spans over the cap of 12


def test_labels_from_the_parts_join_in_the_label_frame():
    project, batch = _project(["span_coverage", "qa_support"], caps={"spans": 2, "qas": 2})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    response = make_response(project, source, "r", n_qas=5, gold=False)
    units = compose_units(batch)
    client = APIClient()
    for unit in units:
        for w in ("w1", "w2"):
            _, token = new_assignment(unit, w)
            data = client.get(f"/api/work/{token}/unit").json()
            r = client.post(f"/api/work/{token}/submit", {"labels": qasem_labels(data), "time_on_task_ms": 900},
                            format="json")
            assert r.status_code == 200, r.content
    labels = frames.labels_frame(project)
    qa_ids = set(QA.objects.filter(response=response).values_list("id", flat=True))
    qa_rows = labels[labels["level"] == "qa"]
    assert set(qa_rows["item_id"]) == qa_ids  # every QA labeled, each in its own part
    assert qa_rows.groupby("item_id")["worker_id"].nunique().eq(2).all()
    assert set(labels[labels["level"] == "span"]["item_id"]) == set(response.answer_spans.values_list("id", flat=True))


def test_a_worker_cannot_label_items_of_another_part():
    project, batch = _project(["span_coverage", "qa_support"], caps={"spans": 2, "qas": 2})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    make_response(project, source, "r", n_qas=4, gold=False)
    first, second = compose_units(batch)
    client = APIClient()
    _, token = new_assignment(first, "w1")
    data = client.get(f"/api/work/{token}/unit").json()
    labels = qasem_labels(data)
    other = UnitResponse.objects.get(unit=second).items["qas"][0]
    labels["qas"].append({"qa_id": other, "supported": True, "derived_from_span": False, "note": ""})
    r = client.post(f"/api/work/{token}/submit", {"labels": labels, "time_on_task_ms": 900}, format="json")
    assert r.status_code == 400 and "not a QA of this unit" in r.content.decode()


def test_a_compared_pair_over_the_caps_is_split_side_by_side_and_compared_once():
    project, batch = _project(["span_coverage", "qa_support", "pairwise"], caps={"spans": 6, "qas": 6})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    a = make_response(project, source, "a", n_qas=6)
    b = make_response(project, source, "b", n_qas=2)
    units = compose_units(batch)
    assert len(units) == 2  # a under half the caps (3): two parts; b whole in the first
    first, second = (_shown(u)[0] for u in units)
    assert [r["id"] for r in first["responses"]] == [a.pk, b.pk]
    assert any(s["kind"] == "pairwise" for s in first["plan"])
    assert [r["id"] for r in second["responses"]] == [a.pk]
    assert not any(s["kind"] == "pairwise" for s in second["plan"])
    assert sum(len(d["responses"][0]["spans"]) for d in (first, second)) == a.answer_spans.count()


def test_facts_are_capped_by_sentence_for_factscore_units():
    project, batch = _project(["fact_labeling"], caps={"facts": 5})
    source = Source.objects.create(project=project, external_id="s", text="ref")
    response = make_response(project, source, "r", n_qas=6, with_facts=True)  # 2 facts per sentence
    units = compose_units(batch)
    shown_facts = []
    for unit in units:
        data, shown = _shown(unit)
        facts = data["responses"][0]["facts"]
        assert 0 < len(facts) <= 5
        sentences = [f["sentence_index"] for f in facts]
        assert sentences == sorted(sentences)
        shown_facts += shown.facts
    model_facts = AtomicFact.objects.filter(response=response).values_list("id", flat=True)
    assert sorted(shown_facts) == sorted(model_facts) and len(units) == 3  # 2 sentences (4 facts) per unit


def test_caps_are_checked_with_the_field_named():
    assert check_caps(None) == DEFAULT_CAPS and check_caps({"qas": 7})["qas"] == 7
    for bad, field in (({"qas": 0}, "unit_caps.qas"), ({"words": 3}, "unit_caps.words"), ([], "unit_caps"),
                       ({"spans": True}, "unit_caps.spans")):
        with pytest.raises(CapsError) as err:
            check_caps(bad)
        assert err.value.field == field


def test_the_project_endpoint_sets_caps_and_refuses_bad_ones(django_user_model):
    from annotation_tasks.models import ProjectMembership

    project, _ = _project(["span_coverage", "qa_support"])
    user = django_user_model.objects.create_user("res")
    ProjectMembership.objects.create(project=project, user=user, role=ProjectMembership.Role.RESEARCHER)
    client = APIClient()
    client.force_authenticate(user)
    r = client.patch(f"/api/projects/{project.pk}/", {"unit_caps": {"qas": 8}}, format="json")
    assert r.status_code == 200 and r.json()["unit_caps"] == {**DEFAULT_CAPS, "qas": 8}
    r = client.patch(f"/api/projects/{project.pk}/", {"unit_caps": {"qas": -1}}, format="json")
    assert r.status_code == 400 and "unit_caps.qas" in r.json()["unit_caps"][0]
    assert Project.objects.get(pk=project.pk).unit_caps["qas"] == 8
    assert Unit.objects.count() == 0
