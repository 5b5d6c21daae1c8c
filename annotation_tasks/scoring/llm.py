"""Prompting an LLM behind any OpenAI-compatible chat endpoint, as in the QASemConsistency paper's appendix.

The prompt defines a supported QA (its meaning can be deduced from the article), shows one supported and one
unsupported worked example, then gives the ARTICLE, the QA (or the statement) and asks for only Yes or No. The
score is P(Yes) from the first token's log-probabilities when the endpoint returns them (normalised over the
Yes and No mass of the top tokens), else the hard label (1.0 / 0.0). A reply that is neither scores 0.5 with
"unparsed" in its evidence, so one odd reply does not fail a whole job, and the evidence says which it was.

The template is a text file with the placeholders {article}, {item} and {kind} (nothing else is interpreted,
so braces elsewhere are safe); settings.SCORER_LLM_TEMPLATE points to a replacement (e.g. the paper's exact
wording). The default, templates/llm_support.txt, is written in our own words. The template's digest is part
of the version, so scores of two prompts never mix.
"""
from __future__ import annotations

import hashlib
import json
import math
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from annotation_tasks.scoring.base import Claim, Reference, Score, ScorerError

DEFAULT_TEMPLATE = Path(__file__).resolve().parent / "templates" / "llm_support.txt"
MAX_ARTICLE_CHARS = 24_000  # keeps one request inside a typical context window


def render(template: str, reference: Reference, claim: Claim) -> str:
    """The prompt of one pair: the three placeholders replaced, nothing else touched."""
    if claim.kind == "qa":
        item, kind = f"QA: {claim.question.strip()} - {claim.answer.strip()}", "QA"
    else:
        item, kind = f"STATEMENT: {claim.text.strip()}", "statement"
    article = reference.text[:MAX_ARTICLE_CHARS]
    return template.replace("{article}", article).replace("{item}", item).replace("{kind}", kind)


def yes_probability(choice: dict[str, Any]) -> tuple[float, dict[str, Any]]:
    """(score, evidence) from one chat completion choice."""
    content = str(((choice.get("message") or {}).get("content")) or "").strip()
    first = ((choice.get("logprobs") or {}).get("content") or [None])[0]
    if isinstance(first, dict):
        mass = {"yes": 0.0, "no": 0.0}
        for option in first.get("top_logprobs") or [first]:
            word = str(option.get("token", "")).strip().strip(".").lower()
            if word in mass and isinstance(option.get("logprob"), int | float):
                mass[word] += math.exp(option["logprob"])
        if mass["yes"] + mass["no"] > 0:
            return mass["yes"] / (mass["yes"] + mass["no"]), {"reply": content, "from": "logprobs", **mass}
    word = content.split()[0].strip(".,!").lower() if content else ""
    if word in ("yes", "no"):
        return (1.0 if word == "yes" else 0.0), {"reply": content, "from": "label"}
    return 0.5, {"reply": content[:200], "from": "unparsed", "unparsed": True}


class LLMScorer:
    name = "llm"

    def __init__(self, base_url: str, model: str, api_key: str = "", template: str | Path | None = None,
                 timeout: float = 60.0, retries: int = 2, concurrency: int = 4) -> None:
        if not base_url or not model:
            raise ScorerError("the llm scorer needs a base URL and a model name")
        path = Path(template or DEFAULT_TEMPLATE)
        try:
            self.template = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScorerError(f"SCORER_LLM_TEMPLATE {str(path)!r}: {exc.strerror or exc}") from exc
        if "{article}" not in self.template or "{item}" not in self.template:
            raise ScorerError(f"template {path} needs the placeholders {{article}} and {{item}}")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model, self.api_key, self.timeout, self.retries = model, api_key, timeout, retries
        self.concurrency = max(1, concurrency)
        self.version = f"1:{model}:{hashlib.sha1(self.template.encode('utf-8')).hexdigest()[:8]}"

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        data = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})}
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                    return json.loads(reply.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                last = exc
                if exc.code < 500 and exc.code != 429:
                    break
            except (urllib.error.URLError, TimeoutError, json.JSONDecodeError, UnicodeDecodeError) as exc:
                last = exc
            time.sleep(min(2.0**attempt, 8.0) * 0.1)
        raise ScorerError(f"LLM endpoint {self.url} failed: {last}")

    def _one(self, pair: tuple[Reference, Claim]) -> Score:
        payload = {
            "model": self.model,
            "messages": [{"role": "user", "content": render(self.template, *pair)}],
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": True,
            "top_logprobs": 5,
        }
        reply = self._post(payload)
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not choices or not isinstance(choices[0], dict):
            raise ScorerError(f"LLM endpoint {self.url} answered without choices")
        value, evidence = yes_probability(choices[0])
        return Score(value, evidence)

    def score_batch(self, pairs: Sequence[tuple[Reference, Claim]]) -> list[Score]:
        if self.concurrency == 1 or len(pairs) < 2:
            return [self._one(p) for p in pairs]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self._one, pairs))
