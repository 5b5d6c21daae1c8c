"""The trained eventive-noun detector: the versioned artefact, the training script, and its QANom dev target."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from parser import evaluation
from parser.embedded import EmbeddedParser
from parser.embedded.detector import FEATURE_VERSION, MODEL_PATH, DetectorUnavailable, load_detector
from parser.training.train_nominal_detector import main as train_main
from parser.training.train_nominal_detector import train
from tests.conftest import shared_file


def test_versioned_artefact_is_small_plain_json_of_this_feature_version() -> None:
    raw = MODEL_PATH.read_bytes()
    assert len(raw) < 400_000
    data = json.loads(raw)
    assert data["feature_version"] == FEATURE_VERSION and 0 < data["threshold"] < 1
    assert all(isinstance(w, float) for w in data["weights"].values())
    detector = load_detector()
    assert detector.threshold == data["threshold"] and len(detector.weights) == len(data["weights"])


def test_wrong_feature_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"feature_version": FEATURE_VERSION + 1, "weights": {}, "intercept": 0, "threshold": 0.5}))
    with pytest.raises(DetectorUnavailable, match="retrain"):
        load_detector(str(path))


def test_training_learns_the_signal_and_writes_a_loadable_artefact(tmp_path: Path) -> None:
    rng = random.Random(0)
    examples = []
    for i in range(400):  # 'w=strike' is eventive 90% of the time, 'w=table' 10%; noise features carry nothing
        word, rate = ("strike", 0.9) if i % 2 else ("table", 0.1)
        examples.append({"sid": f"Wiki:doc:{i % 40}:0:{i}", "features": ["bias", f"w={word}", f"noise={rng.randint(0, 3)}"],
                         "label": rng.random() < rate})
    artefact = train(examples)
    assert artefact["weights"]["w=strike"] > 1.0 > -1.0 > artefact["weights"]["w=table"]
    assert 0.2 <= artefact["threshold"] <= 0.7 and artefact["cv_f1"] > 0.8
    path = tmp_path / "detector.json"
    path.write_text(json.dumps(artefact))
    detector = load_detector(str(path))
    assert detector.weights == artefact["weights"]


def test_training_command_runs_on_a_qanom_file(tmp_path: Path) -> None:
    """The script end to end (spaCy, the lexicons, cross-validation) on a slice of the train split."""
    source = shared_file("qanom", "annot.train.csv")
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    small = tmp_path / "annot.small.csv"
    small.write_text("".join(lines[:1500]), encoding="utf-8")
    out = tmp_path / "detector.json"
    train_main(["--train", str(small), "--out", str(out), "--cache", str(tmp_path / "cache.jsonl")])
    data = json.loads(out.read_text())
    assert data["examples"] > 300 and data["feature_version"] == FEATURE_VERSION
    assert (tmp_path / "cache.jsonl").exists()


def test_detected_nouns_carry_the_probability_as_confidence(embedded: EmbeddedParser) -> None:
    parsed = embedded.parse("The destruction of the old bridge by the army angered the villagers.")
    frame = next(f for f in parsed.frames if f.text == "destruction")
    assert frame.kind == "nominal" and load_detector().threshold <= frame.confidence < 1.0
    assert frame.qas and all(qa.confidence <= frame.confidence for qa in frame.qas)


@pytest.mark.shared_data
def test_detection_beats_the_all_candidates_baseline_on_qanom_dev(embedded: EmbeddedParser) -> None:
    report = evaluation.evaluate_nominal(evaluation.load_qanom(shared_file("qanom", "annot.dev.csv")),
                                         embedded.parse_tokenized)
    assert report.predicates.f1 >= 0.80 > report.baseline_detection_f1, report.as_dict()


def test_argument_scorer_artefact_and_training_command(tmp_path: Path) -> None:
    from parser.embedded.nominal import ARGUMENT_FEATURE_VERSION, ARGUMENT_MODEL_PATH, argument_model
    from parser.training.train_nominal_arguments import main as train_arguments

    data = json.loads(ARGUMENT_MODEL_PATH.read_text())
    assert data["feature_version"] == ARGUMENT_FEATURE_VERSION and len(ARGUMENT_MODEL_PATH.read_bytes()) < 400_000
    assert argument_model().threshold == data["threshold"]
    lines = shared_file("qanom", "annot.train.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    small = tmp_path / "annot.small.csv"
    small.write_text("".join(lines[:1500]), encoding="utf-8")
    out = tmp_path / "arguments.json"
    train_arguments(["--train", str(small), "--out", str(out)])
    trained = json.loads(out.read_text())
    assert trained["examples"] > 200 and trained["gold_answers"] > 200
    # the of-phrase is QANom's surest theme: the scorer trusts it more than the clause's subject
    assert trained["weights"].get("rule=of", 0) > trained["weights"].get("rule=clause_subject", 0)


def test_nominal_qa_confidence_is_detection_times_argument(embedded: EmbeddedParser) -> None:
    from parser.embedded.nominal import argument_model

    parsed = embedded.parse("The destruction of the old bridge by the army angered the villagers.")
    frame = next(f for f in parsed.frames if f.text == "destruction")
    floor = frame.confidence * argument_model().threshold
    assert frame.qas and all(floor - 1e-4 <= qa.confidence <= frame.confidence for qa in frame.qas)


@pytest.mark.shared_data
def test_nominal_arguments_on_qanom_dev_do_not_regress(embedded: EmbeddedParser) -> None:
    """0.480 with the hand rules alone, 0.529 with the scorer, 0.551 with the learned generator's paths."""
    report = evaluation.evaluate_nominal(evaluation.load_qanom(shared_file("qanom", "annot.dev.csv")),
                                         embedded.parse_tokenized)
    assert report.arguments.f1 >= 0.545 and report.arguments.precision >= 0.63, report.as_dict()
    assert report.valid_questions == report.questions
