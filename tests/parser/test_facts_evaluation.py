"""The atomic-fact measure against FActScore human facts: words, word-bag F1, one-to-one greedy matching, totals."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from parser.facts import evaluation
from parser.facts.evaluation import greedy_matches, similarity, words


def test_words_are_lowercase_alphanumeric_runs_with_apostrophe_suffixes() -> None:
    assert words("He wrote children's books (1990-95), \"Dust\" [1].") == [
        "he", "wrote", "children's", "books", "1990", "95", "dust", "1"]
    assert words("Kang Dong-won's É") == ["kang", "dong", "won's"]


def test_similarity_is_the_f1_of_word_bags() -> None:
    assert similarity("He is an actor.", "He is an actor") == 1.0
    # overlap 3 (is, an, actor): P = 3/5, R = 3/4
    assert similarity("Doug Sheehan is an actor.", "He is an actor.") == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    # bags, not sets: "the" counted twice on one side, once shared
    assert similarity("the the cat", "the cat") == pytest.approx(2 * (2 / 3) * 1 / (2 / 3 + 1))
    assert similarity("", "He is.") == 0.0 and similarity("A b.", "C d.") == 0.0


def test_matching_is_one_to_one_and_greedy_by_descending_similarity() -> None:
    generated = ["He was born in Seoul.", "He was born in Seoul in 1977."]
    human = ["He was born in 1977.", "He was born in Seoul."]
    pairs = greedy_matches(generated, human)
    # the exact pair is taken first; the other generated fact gets the remaining human fact
    assert [(i, j) for i, j, _ in pairs] == [(0, 1), (1, 0)]
    assert pairs[0][2] == 1.0 and pairs[1][2] == pytest.approx(similarity(generated[1], human[0]))
    # each human fact is taken once: the second generated fact finds no partner left that shares a word
    pairs = greedy_matches(["a b c d", "a b"], ["a b c d e", "x y"])
    assert [(i, j) for i, j, _ in pairs] == [(0, 0)]  # nothing shares a word with "x y"


def test_scores_sum_counts_over_sentences_per_threshold() -> None:
    scores = evaluation.score([
        (["He is an actor.", "He is tall."], ["He is an actor.", "He was born in Seoul.", "He is famous."]),
        (["Doug Sheehan is an actor."], ["He is an actor."]),  # similarity 0.667: counts at 0.5, not at 0.7
    ])
    report = scores.as_dict()
    assert report["sentences"] == 2
    assert report["facts_per_sentence"] == 1.5 and report["human_facts_per_sentence"] == 2.0
    # at 0.5: actor-actor (1.0), tall-famous (he is _: 2/3) and the Sheehan pair -> 3 of 3 generated, 3 of 4 human
    assert report["by_threshold"]["0.5"] == {"precision": 1.0, "recall": 0.75, "f1": round(2 * 0.75 / 1.75, 4)}
    # at 0.7 only the exact pair
    assert report["by_threshold"]["0.7"] == {"precision": round(1 / 3, 4), "recall": 0.25, "f1": round(2 * (1 / 3) * 0.25 / (1 / 3 + 0.25), 4)}


def test_only_relevant_sentences_with_human_facts_are_measured_and_the_backend_sees_all(tmp_path: Path) -> None:
    line = {
        "input": "Question: Tell me a bio of Ada.", "output": "...", "topic": "Ada", "cat": [],
        "annotations": [
            {"text": "Ada was a writer.", "is-relevant": True, "model-atomic-facts": [],
             "human-atomic-facts": [{"text": "Ada was a writer.", "label": "S"}]},
            {"text": "I hope this helps.", "is-relevant": False, "model-atomic-facts": [], "human-atomic-facts": None},
            {"text": "She died.", "is-relevant": True, "model-atomic-facts": [], "human-atomic-facts": []},
        ],
    }
    abstained = {**line, "topic": "Bo", "annotations": None}
    path = tmp_path / "labeled.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(abstained) + "\n", encoding="utf-8")
    responses = evaluation.load_factscore_labeled(path)
    assert len(responses) == 1 and responses[0].human_facts == (("Ada was a writer.",), None, None)
    calls = []

    def split(sentences, wanted):
        calls.append((list(sentences), list(wanted)))
        return [[s] for s in sentences]

    report = evaluation.evaluate_labeled(responses, split).as_dict()
    assert calls == [(["Ada was a writer.", "I hope this helps.", "She died."], [0])]
    assert report["sentences"] == 1 and report["by_threshold"]["0.7"]["f1"] == 1.0


def test_a_malformed_labeled_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"annotations": [{"text": 3}]}\n', encoding="utf-8")
    with pytest.raises(evaluation.LabeledFileError, match=r"bad\.jsonl:1: annotations\[0\]\.text"):
        evaluation.load_factscore_labeled(path)


def _labeled_file(tmp_path: Path) -> Path:
    line = {
        "input": "Question: Tell me a bio of Ann Lee.", "output": "...", "topic": "Ann Lee", "cat": [],
        "annotations": [
            {"text": "Ann Lee is a Canadian poet.", "is-relevant": True,
             "model-atomic-facts": [{"text": "Ann Lee is a poet."}],
             "human-atomic-facts": [{"text": "Ann Lee is Canadian.", "label": "S"}, {"text": "Ann Lee is a poet.", "label": "S"}]},
        ],
    }
    path = tmp_path / "labeled.jsonl"
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def test_the_releases_own_model_facts_can_be_scored(tmp_path: Path) -> None:
    report = evaluation.evaluate_released(evaluation.load_factscore_labeled(_labeled_file(tmp_path))).as_dict()
    assert report["facts_per_sentence"] == 1.0 and report["by_threshold"]["0.7"]["precision"] == 1.0
    assert report["by_threshold"]["0.7"]["recall"] == 0.5


def test_evaluate_facts_command_prints_the_json_report(tmp_path: Path, capsys) -> None:
    from django.core.management import call_command

    call_command("evaluate_facts", str(_labeled_file(tmp_path)), "--backend", "embedded", "--json")
    report = json.loads(capsys.readouterr().out)
    assert {"sentences", "facts_per_sentence", "human_facts_per_sentence", "by_threshold"} <= set(report)
    assert report["sentences"] == 1 and set(report["by_threshold"]) == {"0.5", "0.7"}
    assert report["by_threshold"]["0.7"]["f1"] == 1.0  # 'Ann Lee is Canadian.' and 'Ann Lee is a poet.'
