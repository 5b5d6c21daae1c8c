"""Atomic facts (the FActScore step): each sentence of a response broken into short, independent claims.

Backends share one interface: `split(parsed) -> facts per sentence` (the parsing service) and
`split_sentences(sentences, wanted) -> facts per sentence` (one response's sentences in order, so a backend can
use the others as context; `wanted` limits the work to some of them, e.g. the ones an evaluation measures).
- `embedded` (default): rules over spaCy's dependency parse, no model (parser/facts/embedded.py).
- `llm`: FActScore's procedure with any OpenAI-compatible chat endpoint: BM25-chosen demonstrations, the
  paper's clean-up of the list (parser/facts/llm.py). Demonstrations and prompt are files (settings
  ATOMIC_FACTS_DEMOS, ATOMIC_FACTS_PROMPT).
- `frames`: the first embedded backend, one fact per QA-SRL frame (parser/facts/frames.py), kept to compare.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from parser.facts.frames import FrameFactBackend, render_frame
from parser.facts.llm import DemonstrationError, LLMError, LLMFactBackend
from parser.types import ParsedText

__all__ = [
    "BACKENDS", "DemonstrationError", "EmbeddedFactBackend", "FactBackend", "FrameFactBackend", "LLMError",
    "LLMFactBackend", "get_backend", "render_frame", "settings_options",
]


class FactBackend(Protocol):
    name: str

    def split(self, parsed: ParsedText) -> list[list[str]]: ...

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]: ...


class EmbeddedFactBackend:
    """Rule facts from the dependency parse (parser/facts/embedded.py); no model."""

    name = "embedded"

    def __init__(self, resolve_pronouns: bool = True):
        from parser.facts.embedded import EmbeddedFactSplitter

        self.splitter = EmbeddedFactSplitter(resolve_pronouns=resolve_pronouns)

    def split_sentences(self, sentences: Sequence[str], wanted: Iterable[int] | None = None) -> list[list[str]]:
        return self.splitter.split_sentences(sentences, wanted)

    def split(self, parsed: ParsedText) -> list[list[str]]:
        return self.split_sentences([s.text for s in parsed.sentences])


class _LLMBackend(LLMFactBackend):
    """The chat backend with the parsing service's `split(parsed)`."""

    def split(self, parsed: ParsedText) -> list[list[str]]:
        return self.split_sentences([s.text for s in parsed.sentences])


BACKENDS = ("embedded", "frames", "llm")


def get_backend(name: str | None = None, **options: Any) -> FactBackend:
    """`embedded` (default), `frames`, or `llm` (needs base_url and model; api_key, demos, prompt optional).

    Raises ValueError for an unknown name, a missing endpoint, or an unusable demonstration / prompt file.
    """
    name = (name or "embedded").strip().lower()
    if name == "embedded":
        return EmbeddedFactBackend(resolve_pronouns=options.get("resolve_pronouns", True))
    if name == "frames":
        return FrameFactBackend()
    if name == "llm":
        keys = ("api_key", "demos", "prompt", "fixed", "similar", "timeout", "retries")
        return _LLMBackend(
            options.get("base_url", ""), options.get("model", ""),
            **{k: options[k] for k in keys if options.get(k) not in (None, "")},
        )
    raise ValueError(f"unknown atomic-facts backend {name!r}; choose one of {', '.join(BACKENDS)}")


def settings_options(settings: Any) -> dict[str, Any]:
    """Backend options from a settings object (Django's, or anything with the same attribute names)."""
    return {
        "base_url": getattr(settings, "LLM_BASE_URL", ""),
        "api_key": getattr(settings, "LLM_API_KEY", ""),
        "model": getattr(settings, "LLM_MODEL", ""),
        "demos": getattr(settings, "ATOMIC_FACTS_DEMOS", ""),
        "prompt": getattr(settings, "ATOMIC_FACTS_PROMPT", ""),
    }
