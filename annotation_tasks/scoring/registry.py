"""Scorers by name, so settings, the CLI and the jobs choose one without importing it (no torch on import).

Scorers are built lazily and cached per configuration: an NLI model loads once per worker process.
`imported` is not here: imported scores come from a file (services/scoring.import_scores), nothing computes them.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from annotation_tasks.scoring.base import Scorer

DEFAULT_SCORER = "embedded"
IMPORTED = "imported"


class UnknownScorer(ValueError):
    """The name is not a registered scorer."""


def _embedded(**options: Any) -> Scorer:
    from annotation_tasks.scoring.embedded import EmbeddedScorer

    return EmbeddedScorer(coefficients=options.get("coefficients"))


def _overlap(**options: Any) -> Scorer:
    from annotation_tasks.scoring.overlap import OverlapScorer

    return OverlapScorer()


def _nli(**options: Any) -> Scorer:
    from annotation_tasks.scoring.nli import NLIScorer

    return NLIScorer(**options)


def _llm(**options: Any) -> Scorer:
    from annotation_tasks.scoring.llm import LLMScorer

    return LLMScorer(**options)


_FACTORIES: dict[str, Callable[..., Scorer]] = {"embedded": _embedded, "overlap": _overlap, "nli": _nli, "llm": _llm}
_CACHE: dict[tuple, Scorer] = {}
_LOCK = threading.Lock()


def available_scorers() -> list[str]:
    return sorted(_FACTORIES)


def register_scorer(name: str, factory: Callable[..., Scorer]) -> None:
    """Add a scorer (tests, plug-ins)."""
    _FACTORIES[name] = factory


def get_scorer(name: str | None = None, **options: Any) -> Scorer:
    """The scorer `name` (default: embedded) built with `options` (model_dir, base_url, ...), cached."""
    name = (name or DEFAULT_SCORER).strip().lower()
    factory = _FACTORIES.get(name)
    if factory is None:
        hint = f"; '{IMPORTED}' scores come from import_scores" if name == IMPORTED else ""
        raise UnknownScorer(f"unknown scorer {name!r}; choose one of {', '.join(available_scorers())}{hint}")
    key = (name, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _LOCK:
        scorer = _CACHE.get(key)
        if scorer is None:
            scorer = _CACHE[key] = factory(**options)
    return scorer


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
