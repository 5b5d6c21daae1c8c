"""services/review.py per protocol: the assignment view shows what the worker was served and answered, with gold
checks, the others' votes, notes and time on task; the worker drill-down sums it per assignment."""
from __future__ import annotations

import io
from collections import Counter

import pytest

from annotation_tasks.models import QA, Assignment, Batch, GoldLabel, Worker
from annotation_tasks.protocols.review import GenericReview, adjudication_levels, review_for
from annotation_tasks.services import review, work
from annotation_tasks.services.units import compose_validation_units
from tests.review.conftest import submit

pytestmark = pytest.mark.django_db


def _items(result: dict, level: str) -> dict:
    return {(r["item_id"], r.get("aspect", "")): r for r in result["items"] if r["level"] == level}


def test_qasem_review_shows_the_served_payload_and_every_answer(qasem_study) -> None:
    w3 = qasem_study.assignments["w3"]
    result = review.assignment_review(w3)
    served = qasem_study.payloads["w3"]
    assert result["payload"]["responses"] == served["responses"]
    assert result["payload"]["plan"] == served["plan"]
    assert result["shown"] == w3.shown and result["shown_check"] == {"recorded": True, "missing_now": {}, "new_now": {}}
    sent = w3.submission["labels"]
    spans, qas = _items(result, "span"), _items(result, "qa")
    assert {k[0]: r["answer"] for k, r in spans.items()} == {
        s["span_id"]: "covered" if s["covered"] else "not_covered" for s in sent["spans"]}
    assert {k[0]: r["answer"] for k, r in qas.items()} == {
        q["qa_id"]: "supported" if q["supported"] else "not_supported" for q in sent["qas"]}
    pairwise = _items(result, "pairwise")
    assert {k[1]: r["answer"] for k, r in pairwise.items()} == {p["aspect"]: str(p["score"]) for p in sent["pairwise"]}
    assert result["assignment"]["time_on_task_ms"] == w3.time_on_task_ms
    assert result["assignment"]["worker"]["name"] == "w3"


def test_gold_checks_and_the_others_votes(qasem_study) -> None:
    w3 = qasem_study.assignments["w3"]
    result = review.assignment_review(w3)
    gold = dict(GoldLabel.objects.filter(qa__isnull=False).values_list("qa_id", "value"))
    gold.update({("span", s): v for s, v in GoldLabel.objects.filter(span__isnull=False).values_list("span_id", "value")})
    for (qa_id, _), row in _items(result, "qa").items():
        assert row["gold"] == gold.get(qa_id)
        assert row["gold_ok"] == (None if qa_id not in gold else gold[qa_id] == row["answer"])
        # the other two workers' votes, by name, never w3's own
        assert sorted(v["worker"]["name"] for v in row["others"]) == ["w1", "w2"]
    wrong = [r for r in result["items"] if r["gold_ok"] is False]
    assert [(r["level"], r["answer"], r["gold"]) for r in wrong] == [("qa", "not_supported", "supported")]
    checked = [r for r in result["items"] if r["gold"] is not None]
    assert result["summary"]["gold_total"] == len(checked)
    assert result["summary"]["gold_correct"] == len(checked) - 1
    disagreeing = [r for r in result["items"] if r["agrees"] is False]
    assert result["summary"]["compared"] == len(result["items"])
    assert result["summary"]["agreed"] == len(result["items"]) - len(disagreeing)
    assert {r["level"] for r in disagreeing} == {"qa", "pairwise"}


def test_notes_are_shown_and_counted(qasem_study) -> None:
    w1 = review.assignment_review(qasem_study.assignments["w1"])
    noted = [r for r in w1["items"] if r.get("note")]
    assert [r["note"] for r in noted] == ["answer is right but vague"]
    assert w1["summary"]["notes"] == 1
    assert review.assignment_review(qasem_study.assignments["w2"])["summary"]["notes"] == 0


