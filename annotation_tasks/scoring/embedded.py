"""The default scorer: a logistic regression over lexical alignment features, shipped as JSON coefficients.

No download, no torch: it runs wherever the app runs. The coefficients (data/embedded.json) are written by
scoring/training/train_embedded.py from the shared QASem dev split; the version stored with each score is a
digest of that file, so retraining gives new scores beside the old ones instead of silently replacing them.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from annotation_tasks.scoring.base import Claim, Reference, Score, ScorerError
from annotation_tasks.scoring.features import IndexCache, head_features

DEFAULT_COEFFICIENTS = Path(__file__).resolve().parent / "data" / "embedded.json"


class EmbeddedScorer:
    name = "embedded"

    def __init__(self, coefficients: str | Path | None = None) -> None:
        path = Path(coefficients or DEFAULT_COEFFICIENTS)
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
            self.heads: dict[str, dict[str, Any]] = data["heads"]
            for head in ("qa", "statement"):
                spec = self.heads[head]
                if len(spec["features"]) != len(spec["coef"]):
                    raise ValueError(f"heads.{head}: {len(spec['features'])} features but {len(spec['coef'])} coef")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ScorerError(f"embedded scorer coefficients {path}: {exc}") from exc
        self.version = f"{data.get('format', 1)}-{hashlib.sha1(raw).hexdigest()[:10]}"
        self._indexes = IndexCache()

    def score_batch(self, pairs: Sequence[tuple[Reference, Claim]]) -> list[Score]:
        out = []
        for reference, claim in pairs:
            head = "qa" if claim.kind == "qa" else "statement"
            spec = self.heads[head]
            features = head_features(head, claim, self._indexes.get(reference))
            logit = spec["intercept"] + sum(w * features[n] for n, w in zip(spec["features"], spec["coef"], strict=True))
            value = 1.0 / (1.0 + math.exp(-max(min(logit, 40.0), -40.0)))
            used = {n: round(features[n], 4) for n in spec["features"]}
            out.append(Score(value, {"head": head, "features": used}))
        return out
