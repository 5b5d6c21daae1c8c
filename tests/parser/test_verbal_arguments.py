"""The trained scorer of verbal answers: the versioned artefact, its training script, and what it does to QAs."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from parser import evaluation
from parser.embedded import EmbeddedParser, load_spacy
from parser.embedded.verbal import (
    ARGUMENT_MODEL_PATH,
    VERBAL_ARGUMENT_FEATURE_VERSION,
    argument_model,
    candidate_qas,
)
from parser.training.train_verbal_arguments import extract, precision_first, split_gain, split_gain_of
from tests.conftest import shared_file


def test_artefact_is_small_plain_json_fitted_on_wikipedia_dev() -> None:
    raw = ARGUMENT_MODEL_PATH.read_bytes()
    assert len(raw) < 200_000
    data = json.loads(raw)
    assert data["feature_version"] == VERBAL_ARGUMENT_FEATURE_VERSION and 0 < data["threshold"] < 1
    assert data["trained_on"] == "wikipedia.dev.gold.csv"  # wikinews dev, where figures are reported, stays unseen
    model = argument_model()
    assert model is not None and model.threshold == data["threshold"]


def test_verbal_confidence_is_the_scorer_probability_of_the_kept_answers(embedded: EmbeddedParser) -> None:
    from spacy.tokens import Doc

    words = "The mayor said on Monday that it would close the old bridge and the tunnel .".split()
    nlp = load_spacy()
    doc = nlp(Doc(nlp.vocab, words=words))
    model = argument_model()
    assert model is not None
    proposed = {}
    for v in (doc[2], doc[8]):
        candidates, context = candidate_qas(v, 0)
        for qa, feats in candidates:
            for a, f in zip(qa.answers, feats, strict=True):
                proposed[(qa.question, a.start, a.end)] = model.probability([*f, *context])
    frames = embedded.parse_tokenized([words], predicates=[[2, 8]])[0]
    kept = {(qa.question, a.start, a.end): qa.confidence for f in frames for qa in f.qas for a in qa.answers}
    assert kept and set(kept) <= set(proposed)
    for key, p in proposed.items():
        if abs(p - model.threshold) > 1e-9:  # the frame sums the verb's weights first: rounding may differ
            assert (key in kept) == (p >= model.threshold)
    for f in frames:
        for qa in f.qas:
            best = max(proposed[(qa.question, a.start, a.end)] for a in qa.answers)
            assert qa.confidence == pytest.approx(best, abs=1e-4)
    # "the old bridge and the tunnel" answers "What would something close?" once per conjunct
    close = next(qa for f in frames if f.text == "close" for qa in f.qas if qa.question == "What would something close?")
    assert [" ".join(words[a.start:a.end]) for a in close.answers] == ["the old bridge", "the tunnel"]


def _write_gold(tmp_path: Path) -> tuple[Path, Path]:
    """A two-sentence QA-SRL GS file: the gold answers for 'founded' are the founder and the company only."""
    sentences = tmp_path / "tiny.full.csv"
    gold = tmp_path / "tiny.gold.csv"
    rows = [("Wiki1k:wikinews:1:1:1", "John Smith founded the company in London .", 2,
             [("who", "", "", "_", "0:2"), ("what", "did", "someone", "_", "3:5")])]
    with sentences.open("w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(["qasrl_id", "tokens", "sentence"])
        for sid, text, _, _ in rows:
            w.writerow([sid, text, text])
    with gold.open("w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(["qasrl_id", "verb_idx", "verb", "question", "answer_range", "wh", "aux", "subj", "obj", "prep",
                    "obj2", "verb_prefix", "is_passive", "is_negated", "verb_slot_inflection"])
        for sid, text, idx, qas in rows:
            for wh, aux, subj, obj, answer in qas:
                w.writerow([sid, idx, text.split()[idx], "?", answer, wh, aux, subj, obj, "", "", "", "False", "False", "Past"])
    return gold, sentences


def test_training_labels_each_proposed_answer_by_the_gold_match(tmp_path: Path) -> None:
    gold, sentences = _write_gold(tmp_path)
    examples, gold_total = extract(evaluation.load_qasrl_gs(gold, sentences), 0.5)
    assert gold_total == 2
    by_rule = {next(f for f in e["features"] if f.startswith("r="))[2:]: e["label"] for e in examples}
    # the subject and the object match gold; "in London" is an answer gold lacks
    assert by_rule["subj"] is True and by_rule["dobj"] is True and by_rule["prep"] is False


def test_precision_first_objective_prefers_any_threshold_that_reaches_the_precision() -> None:
    import numpy as np

    labels = np.array([1, 1, 1, 0, 1, 0, 0, 1])
    objective = precision_first(gold_total=6, min_precision=0.8)
    strict = np.array([1, 1, 1, 0, 0, 0, 0, 0], dtype=bool)  # P 1.0, R 0.5
    loose = np.ones(8, dtype=bool)  # P 0.625, R 0.83: the better F1, but under the precision asked for
    assert objective(labels, strict) > objective(labels, loose)
    assert precision_first(gold_total=6, min_precision=0.0)(labels, loose) > objective(labels, strict)


@pytest.mark.shared_data
def test_verbal_arguments_on_wikinews_dev_do_not_regress(embedded: EmbeddedParser) -> None:
    """Held out from the scorers' fitting; 0.655 before issue 11, 0.661 before the scorer, 0.667 (P 0.777) before
    the boundary step, 0.674 (P 0.771) with it, 0.677 (P 0.769) with appositive and example-list answers and
    the verb-level features. The issue's 0.70 / P 0.85 is not reached yet."""
    gold = evaluation.load_qasrl_gs(shared_file("qasrl_gs", "wikinews.dev.gold.csv"),
                                    shared_file("qasrl_gs", "wikinews.dev.full.csv"))
    report = evaluation.evaluate_verbal(gold, embedded.parse_tokenized, evaluation.QA_SRL_GS_IOU)
    assert report.arguments.f1 >= 0.674 and report.arguments.precision >= 0.765, report.as_dict()
    assert report.valid_questions == report.questions


