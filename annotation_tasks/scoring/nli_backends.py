"""How the `nli` scorer runs its model: torch (any local transformers directory) or ONNX Runtime (an exported one).

Both backends answer one question, `predict(premises, hypotheses) -> entailment probabilities`, so the scorer's
chunking, batching and best-chunk rule (scoring/nli.py) are the same whichever runs. ONNX Runtime scores without
torch, with int8 weights 4x smaller; it is faster than torch fp32 for small models (2.7x for a tiny one, NOTES) and
about at par to 1.2x in int8 for a MiniLM-sized one on ~400-token chunks (bench/bench_nli_onnx.py, docs/scoring.md).
The ONNX directory follows Optimum's layout: config.json and the tokenizer files
beside `model.onnx` (fp32) and/or `model_quantized.onnx` (int8, dynamic quantization), in the directory itself or
its `onnx/` subfolder. `export_onnx` (manage.py export_onnx) writes such a directory from a torch one.
"""
from __future__ import annotations

import logging
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from annotation_tasks.scoring.base import ScorerError

DTYPES = ("auto", "float32", "bfloat16", "float16")
BACKENDS = ("auto", "torch", "onnx")
ONNX_FP32 = "model.onnx"
ONNX_INT8 = "model_quantized.onnx"
TORCH_WEIGHTS = ("model.safetensors", "pytorch_model.bin", "model.safetensors.index.json", "pytorch_model.bin.index.json")


class NLIBackend(Protocol):
    """A loaded entailment model: the probability that each premise entails its hypothesis."""

    tag: str  # appended to the scorer's version: scores of another runtime or precision are another version

    def predict(self, premises: list[str], hypotheses: list[str]) -> list[float]: ...


def resolve_dtype(dtype: str, device: str, torch) -> str:
    """The weights' dtype: "auto" is bfloat16 on a GPU that has it, else float32. On an H200, bf16 scored the
    QASem dev QAs 4-6x faster than fp32 with RoBERTa-large / DeBERTa-v3-large shapes (bench/bench_nli_gpu.py);
    on a CPU bf16 is slower, so auto keeps float32 there."""
    name = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}.get(str(dtype).lower(), str(dtype).lower())
    if name not in DTYPES:
        raise ScorerError(f"SCORER_DTYPE {dtype!r}: choose one of {', '.join(DTYPES)}")
    if name == "auto":
        on_gpu = str(device).startswith("cuda")
        return "bfloat16" if on_gpu and torch.cuda.is_bf16_supported() else "float32"
    return name


def entailment_index(config: Any) -> int:
    """Which output is entailment: the label named "entail..." (not "not/non entail") or "support(ed)"; with two
    unnamed labels, label 1 (MiniCheck's convention)."""
    labels = {int(i): str(n).lower() for i, n in (config.id2label or {}).items()}
    for i, n in sorted(labels.items()):
        if "entail" in n and "not" not in n and "non" not in n or n in ("supported", "support"):
            return i
    if config.num_labels == 2:
        return 1
    raise ScorerError(f"cannot tell the entailment label among {sorted(labels.values())}")


def onnx_files(path: Path) -> list[Path]:
    """The ONNX models a directory holds, int8 first ("int8 where given"), then fp32; in it or in its onnx/."""
    return [p for folder in (path, path / "onnx") for name in (ONNX_INT8, ONNX_FP32) if (p := folder / name).is_file()]


def has_torch_weights(path: Path) -> bool:
    return any((path / name).is_file() for name in TORCH_WEIGHTS)


def choose_backend(path: Path, backend: str, device: str | None, onnx_file: str = "") -> str:
    """torch or onnx for this directory. auto: ONNX when the directory holds an ONNX model and either has no torch
    weights or runs on a CPU (the export is there because someone chose it); torch otherwise (on a GPU, torch bf16
    is the fast path)."""
    name = str(backend or "auto").strip().lower()
    if name not in BACKENDS:
        raise ScorerError(f"SCORER_NLI_BACKEND {backend!r}: choose one of {', '.join(BACKENDS)}")
    if name != "auto":
        return name
    if not (onnx_file or onnx_files(path)):
        return "torch"
    on_gpu = str(device or "").startswith("cuda")
    return "torch" if has_torch_weights(path) and on_gpu else "onnx"


