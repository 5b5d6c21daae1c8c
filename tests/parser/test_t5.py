"""The T5 backend: prompt format, post-processing of canned outputs, and the real loading/generation code on a
tiny T5 built in a temp dir (taught one sentence, so its output is predictable)."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from parser.t5 import T5Parser, build_prompt, find_answer, postprocess  # noqa: E402
from tests.parser.tiny_models import teach, tiny_nominal_classifier, tiny_t5  # noqa: E402

SENTENCE = "The fox jumped over the fence .".split()
TARGET = "who _ _ jumped _ _ _ ? The fox <extra_id_2> what did someone jump _ over _ ? the fence"


def test_prompt_marks_the_predicate_without_spaces() -> None:
    assert build_prompt(SENTENCE, 2) == "Generate QA pairs: The fox <extra_id_0>jumped<extra_id_1> over the fence ."


def test_postprocess_canned_output() -> None:
    decoded = (
        "<pad> who _ _ jumped _ _ _ ? The fox<extra_id_3>fox <extra_id_2> what did someone jump _ over _ ?"
        " the fence <extra_id_2> why foo bar baz ? the fence <extra_id_2> where did someone jump _ _ _ ? the moon</s>"
    )
    qas, dropped = postprocess(decoded, SENTENCE, 2, offset=10)
    assert dropped == 1  # "why foo bar baz" is no 7-slot question
    assert [(q.raw_question, q.question, q.role) for q in qas] == [
        (("who", "_", "_", "jumped", "_", "_", "_"), "Who jumped?", "R0"),
        (("what", "did", "someone", "jump", "_", "over", "_"), "What did someone jump over?", "R1"),
    ]
    assert [(a.start, a.end, a.text) for a in qas[0].answers] == [(10, 12, "The fox"), (11, 12, "fox")]
    assert [(a.start, a.end) for a in qas[1].answers] == [(14, 16)]  # "the moon" is not in the sentence: no QA


def test_a_semicolon_inside_an_answer_is_part_of_it() -> None:
    """qasem_parser splits answers on <extra_id_3> only: 'rain; snow' is one answer, not two."""
    tokens = "It brought rain ; snow fell .".split()
    qas, _ = postprocess("what _ _ brought something _ _ ? rain; snow", tokens, 1)
    assert [(a.start, a.end) for a in qas[0].answers] == [(2, 5)]
    qas, _ = postprocess("what _ _ brought something _ _ ? rain<extra_id_3>snow", tokens, 1)
    assert [(a.start, a.end) for a in qas[0].answers] == [(2, 3), (4, 5)]


def test_answers_match_ignoring_spaces_nearest_the_predicate() -> None:
    tokens = "the dog saw the cat and the cat , President-elect , saw the dog".split()
    assert find_answer(tokens, "the cat", predicate=2) == (3, 5)
    assert find_answer(tokens, "the cat", predicate=11) == (6, 8)
    assert find_answer(tokens, "the dog", predicate=11) == (12, 14)
    assert find_answer(tokens, "the dog", predicate=0) == (0, 2)
    assert find_answer(tokens, "cat, President-elect,", predicate=0) == (7, 11)
    assert find_answer(tokens, "THE CAT", predicate=0) == (3, 5)  # case-insensitive fallback
    assert find_answer(tokens, "a horse", predicate=0) is None


@pytest.fixture(scope="module")
def taught_model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("tiny-t5")
    prompt = build_prompt(SENTENCE, 2)
    words = sorted({w for w in prompt.replace("<extra_id_0>", " ").replace("<extra_id_1>", " ").split()}
                   | set(TARGET.split()) - {"<extra_id_2>"} | {"It", "rained", "storm", "destruction", "of", "city"})
    model, tokenizer = tiny_t5(path, words)
    teach(model, tokenizer, [(prompt, TARGET)], path)
    return path


def test_tiny_model_loads_and_generates_frames(taught_model: Path) -> None:
    parser = T5Parser(model_dir=str(taught_model), device="cpu", num_beams=2, max_length=40, copular=False)
    frames = parser.parse_tokenized([SENTENCE], predicates=[[2]])[0]
    assert [(f.token_index, f.text, f.verb_form, f.kind) for f in frames] == [(2, "jumped", "jump", "verbal")]
    assert [(q.question, [(a.start, a.end) for a in q.answers]) for q in frames[0].qas] == [
        ("Who jumped?", [(0, 2)]),
        ("What did someone jump over?", [(4, 6)]),
    ]


def test_text_parse_detects_predicates_and_offsets_answers(taught_model: Path) -> None:
    parser = T5Parser(model_dir=str(taught_model), device="cpu", num_beams=2, max_length=40, copular=False)
    parsed = parser.parse("It rained. The fox jumped over the fence.")
    assert parsed.backend == "t5" and len(parsed.sentences) == 2
    jumped = next(f for f in parsed.frames if f.text == "jumped")
    assert jumped.token_index == 5 and jumped.sentence_index == 1
    assert {parsed.span_text(q.answers[0].start, q.answers[0].end) for q in jumped.qas} == {"The fox", "the fence"}
    assert any(f.text == "rained" for f in parsed.frames)  # every verb got its own prompt


def test_models_never_download(tmp_path: Path) -> None:
    parser = T5Parser(model_dir="cattana/no-such-model-here", device="cpu")
    with pytest.raises(OSError):
        parser.load()


@pytest.mark.parametrize(("bias", "eventive"), [(5.0, True), (0.3, False), (-5.0, False)])
def test_nominalization_classifier_takes_the_softmax_above_075(tmp_path: Path, bias: float, eventive: bool) -> None:
    """Label 'True' is id 0 in the release; logits (b, -b) give softmax P(True) = sigmoid(2b): 0.9999, 0.646, ~0.
    At b = 0.3 qanom's averaged sigmoid (0.574) would pass 0.5; the package's softmax does not pass 0.75."""
    from parser.nominal_classifier import NominalizationClassifier

    words = "The storm caused the destruction of the city .".split()
    tags = ["DT", "NN", "VBD", "DT", "NN", "IN", "DT", "NN", "."]
    tiny_nominal_classifier(tmp_path, words, true_bias=bias)
    clf = NominalizationClassifier(str(tmp_path), device="cpu")
    probs = clf.probabilities([words])
    assert probs[0][4] == pytest.approx(1 / (1 + math.exp(-2 * bias)), abs=1e-4)
    # every NN/NNS word is scored, not only lexicon candidates; other tags never pass
    assert clf.predict([words], [tags]) == ([[(i, pytest.approx(probs[0][i])) for i in (1, 4, 7)]] if eventive else [[]])


@pytest.mark.parametrize("bias", [5.0, -5.0])
def test_t5_backend_detects_nouns_as_the_package_does(taught_model: Path, tmp_path: Path, bias: float) -> None:
    words = "The storm caused the destruction of peace .".split()
    tiny_nominal_classifier(tmp_path, words, true_bias=bias)
    parser = T5Parser(model_dir=str(taught_model), nominalization_model_dir=str(tmp_path), device="cpu",
                      num_beams=1, max_length=20, copular=False)
    parsed = parser.parse("The storm caused the destruction of peace.")
    nominal = {(f.text, f.verb_form) for f in parsed.frames if f.kind == "nominal"}
    if bias > 0:  # every common noun passes the classifier; the verb-form filter drops "peace" (no verb form)
        assert ("destruction", "destroy") in nominal and not any(t == "peace" for t, _ in nominal)
        assert all(0.75 < f.confidence <= 1 for f in parsed.frames if f.kind == "nominal")
    else:
        assert nominal == set()
    assert [f.text for f in parsed.frames if f.kind == "verbal"] == ["caused"]


def test_parse_tokenized_detects_predicates_on_docs(taught_model: Path) -> None:
    """evaluate_parser --backend t5 runs detection on one Doc per sentence (no Span.start there)."""
    from parser import evaluation

    parser = T5Parser(model_dir=str(taught_model), device="cpu", num_beams=1, max_length=20, copular=False)
    sentences = [SENTENCE, "The storm caused the destruction of the city .".split()]
    frames = parser.parse_tokenized(sentences, predicates=None)
    assert [f.token_index for f in frames[0] if f.kind == "verbal"] == [2]
    assert all(0 <= f.token_index < len(s) for fs, s in zip(frames, sentences, strict=True) for f in fs)
    gold = evaluation.GoldSet({"s1": sentences[1]}, candidates={("s1", 4): True, ("s1", 7): False})
    gold.qas[("s1", 4)] = []
    report = evaluation.evaluate_nominal(gold, parser.parse_tokenized)
    assert report.gold_predicates == 1 and report.predicates.tp + report.predicates.fn == 1


def test_long_inputs_are_not_truncated(taught_model: Path) -> None:
    parser = T5Parser(model_dir=str(taught_model), device="cpu", num_beams=1, max_length=10, copular=False)
    parser.load()
    parser._tokenizer.model_max_length = 512  # as the released T5 tokenizers declare
    tokens = ["the", "fox"] * 300 + ["jumped", "."]
    enc = parser.encode([build_prompt(tokens, 600)])
    ids = enc["input_ids"][0].tolist()
    assert len(ids) > 600 and ids[-1] == parser._tokenizer.eos_token_id
    assert parser._tokenizer.convert_tokens_to_ids("<extra_id_1>") in ids  # the predicate marker survives