def test_a_qa_invalidated_after_the_worker_saw_it_is_reported(qasem_study) -> None:
    w1 = qasem_study.assignments["w1"]
    gone = w1.shown["qas"][-1]
    QA.objects.filter(pk=gone).update(validity=QA.Validity.INVALID)
    result = review.assignment_review(w1)
    span = next(sid for sid, qas in QA.answer_spans.through.objects.filter(qa_id=gone).values_list("answerspan_id", "qa_id"))
    assert result["shown_check"]["missing_now"] == {"qas": [gone], "spans": [span]}  # its only QA is out
    # the worker's answers to both are still in the review, flagged as no longer shown
    stale = {(r["level"], r["item_id"]): r for r in result["items"] if not r["in_payload_now"]}
    assert set(stale) == {("qa", gone), ("span", span)}
    assert stale[("qa", gone)]["answer"] == "supported" and stale[("qa", gone)]["question"]
    assert result["shown"]["qas"] == w1.shown["qas"]  # the record is what the worker saw, untouched


def test_an_assignment_never_opened_has_no_shown_record(qasem_study) -> None:
    worker = Worker.objects.create(external_id="late")
    fresh = Assignment.objects.create(unit=qasem_study.unit, worker=worker)
    result = review.assignment_review(fresh)
    assert result["shown_check"]["recorded"] is False and result["assignment"]["imported"] is False
    assert all(r["answer"] is None for r in result["items"]) and result["summary"]["items"] == 0


def test_factscore_review_shows_kept_edited_and_written_facts(factscore_study) -> None:
    w3 = factscore_study.assignments["w3"]
    result = review.assignment_review(w3)
    facts = [r for r in result["items"] if r["level"] == "fact"]
    model = [r for r in facts if r["origin"] == "model"]
    human = [r for r in facts if r["origin"] == "human"]
    served = [f["id"] for f in factscore_study.payloads["w3"]["responses"][0]["facts"]]
    assert [r["item_id"] for r in model] == served
    assert len(human) == 1 and human[0]["text"] == "Anna visited a city in France." and human[0]["answer"] == "NS"
    assert human[0]["status"] == "edited" and [e["id"] for e in human[0]["edited_from"]] == [served[1]]
    edited = next(r for r in model if r["item_id"] == served[1])
    assert edited["status"] == "edited" and edited["replaced_by"] == human[0]["item_id"] and edited["answer"] is None
    assert {r["status"] for r in model if r["item_id"] != served[1]} == {"kept"}
    # the human fact's only other "votes" are none: nobody else labelled it
    assert human[0]["others"] == []


def test_factscore_gold_check(factscore_study) -> None:
    result = review.assignment_review(factscore_study.assignments["w2"])
    gold = dict(GoldLabel.objects.filter(fact__isnull=False).values_list("fact_id", "value"))
    wrong = [r for r in result["items"] if r["gold_ok"] is False]
    assert [r["item_id"] for r in wrong] == [f for f, v in gold.items() if v != "NS"]
    assert result["summary"]["gold_accuracy"] == 0.0


def test_validation_review_reads_the_expert_step_from_its_submission(qasem_study) -> None:
    batch = Batch.objects.create(project=qasem_study.project, name="validation")
    unit = compose_validation_units(batch)[0]

    def judged(payload):
        qas = [q["id"] for r in payload["responses"] for q in r["qas"]]
        return {"validation": [{"qa_id": q, "valid": k % 2 == 0} for k, q in enumerate(qas)]}

    assignment, payload = submit(unit, "expert", judged, 5000)
    result = review.assignment_review(assignment)
    sent = {v["qa_id"]: v["valid"] for v in assignment.submission["labels"]["validation"]}
    assert {r["item_id"]: r["answer"] for r in result["items"]} == {
        q: "valid" if ok else "invalid" for q, ok in sent.items()}
    assert {r["level"] for r in result["items"]} == {"validation"}


