"""services/adjudication.py: the queue ordered by disagreement per protocol, decisions with provenance and
history, refusals naming the field, the exports' gold, and the report's majority-vs-gold agreement."""
from __future__ import annotations

import json
from collections import Counter

import pandas as pd
import pytest
from django.db import IntegrityError, transaction

from annotation_tasks.exporters import factscore as factscore_export
from annotation_tasks.exporters import qa_jsonl
from annotation_tasks.models import QA, AdjudicatedLabel, AtomicFact, GoldLabel, PairwisePreference, QALabel
from annotation_tasks.protocols.review import adjudication_levels
from annotation_tasks.services import adjudication
from annotation_tasks.services.reports import build_report
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _decide(project, user, **body):
    return adjudication.decide(project, {"reason": "checked against the source", **body}, user)


def test_the_queue_puts_the_most_disputed_first_and_leaves_unanimous_items_out(qasem_study) -> None:
    q = adjudication.queue(qasem_study.project)
    rows = q["results"]
    assert [r["disagreement"] for r in rows] == sorted((r["disagreement"] for r in rows), reverse=True)
    assert all(r["disagreement"] > 0 for r in rows)
    # exactly the items w3 disputed: the first QA of response A and the pairwise aspect
    first_qa = qasem_study.assignments["w3"].shown["qas"][0]
    assert {(r["level"], r["item_id"], r["aspect"]) for r in rows} == {
        ("qa", first_qa, None), ("pairwise", qasem_study.unit.pk, "consistency")}
    json.dumps(q, allow_nan=False)  # JSON-ready: no NaN for a missing gold or interval
    assert [r["gold"] for r in rows if r["level"] == "pairwise"] == [None]
    qa_row = next(r for r in rows if r["level"] == "qa")
    assert Counter(v["label"] for v in qa_row["votes"]) == Counter(qa_row["counts"])
    assert sorted(v["worker"]["name"] for v in qa_row["votes"]) == ["w1", "w2", "w3"]
    assert qa_row["labels"] == ["not_supported", "supported"] and qa_row["majority"] == "supported"
    assert qa_row["context"]["question"] and qa_row["context"]["source_text"]
    everything = adjudication.queue(qasem_study.project, {"include_agreed": "true"})
    labelled = (QALabel.objects.filter(qa__response__project=qasem_study.project).values("qa").distinct().count())
    assert everything["count"] > q["count"] and sum(r["level"] == "qa" for r in everything["results"]) == labelled


def test_gold_disagreement_ranks_items_with_gold(qasem_study) -> None:
    """An item with gold is ranked by the votes against gold: a unanimous wrong crowd goes to the top."""
    unanimous = qasem_study.assignments["w1"].shown["qas"][1]  # all three said supported, no gold
    GoldLabel.objects.create(qa_id=unanimous, value="not_supported")
    rows = adjudication.queue(qasem_study.project)["results"]
    assert (rows[0]["level"], rows[0]["item_id"]) == ("qa", unanimous)
    assert rows[0]["gold_disagreement"] == 1.0 and rows[0]["minority_share"] == 0.0


def test_facts_workers_wrote_are_in_the_queue(factscore_study) -> None:
    q = adjudication.queue(factscore_study.project, {"level": "fact"})
    json.dumps(q, allow_nan=False)
    rows = q["results"]
    written = AtomicFact.objects.get(created_by_assignment=factscore_study.assignments["w3"])
    human = next(r for r in rows if r["item_id"] == written.pk)
    assert human["gold"] is None and human["gold_disagreement"] is None
    assert human["origin"] == "human" and human["n_votes"] == 1
    assert human["workers_on_response"] == 3 and human["disagreement"] == pytest.approx(2 / 3, abs=1e-4)
    assert [e["text"] for e in human["context"]["edited_from"]] == list(written.edited_from.values_list("text", flat=True))
    # the model fact w2 labelled NS against the gold S
    gold = GoldLabel.objects.get(fact__isnull=False)
    model = next(r for r in rows if r["item_id"] == gold.fact_id)
    assert model["gold"] == "S" and model["counts"] == {"S": 2, "NS": 1}


def test_a_decision_keeps_votes_majority_reason_and_decider(qasem_study, people) -> None:
    first_qa = qasem_study.assignments["w3"].shown["qas"][0]
    adj = _decide(qasem_study.project, people["alice"], level="qa", item_id=first_qa, label="not_supported")
    assert adj.value == "not_supported" and adj.majority == "supported" and adj.decided_by == people["alice"]
    assert all(v["worker"].startswith("W-") for v in adj.votes)  # the pseudonym, stable
    assert sorted((v["name"], v["label"]) for v in adj.votes) == [
        ("w1", "supported"), ("w2", "supported"), ("w3", "not_supported")]
    assert adj.version == 1 and adj.history == []
    row = adjudication.queue(qasem_study.project, {"decided": "true"})["results"]
    assert [(r["item_id"], r["adjudicated"]["label"]) for r in row] == [(first_qa, "not_supported")]
    assert adjudication.queue(qasem_study.project, {"decided": "false"})["count"] == 1  # the pairwise aspect


