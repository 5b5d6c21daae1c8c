"""Exports at scale (issue 25 item 3): the dataset card's agreement without the whole report, the CSV written
straight from the records, and voters named without a model instance per row. Small data; no timings."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Project
from annotation_tasks.services import exports, reports
from annotation_tasks.services.imports import import_factscore, import_qasem_release
from tests.importers.helpers import factscore_line, release_line, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def qasem(tmp_path) -> Project:
    rows = [release_line(sid, model) for sid in (1, 2, 3, 4, 5) for model in ("a", "b")]
    import_qasem_release(write_jsonl(tmp_path / "small.jsonl", rows), "small")
    return Project.objects.get(name="small")


@pytest.fixture
def facts(tmp_path) -> Project:
    import_factscore([write_jsonl(tmp_path / "f.jsonl", [factscore_line(t) for t in ("Ada", "Bob", "Cy")])], "facts")
    return Project.objects.get(name="facts")


@pytest.mark.parametrize("by", [None, "split"])
@pytest.mark.parametrize("name", ["qasem", "facts"])
def test_card_agreement_is_the_reports(name, by, request) -> None:
    project = request.getfixturevalue(name)
    expected = reports.build_report(project, by=by)["agreement"]
    assert expected  # the fixture has labels: the comparison is not of two empty lists
    assert exports.card_agreement(project, by=by) == expected


def _repeat_votes(project: Project) -> None:
    """Votes a worker casts again on an item (frames count the first once): the first QA's first voter again
    through a later batch, the opposite label; a new worker whose retest vote comes before their plain vote on the
    first span (the plain one counts, whatever the ids); and two new workers on the last QA."""
    from annotation_tasks.models import QA, AnswerSpan, Assignment, Batch, QALabel, SpanLabel, Unit, Worker

    qa = QA.objects.filter(response__project=project).order_by("pk").first()
    span = AnswerSpan.objects.filter(response__project=project).order_by("pk").first()
    last = QA.objects.filter(response__project=project).order_by("pk").last()
    first_vote = QALabel.objects.filter(qa=qa).order_by("assignment_id").first()

    def assignment(batch: Batch, worker: Worker, source) -> Assignment:
        unit = Unit.objects.create(project=project, source=source, batch=batch)
        return Assignment.objects.create(unit=unit, worker=worker, status="submitted")

    later = Batch.objects.create(project=project, name="later")
    retest = Batch.objects.create(project=project, name="retest", settings={"retest": True})
    QALabel.objects.create(assignment=assignment(later, first_vote.assignment.worker, qa.response.source), qa=qa,
                           supported=not first_vote.supported)
    newcomer = Worker.objects.create(external_id="newcomer")
    SpanLabel.objects.create(assignment=assignment(retest, newcomer, span.response.source), span=span, covered=True)
    SpanLabel.objects.create(assignment=assignment(later, newcomer, span.response.source), span=span, covered=False)
    for name in ("late-1", "late-2"):
        QALabel.objects.create(assignment=assignment(later, Worker.objects.create(external_id=name),
                                                     last.response.source), qa=last, supported=False)


def _more_fact_votes(project: Project) -> None:
    """Two more workers on the first fact (NS, IR): a fact with three votes and three labels."""
    from annotation_tasks.models import Assignment, AtomicFact, Batch, FactLabel, Unit, Worker

    fact = AtomicFact.objects.filter(response__project=project).order_by("pk").first()
    batch = Batch.objects.create(project=project, name="odd")
    for name, label in (("more-1", "IR"), ("more-2", "NS")):
        unit = Unit.objects.create(project=project, source=fact.response.source, batch=batch)
        a = Assignment.objects.create(unit=unit, worker=Worker.objects.create(external_id=name), status="submitted")
        FactLabel.objects.create(assignment=a, fact=fact, label=label)


@pytest.mark.parametrize("by", [None, "split"])
def test_card_agreement_from_counts_is_agreement_table_of_the_vote_frame(qasem, facts, by) -> None:
    """card_agreement counts votes per item in the database; the figures are analysis.agreement_table's on the
    labels frame (one vote per worker per item, retests after), group by group, to the last bit."""
    from annotation_tasks.analysis.agreement import agreement_table
    from annotation_tasks.services import frames

    _repeat_votes(qasem)
    _more_fact_votes(facts)
    for project in (qasem, facts):
        frame = frames.labels_frame(project)
        expected = reports.to_jsonable(agreement_table(frame, by=by))
        assert exports.card_agreement(project, by=by) == expected
        assert exports.card_agreement(project, by=by) == reports.build_report(project, by=by)["agreement"]
    qasem_frame = frames.labels_frame(qasem)
    assert set(qasem_frame["split"]) == {"dev", "test"}  # both groups are compared
    rows = exports.card_agreement(qasem, by=by)
    # the repeats were there to drop: 2 QAs x 3 votes x 10 responses + 2 late votes; spans 60 + the newcomer's one
    assert [(r["level"], r["n_labels"]) for r in rows if r["group"] is None] == [("qa", 62), ("span", 61)]
    assert exports.card_agreement(facts, by=by)[0]["n_labels"] > exports.card_agreement(facts, by=by)[0]["n_items"]


def test_dataset_export_does_not_build_the_report(qasem, tmp_path, monkeypatch) -> None:
    """The whole report held ~1 GB for 10^6 labels; the card needs its agreement rows only."""
    expected = reports.build_report(qasem, by="split")["agreement"]

    def whole_report(*args, **kwargs):
        raise AssertionError("the dataset export built the whole report")

    monkeypatch.setattr(reports, "build_report", whole_report)
    exports.export_dataset(qasem.name, tmp_path / "dataset")
    readme = (tmp_path / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "## Agreement" in readme
    for row in expected:
        group = "all" if row["group"] is None else f"split={row['group']}"
        assert f"| {row['level']} | {group} | {row['n_items']} | {row['n_labels']} |" in readme


def _two_pass_csv(jsonl) -> bytes:
    """The CSV as it was written before the one-read spool: keys from a first pass, rows from a second."""
    import io

    from annotation_tasks.exporters import csv_writer

    out = io.StringIO(newline="")
    csv_writer.write_rows(csv_writer._records(jsonl), csv_writer.columns_of(csv_writer._records(jsonl)), out)
    return out.getvalue().encode("utf-8")


@pytest.mark.parametrize("fmt", ["qa-jsonl", "labels-jsonl", "qasem-release"])
def test_csv_export_job_writes_the_same_bytes_as_the_two_pass_csv(qasem, fmt, tmp_path, settings) -> None:
    from annotation_tasks.models import Job
    from annotation_tasks.services import export_jobs

    settings.VAR_DIR = tmp_path / "var"
    jsonl = tmp_path / "export.jsonl"
    exports.export_to_path(qasem.name, fmt, jsonl)
    job = export_jobs.run_export_job(export_jobs.start_export_job(qasem, fmt, as_csv=True).pk)
    assert job.status == Job.Status.DONE, job.error
    assert export_jobs.job_file(job).read_bytes() == _two_pass_csv(jsonl)
    assert job.result["lines"] == len(jsonl.read_text(encoding="utf-8").splitlines())


def test_csv_of_uneven_records_matches_the_two_pass_csv(tmp_path) -> None:
    """Rows with different keys (adjudication on some, retest on others) land in the first-seen columns."""
    import io
    import json

    from annotation_tasks.exporters import csv_writer

    records = [{"a": 1, "votes": ["x"]}, {"b": "=cmd", "a": None}, {"a": "two\r\nlines", "extra": {"k": [1]}}, {},
               {"a": "long, \"quoted\"\n" * 20_000}]  # a cell past the csv module's default field limit
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = io.StringIO(newline="")
    assert csv_writer.csv_from_records(iter(records), out) == len(records)
    assert out.getvalue().encode("utf-8") == _two_pass_csv(jsonl)


def test_id_list_filters_like_a_list(qasem) -> None:
    """base.id_list (one array parameter on PostgreSQL) selects what the plain list selects."""
    from annotation_tasks.exporters.base import id_list
    from annotation_tasks.models import QA

    ids = list(QA.objects.filter(response__project=qasem).values_list("pk", flat=True)) + [10**9 + i for i in range(80)]
    assert len(ids) > 64  # past the size where PostgreSQL gets the array
    got = sorted(QA.objects.filter(pk__in=id_list(ids)).values_list("pk", flat=True))
    assert got == sorted(QA.objects.filter(pk__in=ids).values_list("pk", flat=True)) and got


def test_results_csv_reads_a_batch_in_chunks_with_the_same_rows() -> None:
    """The MTurk results CSV held a whole batch's assignments (with their sources) at once; it reads chunks of
    plain values now, three queries a chunk, and a chunk boundary inside a unit loses or repeats no row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from annotation_tasks.exporters import results_csv
    from tests.importers.test_results_csv import worked_batch

    batch = worked_batch().batch
    whole = list(results_csv.export_rows(batch, chunk_size=1000))
    assert len(whole) == 2
    with CaptureQueriesContext(connection) as chunked:
        assert list(results_csv.export_rows(batch, chunk_size=1)) == whole
    assert len(chunked.captured_queries) == 3 * len(whole) + 1  # 3 per chunk of one row, then the empty page