class TorchBackend:
    """transformers' AutoModelForSequenceClassification (premise, hypothesis pairs) or, for an encoder-decoder
    config, a TRUE-style seq2seq read as P("1") / (P("1") + P("0")) at the first decoded position."""

    def __init__(self, path: Path, config: Any, tokenizer: Any, device: str | None, dtype: str,
                 max_length: int) -> None:
        import torch

        self.torch, self.tokenizer, self.max_length = torch, tokenizer, max_length
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.seq2seq = bool(config.is_encoder_decoder)
        if self.seq2seq:
            from transformers import AutoModelForSeq2SeqLM

            self.model = AutoModelForSeq2SeqLM.from_pretrained(path, local_files_only=True)
            ids = [tokenizer.convert_tokens_to_ids(t) for t in ("1", "0")]
            if any(i is None or i == tokenizer.unk_token_id for i in ids):
                raise ScorerError(f"seq2seq verifier {path}: its vocabulary has no '1' / '0' tokens")
            self.label_ids = ids
        else:
            from transformers import AutoModelForSequenceClassification

            if not has_torch_weights(path):
                raise ScorerError(f"{path} holds no torch weights ({' / '.join(TORCH_WEIGHTS[:2])}); "
                                  "set SCORER_NLI_BACKEND=onnx for an ONNX directory")
            self.model = AutoModelForSequenceClassification.from_pretrained(path, local_files_only=True)
            self.entailment = entailment_index(config)
        self.dtype = resolve_dtype(dtype, self.device, torch)
        self.model.to(self.device, dtype=getattr(torch, self.dtype)).eval()
        self.tag = "" if self.dtype == "float32" else f":{self.dtype}"

    def predict(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        torch = self.torch
        with torch.inference_mode():
            if self.seq2seq:
                texts = [f"premise: {p} hypothesis: {h}" for p, h in zip(premises, hypotheses, strict=True)]
                enc = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True,
                                     max_length=self.max_length).to(self.device)
                start = torch.full((len(texts), 1), self.model.config.decoder_start_token_id, device=self.device)
                logits = self.model(**enc, decoder_input_ids=start).logits[:, 0, self.label_ids]
                return torch.softmax(logits.float(), dim=-1)[:, 0].tolist()
            enc = self.tokenizer(premises, hypotheses, return_tensors="pt", padding=True, truncation="only_first",
                                 max_length=self.max_length).to(self.device)
            logits = self.model(**enc).logits.float()
            return torch.softmax(logits, dim=-1)[:, self.entailment].tolist()


