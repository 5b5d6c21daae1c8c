"""services.frames on a small hand-built project: which labels count, and the frame contract."""
from __future__ import annotations

import pytest

from annotation_tasks.analysis.splits import split_of
from annotation_tasks.models import (
    QA,
    AnswerSpan,
    Assignment,
    AtomicFact,
    FactLabel,
    Predicate,
    Project,
    QALabel,
    Response,
    Source,
    SpanLabel,
    Unit,
    Worker,
)
from annotation_tasks.services import frames
from annotation_tasks.services.reports import build_report

pytestmark = pytest.mark.django_db


@pytest.fixture
def project() -> Project:
    project = Project.objects.create(name="p")
    source = Source.objects.create(project=project, external_id="s1#abc", metadata={"source_id": 17})
    response = Response.objects.create(
        project=project, source=source, external_id="r1", system="sysA", text="A man died in Paris.",
        metadata={"dataset": "cliff", "abstained": False},
        sentences=[{"text": "A man died in Paris.", "is_relevant": True}, {"text": "Hi.", "is_relevant": False}],
    )
    Response.objects.create(project=project, source=source, external_id="r2", system="sysB", text="-",
                            metadata={"abstained": True})
    predicate = Predicate.objects.create(response=response, token_index=2, text="died")
    qa_ok = QA.objects.create(response=response, predicate=predicate, question="Who died?", answer="A man",
                              answer_start=0, answer_end=2)
    qa_bad = QA.objects.create(response=response, predicate=predicate, question="Where?", answer="Paris",
                               answer_start=4, answer_end=5, validity=QA.Validity.INVALID)
    span = AnswerSpan.objects.create(response=response, start=0, end=2, text="A man")
    span.qas.add(qa_ok)
    fact = AtomicFact.objects.create(response=response, sentence_index=0, text="A man died.", kind="human")
    AtomicFact.objects.create(response=response, sentence_index=1, text="Hi.", kind="model")
    unit = Unit.objects.create(project=project, source=source)
    statuses = ["approved", "submitted", "rejected"]
    for k, status in enumerate(statuses):
        worker = Worker.objects.create(external_id=f"w{k}")
        a = Assignment.objects.create(unit=unit, worker=worker, status=status)
        SpanLabel.objects.create(assignment=a, span=span, covered=k != 1)
        QALabel.objects.create(assignment=a, qa=qa_ok, supported=k == 0, derived_from_span=k == 1)
        QALabel.objects.create(assignment=a, qa=qa_bad, supported=True)
        FactLabel.objects.create(assignment=a, fact=fact, label="S")
    return project


def test_labels_frame_counts_only_submitted_and_approved_and_skips_invalid_qas(project) -> None:
    labels = frames.labels_frame(project)
    assert list(labels.columns) == frames.LABEL_COLUMNS
    assert labels.groupby("level", observed=True).size().to_dict() == {"span": 2, "qa": 2, "fact": 2}
    qa = labels[labels["level"] == "qa"]
    assert set(qa["item_id"]) == {QA.objects.get(question="Who died?").pk}
    assert sorted(qa["label"].astype(str)) == ["not_supported", "supported"]
    assert qa["derived_from_span"].tolist() == [False, True]
    span = labels[labels["level"] == "span"]
    assert sorted(span["label"].astype(str)) == ["covered", "not_covered"]
    row = labels.iloc[0]
    assert (row["system"], row["dataset"], row["source_id"]) == ("sysA", "cliff", "s1#abc")
    # the split hashes the raw release id kept in Source.metadata, not the disambiguated external id
    assert row["split"] == split_of(17)


def test_responses_and_facts_frames(project) -> None:
    responses = frames.responses_frame(project).set_index("external_id")
    assert not responses.loc["r1", "abstained"]
    assert bool(responses.loc["r2", "abstained"]) is True
    assert responses.loc["r2", "dataset"] == ""
    facts = frames.facts_frame(project)
    assert len(facts) == 3  # the human fact with its two counted labels, the model fact with none
    model = facts[facts["kind"] == "model"].iloc[0]
    assert model["label"] is None and not model["sentence_relevant"]
    assert facts[facts["kind"] == "human"]["sentence_relevant"].all()


def test_report_dict_on_the_small_project(project) -> None:
    report = build_report("p")
    factscore = {r["system"]: r for r in report["factscore"]}
    # r1: human fact S (relevant) + model fact of the irrelevant sentence (NS) -> 50; r2 abstained
    assert factscore["sysA"]["factscore"] == 50.0
    assert factscore["sysB"]["percent_responding"] == 0.0 and factscore["sysB"]["factscore"] is None
    (consistency,) = report["consistency"]
    # QA: one supported, one not -> tie -> not_supported by the tie rule; span 1-1 -> not_covered -> extrinsic
    assert consistency["consistency"] == 0.0 and consistency["n_extrinsic"] == 1
    workers = {r["worker"]: r for r in report["workers"] if r["level"] == "span"}
    from annotation_tasks.models import Worker

    assert set(workers) == {w.pseudonym_in(project.pk) for w in Worker.objects.filter(external_id__in=["w0", "w1"])}


def test_pairwise_section_reads_counted_preferences(project) -> None:
    from annotation_tasks.models import PairwisePreference

    r1, r2 = Response.objects.order_by("id")
    unit = Unit.objects.get()
    for a in Assignment.objects.all():
        PairwisePreference.objects.create(assignment=a, unit=unit, response_a=r1, response_b=r2, score=2)
    (row,) = build_report("p")["pairwise"]
    assert row["n_judgments"] == 2  # the rejected assignment's judgment does not count
    assert (row["system_first"], row["first_wins_pct"]) == ("sysA", 100.0)
