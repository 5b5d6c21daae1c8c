"""The score job and imported scores on projects imported from the shared files (real importers, real DB)."""
from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import QA, AtomicFact, ItemScore, Job, Project
from annotation_tasks.scoring import registry
from annotation_tasks.scoring.embedded import EmbeddedScorer
from annotation_tasks.services import scoring
from annotation_tasks.services.imports import import_factscore, import_qasem_release
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def qasem(tmp_path) -> Project:
    lines = shared_file("qasem_consistency", "dev.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "dev_small.jsonl"
    path.write_text("\n".join(lines[:: 15]) + "\n", encoding="utf-8")  # 10 lines, all three datasets
    import_qasem_release(path, "q")
    return Project.objects.get(name="q")


def _score(*args: str) -> dict:
    out = StringIO()
    call_command("score", *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_score_job_scores_every_qa_once_per_version(qasem):
    n_qas = QA.objects.filter(response__project=qasem).count()
    job = _score("--project", "q", "--scorer", "embedded", "--inline")
    assert job["status"] == Job.Status.DONE and job["done"] == job["total"] == n_qas
    version = EmbeddedScorer().version
    assert job["result"] == {"scorer": "embedded", "version": version, "qa": n_qas, "fact": 0, "no_reference": 0}
    rows = ItemScore.objects.filter(qa__response__project=qasem, scorer="embedded", version=version)
    assert rows.count() == n_qas and all(0 <= s <= 1 for s in rows.values_list("score", flat=True))
    # The stored score is the scorer's own answer for that QA against its source.
    qa = QA.objects.filter(response__project=qasem).select_related("response__source", "predicate").first()
    target = scoring.qa_targets(qasem, [qa.pk])[0]
    assert target.reference.text == qa.response.source.text and target.claim.answer == qa.answer
    expected = registry.get_scorer("embedded").score_batch([(target.reference, target.claim)])[0].value
    assert rows.get(qa=qa).score == pytest.approx(expected)
    # Running again finds nothing to do; --rescore replaces (never duplicates) the same version.
    again = _score("--project", "q", "--scorer", "embedded", "--inline")
    assert again["total"] == 0 and again["result"]["qa"] == 0
    redo = _score("--project", "q", "--scorer", "embedded", "--inline", "--rescore")
    assert redo["result"]["qa"] == n_qas and rows.count() == n_qas


def test_a_queued_job_runs_in_the_worker_after_commit(qasem, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):  # eager Celery: the task runs when the callback fires
        job = scoring.start_score_job("q", "overlap")
        assert Job.objects.get(pk=job.pk).status == Job.Status.QUEUED
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.kind == Job.Kind.SCORE
    assert ItemScore.objects.filter(scorer="overlap").count() == QA.objects.filter(response__project=qasem).count()


def test_two_scorers_sit_side_by_side(qasem):
    _score("--project", "q", "--scorer", "overlap", "--inline")
    _score("--project", "q", "--scorer", "embedded", "--inline")
    versions = {(s, v) for s, v, _ in scoring.iter_versions(qasem)}
    assert versions == {("overlap", "1"), ("embedded", EmbeddedScorer().version)}
    frame = scoring.scores_frame(qasem, "overlap")
    assert set(frame.columns) == {"level", "item_id", "response_id", "score"} and set(frame["level"]) == {"qa"}


def test_facts_without_any_reference_are_counted_not_scored(tmp_path):
    import_factscore([shared_file("factscore_labeled", "ChatGPT.jsonl")], "f")
    project = Project.objects.get(name="f")
    job = _score("--project", "f", "--scorer", "overlap", "--inline")
    n_facts = AtomicFact.objects.filter(response__project=project).count()
    assert job["result"]["fact"] == 0 and job["result"]["no_reference"] == n_facts  # sources hold no text
    assert not ItemScore.objects.exists()


def test_unknown_project_scorer_or_missing_settings_are_command_errors(qasem, settings):
    with pytest.raises(CommandError, match="no project named 'nope'"):
        _score("--project", "nope")
    with pytest.raises(CommandError, match="unknown scorer 'imported'.*import_scores"):
        _score("--project", "q", "--scorer", "imported")
    settings.SCORER_NLI_MODEL_DIR = ""
    with pytest.raises(CommandError, match="SCORER_NLI_MODEL_DIR"):
        _score("--project", "q", "--scorer", "nli")
    assert not Job.objects.filter(kind=Job.Kind.SCORE).exists()


def test_a_failing_scorer_fails_the_job_and_keeps_what_was_written(qasem, monkeypatch):
    class Flaky:
        name, version = "flaky", "1"
        calls = 0

        def score_batch(self, pairs):
            Flaky.calls += 1
            if Flaky.calls > 1:
                raise RuntimeError("model went away")
            return [registry.get_scorer("overlap").score_batch([p])[0] for p in pairs]

    monkeypatch.setitem(registry._FACTORIES, "flaky", lambda **_: Flaky())
    monkeypatch.setattr(registry, "_CACHE", {})
    monkeypatch.setattr(scoring, "CHUNK", 5)
    with pytest.raises(CommandError, match="model went away"):
        _score("--project", "q", "--scorer", "flaky", "--inline")
    assert ItemScore.objects.filter(scorer="flaky").count() == 5
    job = Job.objects.get(kind=Job.Kind.SCORE)
    assert job.status == Job.Status.FAILED and job.done == 5
    Flaky.calls = -1000  # it works again: resuming scores only the rest
    scoring.run_score_job(scoring.jobs.resume(job, queue=False).pk)
    assert ItemScore.objects.filter(scorer="flaky").count() == QA.objects.filter(response__project=qasem).count()


def _import(path, *args):
    out = StringIO()
    call_command("import_scores", str(path), "--project", "q", *args, stdout=out)
    return out.getvalue()


def test_imported_scores_csv_and_jsonl(qasem, tmp_path):
    qas = list(QA.objects.filter(response__project=qasem).order_by("id").values_list("id", flat=True)[:3])
    csv_file = tmp_path / "minicheck.csv"
    csv_file.write_text("item_id,score\n" + "".join(f"{pk},{0.1 * (i + 1)}\n" for i, pk in enumerate(qas)))
    assert "imported 3 QA scores and 0 fact scores as minicheck 1" in _import(csv_file, "--scorer", "MiniCheck")
    assert sorted(ItemScore.objects.filter(scorer="minicheck").values_list("score", flat=True)) == pytest.approx([0.1, 0.2, 0.3])
    jsonl = tmp_path / "ragas.jsonl"
    jsonl.write_text("\n".join(json.dumps({"item_id": pk, "score": 1, "kind": "qa"}) for pk in qas) + "\n")
    _import(jsonl, "--scorer", "ragas", "--scorer-version", "0.2")
    assert ItemScore.objects.filter(scorer="ragas", version="0.2", score=1.0).count() == 3


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("item_id,score\n{a},0.5\n{a},0.7\n", "line 3, field item_id: qa {a} already scored on line 2"),
        ("item_id,score\n{a},0.5\n{b},1.5\n", r"line 3, field score: a score must lie in \[0, 1\]"),
        ("item_id,score\n{a},0.5\n{b},high\n", "line 3, field score: expected a number, got 'high'"),
        ("item_id,score\n{a},0.5\n99999999,0.1\n", "line 3, field item_id: project 'q' has no qa 99999999"),
        ("item_id,score,kind\n{a},0.5,qa\n{b},0.5,sentence\n", "line 3, field kind: unknown kind 'sentence'"),
        ("id,score\n{a},0.5\n", "line 2, field item_id: missing field"),
    ],
)
def test_imported_scores_are_all_or_nothing_with_located_errors(qasem, tmp_path, content, message):
    a, b = QA.objects.filter(response__project=qasem).order_by("id").values_list("id", flat=True)[:2]
    path = tmp_path / "scores.csv"
    path.write_text(content.format(a=a, b=b))
    with pytest.raises(CommandError, match=f"nothing imported: scores.csv, {message.format(a=a)}"):
        _import(path, "--scorer", "minicheck")
    assert not ItemScore.objects.exists()