def _qas(embedded: EmbeddedParser, text: str, verb: str) -> dict[str, list[str]]:
    words = text.split()
    frames = embedded.parse_tokenized([words])[0]
    frame = next(f for f in frames if f.text == verb)
    return {qa.question: [" ".join(words[a.start:a.end]) for a in qa.answers] for qa in frame.qas}


def test_coordinated_verbs_share_the_object_of_the_last(embedded: EmbeddedParser) -> None:
    # QA-SRL GS asks "Who did someone meet?" -> Mexico; the first verb had no object of its own before
    assert _qas(embedded, "The Gliders met and defeated Mexico in the final .", "met")["Who did someone meet?"] == ["Mexico"]
    # a verb with its own complement keeps it and takes no other object
    looked = _qas(embedded, "She looked at the map and found the road .", "looked")
    assert ["at the map"] in looked.values() and ["the road"] not in looked.values()


def test_a_pronoun_subject_also_answers_with_its_antecedent(embedded: EmbeddedParser) -> None:
    qas = _qas(embedded, "The minister arrived late because he missed the train .", "missed")
    assert qas["Who missed something?"] == ["he", "The minister"]


def test_the_boundary_step_cuts_an_answer_in_two_only_when_its_scorer_says_so(
        embedded: EmbeddedParser, monkeypatch: pytest.MonkeyPatch) -> None:
    from parser.embedded import verbal
    from parser.embedded.linear import LinearModel

    text = "She plays a key role in semiotics ."
    monkeypatch.setattr(verbal, "split_model", lambda: None)
    assert "a key role in semiotics" in sum(_qas(embedded, text, "plays").values(), [])
    monkeypatch.setattr(verbal, "split_model", lambda: LinearModel({}, 10.0, 0.5))  # every cut passes
    words = text.split()
    frame = next(f for f in embedded.parse_tokenized([words])[0] if f.text == "plays")
    answers = {qa.question: ([" ".join(words[a.start:a.end]) for a in qa.answers], qa.confidence) for qa in frame.qas}
    assert answers["What does someone play?"][0] == ["a key role"]
    # the cut-off PP is asked as the verb's own PP, with the cut's probability as its confidence
    assert answers["Where does someone play something?"] == (["in semiotics"], pytest.approx(1.0, abs=1e-4))
    monkeypatch.setattr(verbal, "split_model", lambda: LinearModel({}, -10.0, 0.5))  # no cut passes
    assert "a key role in semiotics" in sum(_qas(embedded, text, "plays").values(), [])