class OnnxBackend:
    """An exported cross-encoder run by onnxruntime.InferenceSession (no torch needed). Its inputs are fed by name
    from the tokenizer (token_type_ids as zeros when the tokenizer gives none, as transformers does); the first
    output is the logits. CUDAExecutionProvider when the device asks for cuda and this onnxruntime has it."""

    def __init__(self, path: Path, config: Any, tokenizer: Any, device: str | None, max_length: int,
                 onnx_file: str = "") -> None:
        if config.is_encoder_decoder:
            raise ScorerError(f"{path}: the onnx backend runs cross-encoders only; a seq2seq verifier runs on torch "
                              "(SCORER_NLI_BACKEND=torch)")
        model = path / onnx_file if onnx_file else next(iter(onnx_files(path)), None)
        if model is None or not model.is_file():
            where = model or path / ONNX_FP32
            raise ScorerError(f"no ONNX model at {where} (expected {ONNX_INT8} or {ONNX_FP32}; "
                              "manage.py export_onnx writes them)")
        try:
            import onnxruntime as ort
        except ImportError as exc:  # pragma: no cover - requirements-t5.txt pins it
            raise ScorerError(f"onnxruntime is not installed, needed for {model}") from exc
        available = ort.get_available_providers()
        providers = ["CPUExecutionProvider"]
        if str(device or "").startswith("cuda"):
            if "CUDAExecutionProvider" not in available:
                raise ScorerError(f"SCORER_DEVICE {device!r} but this onnxruntime has no CUDAExecutionProvider "
                                  "(install onnxruntime-gpu, or use SCORER_DEVICE=cpu / SCORER_NLI_BACKEND=torch)")
            providers.insert(0, "CUDAExecutionProvider")
        try:
            self.session = ort.InferenceSession(str(model), providers=providers)
        except Exception as exc:  # onnxruntime raises its own Fail / InvalidProtobuf / InvalidGraph types
            raise ScorerError(f"cannot load the ONNX model {model}: {str(exc).splitlines()[0][:300]}") from exc
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.tokenizer, self.max_length, self.model_path = tokenizer, max_length, model
        self.entailment = entailment_index(config)
        self.device = "cuda" if providers[0].startswith("CUDA") else "cpu"
        self.tag = f":onnx:{model.stem}"

    def predict(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        import numpy as np

        enc = self.tokenizer(premises, hypotheses, return_tensors="np", padding=True, truncation="only_first",
                             max_length=self.max_length)
        feed = {}
        for name in self.inputs:
            if name in enc:
                feed[name] = np.asarray(enc[name], dtype=np.int64)
            elif name == "token_type_ids":
                feed[name] = np.zeros_like(np.asarray(enc["input_ids"], dtype=np.int64))
            else:
                raise ScorerError(f"{self.model_path} wants input {name!r}, which the tokenizer does not give")
        logits = np.asarray(self.session.run(None, feed)[0], dtype=np.float64)
        if logits.ndim != 2 or logits.shape[1] <= self.entailment:
            raise ScorerError(f"{self.model_path}: logits of shape {logits.shape}, expected (batch, labels)")
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (exp[:, self.entailment] / exp.sum(axis=1)).tolist()


def export_onnx(model_dir: str | Path, out_dir: str | Path, *, int8: bool = False, opset: int = 17,
                check: Sequence[tuple[str, str]] = (("the cat sat on the mat .", "a cat sat ."),)) -> dict[str, Any]:
    """Write `out_dir` as an ONNX directory (config.json, tokenizer, model.onnx, with int8 also
    model_quantized.onnx) from a local torch cross-encoder directory, and check the export: the largest
    difference of its entailment probabilities from torch's on `check` pairs (fp32: float noise; int8: rounding).

    torch.onnx's TorchScript exporter (dynamo=False, still in torch 2.13) traces the model: it needs no onnxscript
    and exports transformers' BERT / RoBERTa / DeBERTa-v2 classifiers with dynamic batch and sequence axes.
    int8 is onnxruntime.quantization.quantize_dynamic (weights int8, activations quantized at run time), which
    needs no calibration data."""
    source, out = Path(model_dir), Path(out_dir)
    if not (source / "config.json").is_file() or not has_torch_weights(source):
        raise ScorerError(f"{source} is not a local torch model directory (config.json and weights)")
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification, AutoTokenizer

    config = AutoConfig.from_pretrained(source, local_files_only=True)
    if config.is_encoder_decoder:
        raise ScorerError(f"{source}: only cross-encoders export to ONNX here (a seq2seq verifier runs on torch)")
    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    model = AutoModelForSequenceClassification.from_pretrained(source, local_files_only=True).float().eval()
    model.config.return_dict = False  # a tuple output traces cleanly
    out.mkdir(parents=True, exist_ok=True)
    if out.resolve() != source.resolve():
        config.save_pretrained(out)
        tokenizer.save_pretrained(out)
    sample = tokenizer([check[0][0]], [check[0][1]], return_tensors="pt")
    names = list(sample.keys())
    axes: dict[str, dict[int, str]] = {n: {0: "batch", 1: "sequence"} for n in names}
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation and tracer warnings
        torch.onnx.export(model, (), str(out / ONNX_FP32), kwargs=dict(sample), dynamo=False, input_names=names,
                          output_names=["logits"], dynamic_axes={**axes, "logits": {0: "batch"}}, opset_version=opset)
    written = [out / ONNX_FP32]
    if int8:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)  # "consider pre-processing": shape inference, optional for dynamic int8
        try:
            quantize_dynamic(out / ONNX_FP32, out / ONNX_INT8, weight_type=QuantType.QInt8)
        finally:
            root.setLevel(level)
        written.append(out / ONNX_INT8)
    entail = entailment_index(config)
    premises, hypotheses = [p for p, _ in check], [h for _, h in check]
    enc = tokenizer(premises, hypotheses, return_tensors="pt", padding=True)
    with torch.inference_mode():
        reference = torch.softmax(model(**enc)[0].float(), dim=-1)[:, entail].tolist()
    diffs = {}
    for file in written:
        got = OnnxBackend(out, config, tokenizer, "cpu", 512, onnx_file=file.name).predict(premises, hypotheses)
        diffs[file.name] = max(abs(a - b) for a, b in zip(got, reference, strict=True))
    return {"out": str(out), "files": [str(f) for f in written], "max_abs_diff": diffs}