def test_worker_drill_down_sums_its_assignments(qasem_study, factscore_study) -> None:
    w3 = qasem_study.assignments["w3"]
    drill = review.worker_review(qasem_study.project, w3.worker)
    assert [a["id"] for a in drill["assignments"]] == [w3.pk]  # only this project's work
    one = review.assignment_review(w3)["summary"]
    row = drill["assignments"][0]
    for key in ("items", "gold_total", "gold_correct", "compared", "agreed", "time_on_task_ms"):
        assert row[key] == one[key], key
    assert drill["totals"]["agreement"] == one["agreed"] / one["compared"]
    assert drill["totals"]["median_time_on_task_ms"] == w3.time_on_task_ms


def test_agreement_is_with_the_others_majority_and_ties_compare_nothing(qasem_study) -> None:
    """A fourth worker joins w3 on the first QA: w1 is now outvoted by the others; a tie gives no majority."""
    unit = qasem_study.unit
    first_qa = qasem_study.assignments["w3"].shown["qas"][0]
    unit.assignments_wanted = 4
    unit.save()
    from tests.work.helpers import qasem_labels

    w4, _ = submit(unit, "w4", lambda p: qasem_labels(p, unsupported={first_qa}, pairwise=2), 1000)
    # for w1 the others on the first QA are w2 (supported), w3 and w4 (not supported): a majority, compared
    row = next(r for r in review.assignment_review(qasem_study.assignments["w1"])["items"]
               if r["level"] == "qa" and r["item_id"] == first_qa)
    assert Counter(v["label"] for v in row["others"]) == {"supported": 1, "not_supported": 2}
    assert row["others_majority"] == "not_supported" and row["agrees"] is False
    # for w4 the others are w1, w2 (supported) and w3 (not supported)
    row = next(r for r in review.assignment_review(w4)["items"] if r["level"] == "qa" and r["item_id"] == first_qa)
    assert Counter(v["label"] for v in row["others"]) == {"supported": 2, "not_supported": 1}
    assert row["agrees"] is False
    assert review.majority_of("qa", Counter({"supported": 1, "not_supported": 1}), ties=False) is None
    assert review.majority_of("qa", Counter({"supported": 1, "not_supported": 1})) == "not_supported"
    assert review.majority_of("pairwise", Counter({"1": 1, "4": 1})) == "4"  # nearer to "equal"


def test_each_protocol_has_a_review_companion() -> None:
    from annotation_tasks.protocols import available_protocols

    for mode in available_protocols():
        assert not isinstance(review_for(mode), GenericReview), mode
    assert set(adjudication_levels()) == {lv for mode in available_protocols() for lv in review_for(mode).adjudication_levels}
    assert {"span", "qa", "pairwise", "fact"} <= set(adjudication_levels())


def test_the_payload_of_the_review_is_the_work_payload(qasem_study) -> None:
    """The review rebuilds the payload with the same builder the worker's browser was served from."""
    w2 = qasem_study.assignments["w2"]
    served = work.unit_payload(w2)
    result = review.assignment_review(w2)["payload"]
    assert {k: v for k, v in result.items() if k != "assignment"} == {k: v for k, v in served.items() if k != "assignment"}