def test_a_cut_is_labelled_by_the_matches_it_adds_one_to_one() -> None:
    from parser.embedded.verbal import Split

    proposed = [(0, 2), (3, 10)]
    gold = [(0, 2), (3, 6), (6, 10)]
    base = len(evaluation.match_arguments(proposed, gold, 0.5))  # (3, 10) matches (6, 10) at IOU 4/7
    assert base == 2
    right = Split(1, (3, 10), (3, 6), (6, 10), None, [])
    assert split_gain_of(right, proposed, gold, 0.5, base) == 1
    # a cut whose head part matches nothing adds nothing (and one unmatched answer)
    wrong = Split(1, (3, 10), (3, 4), (4, 10), None, [])
    assert split_gain_of(wrong, proposed, gold, 0.5, base) == 0
    import numpy as np

    objective = split_gain(matched=2, proposed=2, gold_total=3, gains=[1, 0], min_precision=0.0)
    kept_right, kept_both = np.array([True, False]), np.array([True, True])
    assert objective(np.array([1, 0]), kept_right) == pytest.approx(1.0)  # 3 answers, 3 matches, 3 gold
    assert objective(np.array([1, 0]), kept_both) < objective(np.array([1, 0]), kept_right)


def test_an_appositive_the_noun_phrase_was_cut_before_is_a_second_answer_the_scorer_weighs() -> None:
    from spacy.tokens import Doc

    nlp = load_spacy()
    words = "The company hired John Smith , a former banker , in 2005 .".split()
    doc = nlp(Doc(nlp.vocab, words=words))
    candidates, context = candidate_qas(doc[2], 0)
    answers = {qa.question: ([a.text for a in qa.answers], feats) for qa, feats in candidates}
    texts, feats = answers["Who did something hire?"]
    assert texts == ["John Smith", "a former banker"]  # the name first, its appositive beside it
    assert "appos" not in feats[0] and "appos" in feats[1]
    # a phrase without an appositive keeps its single answer, and the verb's answer count (4: bucket 3-4) is a
    # feature its answers share
    assert answers["What hired someone?"][0] == ["The company"]
    assert sum(len(qa.answers) for qa, _ in candidates) == 4 and "nans=3" in context


def test_sentence_connectives_are_not_asked_about_as_adjuncts() -> None:
    from spacy.tokens import Doc

    nlp = load_spacy()
    words = "In other words , the council then closed the old bridge on Monday .".split()
    doc = nlp(Doc(nlp.vocab, words=words))
    candidates, _ = candidate_qas(doc[words.index("closed")], 0)
    answers = [a.text for qa, _ in candidates for a in qa.answers]
    assert "In other words" not in answers and "then" not in answers
    assert "on Monday" in answers and "the council" in answers  # the verb's real arguments stay


def test_a_list_of_examples_answers_once_per_item_beside_the_phrase_it_illustrates() -> None:
    from spacy.tokens import Doc

    nlp = load_spacy()
    words = "Influenza may also affect other animals , including pigs , horses and birds .".split()
    doc = nlp(Doc(nlp.vocab, words=words))
    candidates, _ = candidate_qas(doc[words.index("affect")], 0)
    answers = {qa.question: ([a.text for a in qa.answers], feats) for qa, feats in candidates}
    texts, feats = answers["What might someone affect?"]
    assert texts == ["other animals", "pigs", "horses", "birds"]
    assert "example" not in feats[0] and all("example" in f for f in feats[1:])  # the scorer weighs the items apart
    assert answers["Who might affect something?"][0] == ["Influenza"]


def test_precision_first_objective_breaks_f1_ties_towards_precision() -> None:
    import numpy as np

    # two choices with the same F1 (2 of 4 gold with no error, 3 with 2 errors: both 0.667): the precise one wins
    labels = np.array([1, 1, 1, 0, 0])
    objective = precision_first(gold_total=4, min_precision=0.0)
    precise = np.array([1, 1, 0, 0, 0], dtype=bool)  # P 1.0, R 0.5, F1 0.667
    loose = np.ones(5, dtype=bool)  # P 0.6, R 0.75, F1 0.667
    assert objective(labels, precise) > objective(labels, loose)


def test_only_a_single_answer_is_offered_to_the_boundary_step() -> None:
    from spacy.tokens import Doc

    from parser.embedded.verbal import Split

    nlp = load_spacy()
    words = "The manager in Paris , a former banker , sold old cars to farmers in Egypt .".split()
    doc = nlp(Doc(nlp.vocab, words=words))
    splits: list[Split] = []
    candidates, _ = candidate_qas(doc[words.index("sold")], 0, splits)
    answers = {qa.question: [a.text for a in qa.answers] for qa, _ in candidates}
    assert answers["Who sold something?"] == ["The manager in Paris", "a former banker"]
    # "farmers in Egypt" may be cut; the subject may not (a cut would drop its appositive)
    offered = {" ".join(words[sp.span[0]:sp.span[1]]) for sp in splits}
    assert "farmers in Egypt" in offered and "The manager in Paris" not in offered
    assert all(len(candidates[sp.qa][0].answers) == 1 for sp in splits)