def _reference_lines(project: Project, level: str, *, with_platform_ids: bool = False, chunk_size: int = 1000):
    """qa_jsonl's qa / span lines as they were written before chunk_votes and majorities_and_certainty: three
    assignment queries a chunk, a labels frame per majority and per certainty, _record and dict merges."""
    import json

    from annotation_tasks.exporters import qa_jsonl
    from annotation_tasks.exporters.base import id_list, level_votes, majorities, retest_marks, vote_workers
    from annotation_tasks.exporters.certainty import certainty
    from annotation_tasks.models import QA, AdjudicatedLabel, AnswerSpan

    for chunk in qa_jsonl._response_chunks(project, chunk_size):
        by_id = {r.pk: r for r in chunk}
        if level == "qa":
            items = [qa_jsonl._QA(*row) for row in QA.objects.filter(response_id__in=list(by_id))
                     .exclude(validity=QA.Validity.INVALID).order_by("response_id", "order", "id")
                     .values_list(*qa_jsonl.QA_FIELDS)]
        else:
            items = [qa_jsonl._Span(*row) for row in AnswerSpan.objects.filter(response_id__in=list(by_id))
                     .order_by("response_id", "order", "start", "id").values_list(*qa_jsonl.SPAN_FIELDS)]
        ids = [item.pk for item in items]
        rows = level_votes(level, ids)
        votes, sure = majorities(rows), certainty(rows)
        who = vote_workers(rows, with_platform_ids=with_platform_ids)
        adjudicated = AdjudicatedLabel.of_items(level, id_list(ids))
        retests = retest_marks(rows)
        links: dict[int, list[int]] = {}
        for span_id, qa_id in AnswerSpan.qas.through.objects.filter(answerspan_id__in=ids).order_by("qa_id").values_list(
                "answerspan_id", "qa_id"):
            links.setdefault(span_id, []).append(qa_id)
        for item in items:
            key = (level, item.pk)
            response = by_id[item.response_id]
            record = (qa_jsonl._record(response, item, votes, adjudicated.get(item.pk)) if level == "qa" else
                      qa_jsonl._span_record(response, item, votes, adjudicated.get(item.pk), links.get(item.pk, [])))
            retest = {"retest": retests[key]} if key in retests else {}
            yield json.dumps({**record, **sure.get(key, {}), "workers": who.get(key, []), **retest},
                             ensure_ascii=False, separators=(",", ":"))  # base.json_line: compact, orjson