def test_imported_release_labels_are_reviewable_and_queued(tmp_path) -> None:
    """Votes imported from the QASem release: the review says they were not served here, and lists them."""
    from django.core.management import call_command

    from annotation_tasks.models import Project, QALabel
    from annotation_tasks.services import adjudication
    from tests.conftest import shared_file

    lines = shared_file("qasem_consistency", "dev.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    small = tmp_path / "dev6.jsonl"
    small.write_text("\n".join(lines) + "\n", encoding="utf-8")
    call_command("import_qasem_release", str(small), project="release6", stdout=io.StringIO())
    project = Project.objects.get(name="release6")
    assignment = Assignment.objects.filter(unit__project=project).order_by("id").first()
    result = review.assignment_review(assignment)
    assert result["assignment"]["imported"] is True
    answered = {r["item_id"]: r["answer"] for r in result["items"] if r["level"] == "qa" and r["answer"]}
    stored = {q: "supported" if s else "not_supported"
              for q, s in QALabel.objects.filter(assignment=assignment).values_list("qa_id", "supported")}
    assert answered == stored and stored
    q = adjudication.queue(project, {"include_agreed": "true", "level": "qa"})
    assert q["count"] == QALabel.objects.filter(qa__response__project=project).values("qa").distinct().count()


def test_id_lists_go_to_the_database_in_chunks_with_the_same_result(qasem_study, factscore_study, monkeypatch) -> None:
    """SQLite refuses more than 32,766 parameters per statement: id lists are cut; one id per query must give
    exactly what one query for all gives."""
    from annotation_tasks.services import adjudication

    whole = [review.assignment_review(a) for a in qasem_study.assignments.values()]
    drill = review.worker_review(factscore_study.project, factscore_study.assignments["w3"].worker)
    queue = adjudication.queue(factscore_study.project, {"include_agreed": "true"})
    monkeypatch.setattr(review, "ID_CHUNK", 1)
    assert list(review.chunked([3, 1, 2, 3])) == [[1], [2], [3]]
    assert [review.assignment_review(a) for a in qasem_study.assignments.values()] == whole
    assert review.worker_review(factscore_study.project, factscore_study.assignments["w3"].worker) == drill
    assert adjudication.queue(factscore_study.project, {"include_agreed": "true"}) == queue


def test_ragas_units_are_reviewed_and_adjudicated_per_aspect(db) -> None:
    """Ragas: two answers on faithfulness and answer relevance, two retrieved contexts on context relevance;
    the queue says per aspect what A and B are, contexts included."""
    from annotation_tasks.models import Project, Source
    from annotation_tasks.services import adjudication
    from annotation_tasks.services.units import compose_units
    from tests.review.conftest import submit
    from tests.work.builders import make_response

    project = Project.objects.create(name="Ragas review", protocol=["ragas_pairwise"], annotations_per_item=3)
    batch = Batch.objects.create(project=project, name="b1")
    passages = ["Anna visited Paris in 2023.", "Anna visited Paris in 2023. Paris is in France."]
    source = Source.objects.create(project=project, external_id="q1", question="Where did Anna go?", passages=passages)
    for system in ("poor_answer", "answer", "ungrounded_answer"):
        make_response(project, source, f"q1:{system}", n_qas=1, system=system, gold=False)
    unit = compose_units(batch)[0]

    def scores(name):
        def build(payload):
            # sides are drawn per assignment (issue 23 item 10): each worker means the same about the pair's
            # canonical A (lower id / passage index) whichever side it was shown on
            (section,) = [s for s in payload["plan"] if s["kind"] == "ragas_pairwise"]
            return {"pairwise": [{"aspect": c["aspect"], "score": (5 if name == "w3" else 2) if c["a"] < c["b"]
                                  else (1 if name == "w3" else 4)} for c in section["comparisons"]]}
        return build

    done = {name: submit(unit, name, scores(name), 1000)[0] for name in ("w1", "w2", "w3")}
    rows = review.assignment_review(done["w3"])["items"]
    assert {(r["aspect"], r["answer"]) for r in rows} == {(p.aspect, "5") for p in done["w3"].preferences.all()}
    assert all(r["others_majority"] == "2" and r["agrees"] is False for r in rows)
    queue = adjudication.queue(project)
    by_aspect = {r["aspect"]: r for r in queue["results"]}
    assert set(by_aspect) == {p.aspect for p in done["w3"].preferences.all()}
    context = by_aspect["context_relevance"]["context"]["comparisons"]["context_relevance"]["sides"]
    assert [s["text"] for s in context] == passages and {s["kind"] for s in context} == {"context"}
    answers = by_aspect["faithfulness"]["context"]["comparisons"]["faithfulness"]["sides"]
    assert {s["kind"] for s in answers} == {"response"}