def test_deciding_again_replaces_and_keeps_history(qasem_study, people) -> None:
    unit = qasem_study.unit.pk
    _decide(qasem_study.project, people["alice"], level="pairwise", item_id=unit, aspect="consistency", label=4)
    again = adjudication.decide(qasem_study.project, {"level": "pairwise", "item_id": unit, "aspect": "consistency",
                                                      "label": "3", "reason": "both equally consistent"}, people["bob"])
    assert AdjudicatedLabel.objects.filter(unit_id=unit).count() == 1
    assert again.version == 2 and again.value == "3" and again.decided_by == people["bob"]
    assert [(h["version"], h["label"], h["decided_by"]) for h in again.history] == [(1, "4", "alice")]
    with pytest.raises(IntegrityError), transaction.atomic():  # one current decision per target, enforced
        AdjudicatedLabel.objects.create(project=qasem_study.project, level="pairwise", unit_id=unit,
                                        aspect="consistency", value="2", reason="x", decided_at=again.decided_at)


@pytest.mark.parametrize("body, field", [
    ({"level": "qa", "item_id": 10**9, "label": "supported"}, "item_id"),
    ({"level": "qa", "item_id": [1], "label": "supported"}, "item_id"),
    ({"level": "qa", "item_id": {"id": 1}, "label": "supported"}, "item_id"),
    ({"level": "qa", "item_id": True, "label": "supported"}, "item_id"),
    ({"level": "qa", "item_id": "QA", "label": "supported"}, "item_id"),
    ({"level": "qa", "label": "S"}, "item_id"),
    ({"level": "qa", "item_id": "FIRST", "label": "covered"}, "label"),
    ({"level": "qa", "item_id": "FIRST", "label": ["supported"]}, "label"),
    ({"level": "qa", "item_id": "FIRST", "label": "supported", "reason": ["why"]}, "reason"),
    ({"level": "qa", "item_id": "FIRST", "label": "supported", "reason": "a\x00b"}, "reason"),
    ({"level": "qa", "item_id": "FIRST", "label": "supported", "reason": "x" * 2001}, "reason"),
    ({"level": "qa", "item_id": "\u00b2", "label": "supported"}, "item_id"),
    ({"level": "qa", "item_id": "FIRST", "label": "supported", "aspect": "relevance"}, "aspect"),
    ({"level": "votes", "item_id": "FIRST", "label": "supported"}, "level"),
    ({"level": ["qa"], "item_id": "FIRST", "label": "supported"}, "level"),
    ({"level": "pairwise", "item_id": "UNIT", "label": "3"}, "aspect"),
    ({"level": "pairwise", "item_id": "UNIT", "aspect": "relevance", "label": "3"}, "aspect"),
    ({"level": "pairwise", "item_id": "UNIT", "aspect": "consistency", "label": "6"}, "label"),
    ({"level": "pairwise", "item_id": "UNIT", "aspect": "consistency", "label": 3.0}, "label"),
    ({"level": "span", "item_id": "FIRST", "label": "covered"}, "item_id"),  # a QA id is no span of its own
    ({"level": "fact", "item_id": "FIRST", "label": "S"}, "item_id"),
])
def test_bad_decisions_are_refused_naming_the_field(qasem_study, people, body, field) -> None:
    first_qa = qasem_study.assignments["w3"].shown["qas"][0]
    body = {"reason": "r", **body}
    body = {k: first_qa if v == "FIRST" else qasem_study.unit.pk if v == "UNIT" else v for k, v in body.items()}
    if field == "item_id" and body["level"] == "span":
        body["item_id"] = 10**8  # no such span
    with pytest.raises(adjudication.AdjudicationError) as err:
        adjudication.decide(qasem_study.project, body, people["alice"])
    assert [e["field"] for e in err.value.errors] == [field]
    assert not AdjudicatedLabel.objects.exists()


def test_targets_of_another_project_and_invalid_qas_are_refused(qasem_study, factscore_study, people) -> None:
    fact = AtomicFact.objects.filter(response__project=factscore_study.project).first()
    for body in ({"level": "fact", "item_id": fact.pk, "label": "S"},
                 {"level": "pairwise", "item_id": factscore_study.unit.pk, "aspect": "consistency", "label": "3"}):
        with pytest.raises(adjudication.AdjudicationError) as err:
            _decide(qasem_study.project, people["alice"], **body)
        assert err.value.errors[0]["field"] == "item_id"
    invalid = qasem_study.assignments["w1"].shown["qas"][1]
    QA.objects.filter(pk=invalid).update(validity=QA.Validity.INVALID)
    with pytest.raises(adjudication.AdjudicationError, match="marked invalid"):
        _decide(qasem_study.project, people["alice"], level="qa", item_id=invalid, label="supported")


@pytest.mark.parametrize("params, field", [
    ({"level": "votes"}, "level"), ({"limit": "0"}, "limit"), ({"limit": "ten"}, "limit"),
    ({"offset": "-1"}, "offset"), ({"limit": "\u00b2"}, "limit"), ({"include_agreed": "maybe"}, "include_agreed"), ({"decided": "2"}, "decided"),
])
def test_bad_queue_parameters_name_the_parameter(qasem_study, params, field) -> None:
    with pytest.raises(adjudication.AdjudicationError) as err:
        adjudication.queue(qasem_study.project, params)
    assert err.value.errors[0]["field"] == field


