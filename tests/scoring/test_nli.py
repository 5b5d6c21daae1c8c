"""The nli scorer on tiny random models built here: real loading, batching, chunking and label choice."""
from __future__ import annotations

import pytest

from annotation_tasks.scoring.base import Claim, Reference, ScorerError
from tests.scoring.tiny import tiny_cross_encoder

pytest.importorskip("torch")
pytest.importorskip("transformers")

WORDS = "muir finished fourth third in london the race she did not run glasgow who something ? . premise: hypothesis: 1 0".split()
NLI_LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}


def _direct(model, tokenizer, premise: str, hypothesis: str, index: int) -> float:
    import torch

    enc = tokenizer([premise], [hypothesis], return_tensors="pt", truncation="only_first", max_length=512)
    with torch.inference_mode():
        return torch.softmax(model(**enc).logits.float(), dim=-1)[0, index].item()


def test_entailment_probability_of_each_pair_in_batches(tmp_path):
    from annotation_tasks.scoring.nli import NLIScorer

    model, tokenizer = tiny_cross_encoder(tmp_path, WORDS, NLI_LABELS)
    scorer = NLIScorer(str(tmp_path), device="cpu", batch_size=2)
    pairs = [
        (Reference("muir finished fourth in london ."), Claim.fact("muir finished third .")),
        (Reference("she did not run in glasgow ."), Claim.fact("she did run in glasgow .")),
        (Reference("the race in london ."), Claim.qa("who finished something ?", "muir", "finished")),
    ]
    scores = scorer.score_batch(pairs)
    for (reference, claim), score in zip(pairs, scores, strict=True):
        assert score.value == pytest.approx(_direct(model, tokenizer, reference.text, claim.text, 2), abs=1e-5)
    assert len({round(s.value, 3) for s in scores}) == 3  # the pairs really went through the model
    assert scorer.version.startswith(f"1:{tmp_path.name}:")


def test_long_reference_takes_its_best_chunk(tmp_path):
    from annotation_tasks.scoring.nli import NLIScorer, chunks

    model, tokenizer = tiny_cross_encoder(tmp_path, WORDS, NLI_LABELS, seed=1)
    scorer = NLIScorer(str(tmp_path), device="cpu", chunk_words=4)
    reference = Reference("muir finished fourth in london the race she did not run glasgow")
    claim = Claim.fact("muir finished fourth")
    parts = chunks(reference, 4)
    assert parts == ["muir finished fourth in", "london the race she", "did not run glasgow"]
    direct = [_direct(model, tokenizer, p, claim.text, 2) for p in parts]
    score = scorer.score_batch([(reference, claim)])[0]
    assert score.value == pytest.approx(max(direct), abs=1e-5)
    assert score.evidence == {"best_chunk": direct.index(max(direct)), "chunks": 3}


def test_two_unnamed_labels_mean_label_one_is_supported(tmp_path):
    from annotation_tasks.scoring.nli import NLIScorer

    model, tokenizer = tiny_cross_encoder(tmp_path, WORDS, {0: "LABEL_0", 1: "LABEL_1"})
    scorer = NLIScorer(str(tmp_path), device="cpu")
    pair = (Reference("muir finished fourth"), Claim.fact("muir finished third"))
    assert scorer.score_batch([pair])[0].value == pytest.approx(_direct(model, tokenizer, pair[0].text, pair[1].text, 1), abs=1e-5)


def test_seq2seq_verifier_reads_p_of_one(tmp_path):
    import torch

    from annotation_tasks.scoring.nli import NLIScorer
    from tests.parser.tiny_models import tiny_t5

    model, tokenizer = tiny_t5(tmp_path, WORDS)
    scorer = NLIScorer(str(tmp_path), device="cpu")
    premise, hypothesis = "muir finished fourth in london", "muir finished third"
    enc = tokenizer([f"premise: {premise} hypothesis: {hypothesis}"], return_tensors="pt")
    ids = [tokenizer.convert_tokens_to_ids("1"), tokenizer.convert_tokens_to_ids("0")]
    with torch.inference_mode():
        start = torch.full((1, 1), model.config.decoder_start_token_id)
        logits = model(**enc, decoder_input_ids=start).logits[0, 0, ids]
    expected = torch.softmax(logits, dim=-1)[0].item()
    assert scorer.score_batch([(Reference(premise), Claim.fact(hypothesis))])[0].value == pytest.approx(expected, abs=1e-5)


def test_a_directory_without_a_model_is_refused(tmp_path):
    from annotation_tasks.scoring.nli import NLIScorer

    with pytest.raises(ScorerError, match="not a local model directory"):
        NLIScorer(str(tmp_path / "missing"))


def test_labels_without_entailment_are_refused(tmp_path):
    from annotation_tasks.scoring.nli import NLIScorer

    tiny_cross_encoder(tmp_path, WORDS, {0: "positive", 1: "negative", 2: "mixed"})
    with pytest.raises(ScorerError, match="cannot tell the entailment label"):
        NLIScorer(str(tmp_path), device="cpu")


def test_dtype_auto_is_float32_on_cpu_and_bfloat16_is_used_when_asked(tmp_path):
    import torch

    from annotation_tasks.scoring.nli import NLIScorer

    model, tokenizer = tiny_cross_encoder(tmp_path, WORDS, NLI_LABELS)
    pairs = [(Reference("muir finished fourth in london ."), Claim.fact("muir finished third ."))]
    auto = NLIScorer(str(tmp_path), device="cpu")
    assert auto.dtype == "float32" and next(auto.model.parameters()).dtype == torch.float32
    half = NLIScorer(str(tmp_path), device="cpu", dtype="bf16")
    assert half.dtype == "bfloat16" and next(half.model.parameters()).dtype == torch.bfloat16
    assert half.version == auto.version + ":bfloat16"  # scores of another precision are another version
    direct = _direct(model, tokenizer, pairs[0][0].text, pairs[0][1].text, 2)
    assert auto.score_batch(pairs)[0].value == pytest.approx(direct, abs=1e-5)
    assert half.score_batch(pairs)[0].value == pytest.approx(direct, abs=2e-2)  # bf16 keeps ~3 digits
    with pytest.raises(ScorerError, match="SCORER_DTYPE 'int3'"):
        NLIScorer(str(tmp_path), device="cpu", dtype="int3")


def test_scorer_options_come_from_the_settings_the_scorer_declares():
    from annotation_tasks.scoring import registry

    given = {"SCORER_NLI_MODEL_DIR": "/models/nli", "SCORER_BATCH_SIZE": "8", "LLM_BASE_URL": "http://127.0.0.1:9",
             "SCORER_LLM_MODEL": "m"}
    options = registry.scorer_options("nli", given.get)
    assert options == {"model_dir": "/models/nli", "device": None, "batch_size": 8, "dtype": "auto", "backend": "auto",
                       "onnx_file": ""}
    llm = registry.scorer_options("llm", given.get)  # SCORER_LLM_BASE_URL unset: LLM_BASE_URL gives it
    assert llm["base_url"] == "http://127.0.0.1:9" and llm["model"] == "m" and llm["template"] is None
    with pytest.raises(ValueError, match="needs SCORER_LLM_BASE_URL \\(or LLM_BASE_URL\\)"):
        registry.scorer_options("llm", {"SCORER_LLM_MODEL": "m"}.get)
    with pytest.raises(registry.UnknownScorer):
        registry.scorer_options("nope", given.get)
    assert registry.scorer_options("embedded", given.get) == {}
