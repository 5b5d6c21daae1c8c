"""The FActScore estimator calibrated on the shared InstructGPT and ChatGPT files (bench/bench_factscore_estimator.py):
one fact threshold, within 3 points of the human FActScore per system when fitted on the other system; topic
matching folds accents."""
from __future__ import annotations

import json
from io import StringIO

import pandas as pd
import pytest
from django.core.management import call_command

from annotation_tasks.analysis.factscore_calibration import fit_threshold, system_errors
from annotation_tasks.analysis.metric_eval import evaluate
from annotation_tasks.models import Project, RetrievedPassage
from annotation_tasks.scoring.embedded import DEFAULT_COEFFICIENTS, EmbeddedScorer
from annotation_tasks.scoring.text import fold_title
from annotation_tasks.services import knowledge
from annotation_tasks.services.imports import import_factscore
from tests.conftest import shared_file
from tests.scoring.test_recomputed_figures import bench


def test_titles_fold_accents_case_and_spaces():
    assert fold_title("Roselyn Sánchez") == fold_title("roselyn  SANCHEZ") == "roselyn sanchez"
    assert fold_title("Annika Sörenstam") == fold_title("Annika Sorenstam")
    assert fold_title("Vaira Vīķe-Freiberga") == "vaira vike-freiberga"


@pytest.mark.django_db
def test_a_topic_with_accents_finds_its_page_written_without(tmp_path):
    lines = shared_file("factscore_labeled", "InstructGPT.jsonl").read_text(encoding="utf-8").splitlines()
    line = lines[163]
    assert json.loads(line)["topic"] == "Roselyn Sánchez"
    path = tmp_path / "one.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    import_factscore([path], "accents")
    page = tmp_path / "pages.jsonl"
    page.write_text(json.dumps({"title": "Roselyn Sanchez", "text": "Roselyn Sanchez is a Puerto Rican actress, "
                                "singer and dancer. She starred in Without a Trace."}) + "\n", encoding="utf-8")
    call_command("import_knowledge", str(page), "--project", "accents", "--topic-only", stdout=StringIO())
    project = Project.objects.get(name="accents")
    assert RetrievedPassage.objects.filter(fact__response__project=project).exists()
    counts = knowledge.retrieve_for_facts(project, topic_only=True)
    assert counts["topics_matched"] == 1 and counts["topics_unmatched"] == 0 and counts["with_passages"] > 0


def test_threshold_fit_and_errors_by_hand():
    rows = [  # system A: two responses; B: one. Scores chosen so t = 0.3 makes A's estimate meet the human share
        {"system": "A", "response": "a1", "supported": True, "score": 0.35},
        {"system": "A", "response": "a1", "supported": False, "score": 0.2},
        {"system": "A", "response": "a2", "supported": True, "score": 0.45},
        {"system": "A", "response": "a2", "supported": True, "score": 0.6},
    ]
    at_half = system_errors(rows, 0.5)["A"]
    assert at_half["human"] == pytest.approx(75.0) and at_half["metric"] == pytest.approx(25.0)
    t = fit_threshold(rows)
    assert 0.2 < t <= 0.35 and system_errors(rows, t)["A"]["error"] == pytest.approx(0.0)
    assert t == pytest.approx(0.35)  # of the exact thresholds (0.205..0.35) the nearest to 0.5


def test_evaluate_adds_the_calibrated_system_estimates():
    items = pd.DataFrame({"item_id": range(4), "response_id": [1, 1, 2, 2], "system": ["A", "A", "B", "B"],
                          "supported": [True, False, True, True], "score": [0.4, 0.1, 0.45, 0.9]})
    out = evaluate(items, estimator_threshold=0.35, curves=False)
    assert out["systems"]["threshold"] == 0.5 and out["systems_calibrated"]["threshold"] == 0.35
    calibrated = {s["system"]: s for s in out["systems_calibrated"]["systems"]}
    assert calibrated["A"]["metric"] == 50.0 and calibrated["B"]["metric"] == 100.0
    assert evaluate(items, curves=False)["systems_calibrated"] is None


@pytest.mark.slow  # ~10 s: BM25 and the embedded scorer over 510 facts
def test_calibrated_estimator_is_within_3_points_per_system_recomputed():
    rows = bench("bench_factscore_estimator").fact_rows(shared_file("factscore_labeled", "ChatGPT.jsonl").parent.parent)
    assert len(rows) > 400 and len({r["response"] for r in rows}) == 18
    frame = pd.DataFrame(rows)
    strict = system_errors(frame, 0.5)
    assert all(e["error"] < -5 for e in strict.values())  # the uncalibrated estimator is too strict
    for fit_on, report_on in (("InstructGPT", "ChatGPT"), ("ChatGPT", "InstructGPT")):
        t = fit_threshold(frame[frame["system"] == fit_on])
        assert abs(system_errors(frame, t)[report_on]["error"]) <= 3.0, (fit_on, t)
    shipped = json.loads((DEFAULT_COEFFICIENTS.parent / "estimator.json").read_text())["embedded"]
    assert shipped["version"] == EmbeddedScorer().version  # calibrated for the shipped model
    assert shipped["fact_threshold"] == fit_threshold(frame)
    assert all(abs(e["error"]) <= 3.0 for e in system_errors(frame, shipped["fact_threshold"]).values())