def _lines(lines) -> list[str]:
    return list(lines)


def test_qa_jsonl_export_carries_the_adjudicated_label_and_its_provenance(qasem_study, people) -> None:
    first_qa = qasem_study.assignments["w3"].shown["qas"][0]
    before = _lines(qa_jsonl.export_lines(qasem_study.project))
    _decide(qasem_study.project, people["alice"], level="qa", item_id=first_qa, label="not_supported")
    after = _lines(qa_jsonl.export_lines(qasem_study.project))
    changed = [i for i, (b, a) in enumerate(zip(before, after, strict=True)) if b != a]
    order = list(QA.objects.filter(response__project=qasem_study.project).order_by("response_id", "order", "id")
                 .values_list("id", flat=True))
    assert changed == [order.index(first_qa)]  # every other line byte for byte
    old, new = json.loads(before[changed[0]]), json.loads(after[changed[0]])
    assert new["label"] == "not_supported" and new["majority"] == old["label"] == "supported"
    assert new["votes"] == old["votes"]
    prov = new["adjudication"]
    assert prov["label"] == "not_supported" and prov["decided_by"] == "alice"
    assert prov["reason"] == "checked against the source" and prov["majority_at_decision"] == "supported"
    assert sorted(prov["votes_at_decision"]) == sorted(old["votes"]) and prov["version"] == 1
    assert {k: v for k, v in new.items() if k not in ("label", "majority", "adjudication")} == {
        k: v for k, v in old.items() if k != "label"}


def test_factscore_export_carries_the_adjudicated_label(factscore_study, people) -> None:
    """A fact a worker wrote (sentence 0) and a model fact of a sentence without human facts (sentence 1)."""
    written = AtomicFact.objects.get(created_by_assignment=factscore_study.assignments["w3"])
    model = AtomicFact.objects.filter(response=written.response, sentence_index=1, created_by_assignment=None).first()
    before = _lines(factscore_export.export_lines(factscore_study.project))
    _decide(factscore_study.project, people["alice"], level="fact", item_id=written.pk, label="S")
    _decide(factscore_study.project, people["alice"], level="fact", item_id=model.pk, label="IR")
    after = _lines(factscore_export.export_lines(factscore_study.project))
    assert len(before) == len(after) == 1
    old, new = json.loads(before[0]), json.loads(after[0])
    facts_old = [f for s in old["annotations"] for f in s["human-atomic-facts"] or []]
    facts_new = [f for s in new["annotations"] for f in s["human-atomic-facts"] or []]
    changed = {n["text"]: (o, n) for o, n in zip(facts_old, facts_new, strict=True) if o != n}
    assert set(changed) == {written.text, model.text}
    for text, label in ((written.text, "S"), (model.text, "IR")):
        o, n = changed[text]
        assert n["label"] == label and n["majority"] == o["label"]
        assert n["adjudication"]["decided_by"] == "alice" and n["adjudication"]["label"] == label
    assert changed[written.text][1]["adjudication"]["votes_at_decision"] == ["NS"]
    assert {k: v for k, v in new.items() if k != "annotations"} == {k: v for k, v in old.items() if k != "annotations"}


def test_the_report_gives_the_majority_against_the_adjudicated_gold(qasem_study, people) -> None:
    from sklearn.metrics import cohen_kappa_score

    project = qasem_study.project
    assert build_report(project)["adjudication"] == []
    qas = qasem_study.assignments["w1"].shown["qas"]
    decided = {qas[0]: "not_supported", qas[1]: "supported", qas[2]: "supported", qas[3]: "not_supported"}
    for qa_id, label in decided.items():
        _decide(project, people["alice"], level="qa", item_id=qa_id, label=label)
    rows = {r["level"]: r for r in build_report(project)["adjudication"]}
    votes = pd.DataFrame(list(QALabel.objects.filter(qa_id__in=decided).values_list("qa_id", "supported")),
                         columns=["qa", "supported"])
    majority = votes.groupby("qa")["supported"].mean().gt(0.5).map({True: "supported", False: "not_supported"})
    gold = pd.Series(decided).loc[majority.index]
    assert rows["qa"]["n_items"] == 4
    assert rows["qa"]["accuracy"] == pytest.approx((majority == gold).mean())
    assert rows["qa"]["cohen_kappa"] == pytest.approx(cohen_kappa_score(gold, majority))
    assert rows["qa"]["changed"] == int((majority != gold).sum())
    assert set(rows) == {"qa"}
    assert PairwisePreference.objects.filter(unit=qasem_study.unit).exists()


def test_a_project_without_labels_has_an_empty_queue(db) -> None:
    unit = make_unit("Empty", n_qas=1, n_responses=1)
    q = adjudication.queue(unit.project)
    assert q["count"] == 0 and q["results"] == [] and {"span", "qa", "pairwise", "fact"} <= set(q["levels"]) == set(adjudication_levels())