def _worked(project: Project) -> None:
    """What the lines must carry besides plain votes: repeats and retests (_repeat_votes), an expert's decision,
    an unlabelled QA, a QA the expert step rejected, and text beyond ASCII."""
    from django.utils import timezone

    from annotation_tasks.models import QA, AdjudicatedLabel, QALabel

    _repeat_votes(project)
    qas = list(QA.objects.filter(response__project=project).order_by("pk"))
    AdjudicatedLabel.objects.create(project=project, level="qa", qa=qas[1], value="supported", reason="clear",
                                    decided_by_name="Expert", decided_at=timezone.now(), majority="not_supported",
                                    votes=[{"label": "not_supported"}])
    qas[2].question = "Wer starb? «ß» 死"
    qas[2].save(update_fields=["question"])
    QA.objects.filter(pk=qas[3].pk).update(validity=QA.Validity.INVALID)
    QALabel.objects.filter(qa=qas[4]).delete()


@pytest.mark.parametrize("with_platform_ids", [False, True])
@pytest.mark.parametrize("chunk_size", [1000, 3])
def test_qa_and_span_lines_are_the_bytes_of_the_reference(qasem, with_platform_ids, chunk_size) -> None:
    """The qa-jsonl and span lines (one assignment query a chunk, one numpy pass for majorities and soft labels,
    one dict literal a record) are byte for byte what the earlier per-chunk frames and merges wrote."""
    from annotation_tasks.exporters import qa_jsonl

    _worked(qasem)
    got = list(qa_jsonl.export_lines(qasem, chunk_size=chunk_size, with_platform_ids=with_platform_ids))
    expected = list(_reference_lines(qasem, "qa", with_platform_ids=with_platform_ids, chunk_size=chunk_size))
    assert len(got) == 19 and got == expected  # 20 QAs, one rejected
    assert any('"adjudication"' in line for line in got) and any('"label":null' in line for line in got)
    assert any("死" in line for line in got)
    spans = list(qa_jsonl.span_lines(qasem, chunk_size=chunk_size, with_platform_ids=with_platform_ids))
    assert spans == list(_reference_lines(qasem, "span", with_platform_ids=with_platform_ids, chunk_size=chunk_size))
    assert any('"retest"' in line for line in spans)


@pytest.mark.parametrize("aggregation", ["dawid_skene", "mace"])
def test_aggregated_qa_lines_are_the_bytes_of_the_reference(qasem, aggregation) -> None:
    """Under another model's labels (with_aggregation; Dawid-Skene's own posteriors, MACE's labels with the
    Dirichlet posterior of their share) the lines are the reference's too."""
    from annotation_tasks.exporters.base import with_aggregation

    _worked(qasem)
    table = exports._aggregated(qasem, aggregation)
    got = list(exports.export_lines(qasem.name, "qa-jsonl", aggregation=aggregation))
    assert got == list(with_aggregation(_reference_lines(qasem, "qa"), table))
