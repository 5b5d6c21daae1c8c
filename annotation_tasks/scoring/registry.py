"""Scorers by name, so settings, the CLI and the jobs choose one without importing it (no torch on import).

Scorers are built lazily and cached per configuration: an NLI model loads once per worker process.
`imported` is not here: imported scores come from a file (services/scoring.import_scores), nothing computes them.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Option:
    """One constructor argument of a scorer and the settings that give it, first non-empty wins (so this package
    stays free of Django: services/scoring.py reads the settings named here). `required` names what is missing
    in the error a researcher sees."""

    settings: tuple[str, ...]
    default: Any = ""
    convert: Callable[[Any], Any] = str
    required: bool = False


OPTIONS: dict[str, dict[str, Option]] = {
    "nli": {
        "model_dir": Option(("SCORER_NLI_MODEL_DIR",), required=True),
        "device": Option(("SCORER_DEVICE",), None, lambda v: str(v) or None),
        "batch_size": Option(("SCORER_BATCH_SIZE",), 16, int),
        "dtype": Option(("SCORER_DTYPE",), "auto"),
        "backend": Option(("SCORER_NLI_BACKEND",), "auto"),  # auto | torch | onnx (scoring/nli_backends.py)
        "onnx_file": Option(("SCORER_NLI_ONNX_FILE",)),  # "" = model_quantized.onnx if there, else model.onnx
    },
    "llm": {
        "base_url": Option(("SCORER_LLM_BASE_URL", "LLM_BASE_URL"), required=True),
        "model": Option(("SCORER_LLM_MODEL", "LLM_MODEL"), required=True),
        "api_key": Option(("LLM_API_KEY",)),
        "template": Option(("SCORER_LLM_TEMPLATE",), None, lambda v: str(v) or None),
    },
}


def scorer_options(name: str, setting: Callable[[str], Any]) -> dict[str, Any]:
    """The scorer's constructor arguments from `setting(NAME)` (a settings lookup returning None when unset);
    UnknownScorer for a name that is not registered, ValueError naming the settings a required option lacks."""
    name = (name or DEFAULT_SCORER).strip().lower()
    if name not in _FACTORIES:
        get_scorer(name)  # raises UnknownScorer with the list of names
    out: dict[str, Any] = {}
    for arg, option in OPTIONS.get(name, {}).items():
        value = next((v for v in (setting(n) for n in option.settings) if v not in (None, "")), None)
        if value is None and option.required:
            raise ValueError(f"the {name} scorer needs {' (or '.join(option.settings)}{')' * (len(option.settings) - 1)}")
        out[arg] = option.default if value is None else option.convert(value)
    return out


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