def test_imported_scores_cannot_take_a_builtin_name(qasem, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"item_id": 1, "score": 0.5}) + "\n")
    with pytest.raises(CommandError, match="built-in scorer"):
        _import(path, "--scorer", "embedded")


def test_evaluate_scorer_json_by_dataset(qasem):
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score

    from annotation_tasks.services import frames

    _score("--project", "q", "--scorer", "overlap", "--inline")
    out = StringIO()
    call_command("evaluate_scorer", "--project", "q", "--scorer", "overlap", "--by", "dataset", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert set(result["by_group"]) == {"cliff", "factscore", "verifiability"}
    assert set(result["all"]) >= {"items", "bacc", "auc"} and result["level"] == "qa"
    # The figures are those of the human majority against the stored scores, computed here independently.
    responses = frames.responses_frame(qasem)
    labels = frames.labels_frame(qasem, levels=["qa"], responses=responses)
    counts = labels.groupby("item_id")["label"].agg(lambda v: (v == "supported").sum() * 2 > len(v))
    scores = dict(ItemScore.objects.filter(scorer="overlap").values_list("qa_id", "score"))
    y = counts.to_numpy()
    s = np.array([scores[i] for i in counts.index])
    assert result["all"]["items"] == len(y)
    assert result["all"]["bacc"] == pytest.approx(balanced_accuracy_score(y, s >= 0.5) * 100)
    assert result["all"]["auc"] == pytest.approx(roc_auc_score(y, s) * 100)
    assert result["roc"] and result["calibration"]["bins"]
    assert result["responses"]["responses"] == responses.shape[0]


def test_evaluate_scorer_prefers_gold_and_reports_errors(qasem):
    from annotation_tasks.models import GoldLabel
    from annotation_tasks.services import frames

    _score("--project", "q", "--scorer", "overlap", "--inline")
    before = scoring.evaluate_scorer("q", "overlap")["all"]["supported_pct"]
    flipped = list(QA.objects.filter(response__project=qasem).order_by("id")[:10])
    truth = scoring.human_truth(qasem, "qa", frames.responses_frame(qasem))
    majority = dict(zip(truth["item_id"], truth["supported"], strict=True))
    GoldLabel.objects.bulk_create(
        [GoldLabel(qa=qa, value="not_supported" if majority[qa.pk] else "supported") for qa in flipped]
    )
    after = scoring.evaluate_scorer("q", "overlap")["all"]["supported_pct"]
    changed = sum(1 if not majority[qa.pk] else -1 for qa in flipped)
    assert after - before == pytest.approx(changed / len(majority) * 100)
    with pytest.raises(CommandError, match="has no scores of 'minicheck'"):
        call_command("evaluate_scorer", "--project", "q", "--scorer", "minicheck", stdout=StringIO())


def test_report_json_carries_each_scorer_with_curves(qasem):
    from annotation_tasks.services.reports import build_report

    assert build_report("q")["scores"] == []
    _score("--project", "q", "--scorer", "overlap", "--inline")
    section = build_report("q", by="dataset")["scores"]
    assert [s["scorer"] for s in section] == ["overlap"]
    direct = scoring.evaluate_scorer("q", "overlap", by="dataset")
    assert section[0]["by_group"] == direct["by_group"] and section[0]["all"] == direct["all"]
    roc, bins = section[0]["roc"], section[0]["calibration"]["bins"]
    assert roc[0]["fpr"] == 0.0 and roc[-1]["tpr"] == 1.0
    assert sum(b["items"] for b in bins) == direct["all"]["items"]


def test_the_score_job_kind_queues_the_score_task():
    from annotation_tasks import celery_tasks
    from annotation_tasks.services import jobs

    assert jobs.KINDS[Job.Kind.SCORE].task == scoring.SCORE_TASK == celery_tasks.score_items.name
    assert jobs.KINDS[Job.Kind.SCORE].auto_resume


def test_pairwise_judgments_meet_the_metric_preference(tmp_path):
    """Humans prefer, per source, the response whose QAs they found more supported; the evaluation's agreement is
    the share of those pairs where the overlap scorer's faithfulness orders the two the same way."""
    from annotation_tasks.models import Assignment, PairwisePreference, Response, Unit
    from annotation_tasks.services import frames

    lines = shared_file("qasem_consistency", "dev.jsonl").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "cliff_pairs.jsonl"
    path.write_text("\n".join(lines[:16]) + "\n", encoding="utf-8")  # 8 cliff sources, bart and pegasus each
    import_qasem_release(path, "q")
    qasem = Project.objects.get(name="q")
    _score("--project", "q", "--scorer", "overlap", "--inline")
    truth = scoring.human_truth(qasem, "qa", frames.responses_frame(qasem))
    human = truth.groupby("response_id")["supported"].mean()
    scores = dict(ItemScore.objects.filter(scorer="overlap").values_list("qa_id", "score"))
    metric = truth.assign(p=truth["item_id"].map(scores) >= 0.5).groupby("response_id")["p"].mean()
    expected, pairs = [], 0
    for unit in Unit.objects.filter(project=qasem):
        responses = list(Response.objects.filter(unit_responses__unit=unit).distinct().order_by("id")[:2])
        if len(responses) < 2:
            continue
        a, b = responses
        score = 1 if human[a.pk] > human[b.pk] else 5 if human[a.pk] < human[b.pk] else 3
        for assignment in Assignment.objects.filter(unit=unit):
            PairwisePreference.objects.create(assignment=assignment, unit=unit, response_a=a, response_b=b, score=score)
        pairs += 1
        if score != 3:
            expected.append(np.sign(metric[a.pk] - metric[b.pk]) == np.sign(human[a.pk] - human[b.pk]))
    assert pairs and expected
    result = scoring.evaluate_scorer("q", "overlap")["pairwise"]["consistency"]
    assert result["pairs"] == pairs and result["decided_pairs"] == len(expected)
    assert result["agreement_pct"] == pytest.approx(np.mean(expected) * 100)
