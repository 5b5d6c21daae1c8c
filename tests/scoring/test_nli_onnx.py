"""The nli scorer's ONNX Runtime backend on a tiny random cross-encoder built and exported here (manage.py
export_onnx): fp32 gives torch's probabilities, int8 nearly, and a broken ONNX directory is a located error."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from annotation_tasks.scoring.base import Claim, Reference, ScorerError
from tests.scoring.tiny import tiny_cross_encoder

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("onnxruntime")

WORDS = "muir finished fourth third in london the race she did not run glasgow who something ? .".split()
NLI_LABELS = {0: "contradiction", 1: "neutral", 2: "entailment"}
REFERENCES = ["muir finished fourth in london .", "she did not run in glasgow .",
              "the race in london the race she did not run glasgow muir finished third", "who ran ?"]
CLAIMS = ["muir finished third .", "she did run in glasgow .", "who finished something ?", "the race in london",
          "muir did not run", "she finished fourth in the race in glasgow ."]
PAIRS = [(Reference(r), Claim.fact(c)) for r in REFERENCES for c in CLAIMS]  # 24 pairs, 33 chunk pairs at 4 words


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[Path, Path]:
    """A torch directory and its ONNX export (fp32 and int8) through the management command."""
    from django.core.management import call_command

    torch_dir, onnx_dir = tmp_path_factory.mktemp("torch"), tmp_path_factory.mktemp("onnx")
    tiny_cross_encoder(torch_dir, WORDS, NLI_LABELS, seed=5)  # scores spread over 0.1-0.98
    call_command("export_onnx", "--model", str(torch_dir), "--out", str(onnx_dir), "--int8", "--json")
    return torch_dir, onnx_dir


def _rank(values: list[float]) -> list[int]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    for r, i in enumerate(order):
        ranks[i] = r
    return ranks


def test_onnx_fp32_gives_torchs_probabilities_and_int8_nearly(exported, capsys):
    from annotation_tasks.scoring.nli import NLIScorer

    torch_dir, onnx_dir = exported
    assert sorted(p.name for p in onnx_dir.glob("*.onnx")) == ["model.onnx", "model_quantized.onnx"]
    assert not list(onnx_dir.glob("*.safetensors"))  # the ONNX directory runs without torch weights
    torch_scorer = NLIScorer(str(torch_dir), device="cpu", batch_size=5, chunk_words=4, backend="torch")
    fp32 = NLIScorer(str(onnx_dir), device="cpu", batch_size=5, chunk_words=4, onnx_file="model.onnx")
    int8 = NLIScorer(str(onnx_dir), device="cpu", batch_size=5, chunk_words=4)  # auto: onnx, int8 where given
    assert (fp32.backend_name, int8.backend_name, torch_scorer.backend_name) == ("onnx", "onnx", "torch")
    assert fp32.version.endswith(":onnx:model") and int8.version.endswith(":onnx:model_quantized")
    assert fp32.version.split(":")[2] == torch_scorer.version.split(":")[2]  # the same config, another runtime

    want, got, quant = (s.score_batch(PAIRS) for s in (torch_scorer, fp32, int8))
    assert sum(s.evidence["chunks"] for s in want) > len(PAIRS)  # long references went through chunking
    assert len({round(s.value, 3) for s in want}) > len(PAIRS) // 2  # the pairs really went through the model
    for a, b in zip(want, got, strict=True):
        assert b.value == pytest.approx(a.value, abs=1e-4)
        assert b.evidence == a.evidence
    # int8 (dynamic quantization: each weight tensor rounded to 255 steps of its range, activations at run time)
    # moves this model's logits by about a tenth (initializer_range 0.8: large random weights); over seeds 0-5 of
    # this model the largest probability change per pair was 0.003-0.108 and the pairs' rank correlation with
    # fp32 0.98-0.996. So: every pair within 0.15, on average within 0.05, and the order kept (Spearman >= 0.95).
    diffs = [abs(a.value - b.value) for a, b in zip(want, quant, strict=True)]
    assert max(diffs) <= 0.15 and sum(diffs) / len(diffs) <= 0.05, diffs
    ra, rb = _rank([s.value for s in want]), _rank([s.value for s in quant])
    n = len(ra)
    rho = 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb, strict=True)) / (n * (n * n - 1))
    assert rho >= 0.95, rho


def test_auto_backend_keeps_torch_for_a_torch_directory_and_on_a_gpu(exported, tmp_path):
    from annotation_tasks.scoring.nli_backends import choose_backend

    torch_dir, onnx_dir = exported
    assert choose_backend(torch_dir, "auto", "cpu") == "torch"  # no ONNX file: as before
    both = tmp_path / "both"
    shutil.copytree(torch_dir, both)
    shutil.copy2(onnx_dir / "model.onnx", both / "model.onnx")
    assert choose_backend(both, "auto", "cpu") == "onnx"
    assert choose_backend(both, "auto", "cuda") == "torch"  # torch bf16 is the fast path on a GPU
    assert choose_backend(onnx_dir, "auto", "cuda") == "onnx"  # nothing else to run
    with pytest.raises(ScorerError, match="SCORER_NLI_BACKEND 'tensorrt'"):
        choose_backend(both, "tensorrt", "cpu")


def test_a_missing_or_broken_onnx_file_is_a_located_error(exported, tmp_path, settings):
    from django.core.management import CommandError, call_command

    from annotation_tasks.scoring import registry
    from annotation_tasks.scoring.nli import NLIScorer
    from annotation_tasks.services import scoring

    torch_dir, onnx_dir = exported
    with pytest.raises(ScorerError, match=f"no ONNX model at {torch_dir / 'model.onnx'}"):
        NLIScorer(str(torch_dir), device="cpu", backend="onnx")
    broken = tmp_path / "broken"
    shutil.copytree(onnx_dir, broken)
    (broken / "model_quantized.onnx").write_bytes(b"not a protobuf")
    with pytest.raises(ScorerError, match=f"cannot load the ONNX model {broken / 'model_quantized.onnx'}"):
        NLIScorer(str(broken), device="cpu")
    assert NLIScorer(str(broken), device="cpu", onnx_file="model.onnx").score_batch(PAIRS[:1])[0].value > 0
    with pytest.raises(ScorerError, match="onnx_file|no ONNX model at .*missing.onnx"):
        NLIScorer(str(broken), device="cpu", onnx_file="missing.onnx")

    # Through the service the API and `manage.py score` call: a ScoringError (400 / CommandError), not a 500.
    registry.clear_cache()
    settings.SCORER_NLI_MODEL_DIR, settings.SCORER_DEVICE = str(broken), "cpu"
    with pytest.raises(scoring.ScoringError, match=f"nli scorer cannot load: cannot load the ONNX model {broken}"):
        scoring.get_scorer("nli")
    registry.clear_cache()

    with pytest.raises(CommandError, match=f"--model: {tmp_path / 'nothing'} is not a local torch model directory"):
        call_command("export_onnx", "--model", str(tmp_path / "nothing"), "--out", str(tmp_path / "out"))
