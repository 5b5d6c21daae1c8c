"""export_onnx --model DIR --out DIR [--int8] [--opset N] [--json]"""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from annotation_tasks.scoring.base import ScorerError


class Command(BaseCommand):
    help = ("Export a local torch NLI cross-encoder directory to an ONNX directory the nli scorer loads through "
            "onnxruntime (model.onnx; with --int8 also model_quantized.onnx, which the scorer then prefers), and "
            "print how far its entailment probabilities are from torch's on a check pair.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--model", required=True, help="a local transformers model directory (config.json, weights)")
        parser.add_argument("--out", required=True, help="the ONNX directory to write (may be --model itself)")
        parser.add_argument("--int8", action="store_true", help="also write model_quantized.onnx (dynamic int8)")
        parser.add_argument("--opset", type=int, default=17, help="ONNX opset (default 17)")
        parser.add_argument("--json", action="store_true", help="one JSON object on stdout")

    def handle(self, *args, model: str, out: str, int8: bool, opset: int, json: bool, **options) -> None:
        from annotation_tasks.scoring.nli_backends import export_onnx

        try:
            result = export_onnx(model, out, int8=int8, opset=opset)
        except ScorerError as exc:
            raise CommandError(f"--model: {exc}") from exc
        except (OSError, ValueError, RuntimeError) as exc:  # a model transformers or the exporter cannot handle
            raise CommandError(f"--model {model}: cannot export: {str(exc).splitlines()[0][:300]}") from exc
        if json:
            self.stdout.write(_dumps(result))
            return
        for file in result["files"]:
            name = file.rsplit("/", 1)[-1]
            self.stdout.write(f"{file}  (max |p_onnx - p_torch| on the check pair: {result['max_abs_diff'][name]:.2e})")
        self.stdout.write(f"SCORER_NLI_MODEL_DIR={result['out']} loads it (docs/scoring.md)")


def _dumps(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)
