"""Parser backends by name, so settings, the CLI and the API choose one without importing it.

Backends are built lazily and cached per configuration: a T5 model or the spaCy pipeline loads once per process
(a Celery worker parses many jobs), and importing this module costs nothing (no torch, no spaCy).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from parser.types import ParsedText, PredicateFrame

DEFAULT_BACKEND = "embedded"


class ParserBackend(Protocol):
    name: str

    def parse(self, text: str) -> ParsedText: ...

    def parse_many(self, texts: Iterable[str]) -> Iterator[ParsedText]: ...

    def parse_pretokenized(self, text: str, token_rows: Sequence[Sequence], sentence_rows: Sequence[dict]) -> ParsedText: ...

    def parse_tokenized(
        self,
        sentences: Sequence[Sequence[str]],
        predicates: Sequence[Sequence[int] | None] | None = None,
        nominal_predicates: Sequence[Sequence[int] | None] | None = None,
    ) -> list[list[PredicateFrame]]: ...


class UnknownBackend(ValueError):
    """The name is not a registered backend."""


def _embedded(**options: Any) -> ParserBackend:
    from parser.embedded import EmbeddedParser

    return EmbeddedParser(**{k: v for k, v in options.items() if k in {"model", "nominal", "copular", "batch_size"}})


def _t5(**options: Any) -> ParserBackend:
    from parser.t5 import T5Parser

    return T5Parser(**options)


_FACTORIES: dict[str, Callable[..., ParserBackend]] = {"embedded": _embedded, "t5": _t5}


@dataclass(frozen=True)
class Option:
    """A backend constructor argument read from settings (the first of `settings` that is set)."""

    settings: tuple[str, ...]
    default: Any = None
    required: bool = False
    convert: Callable[[Any], Any] = str
    help: str = ""


OPTIONS: dict[str, dict[str, Option]] = {
    "t5": {
        "model_dir": Option(("T5_MODEL_DIR",), "", required=True,
                            help="a local model directory or hub id in the cache"),
        "nominalization_model_dir": Option(("NOMINALIZATION_MODEL_DIR",), None, convert=lambda v: str(v) or None),
    },
}
"""Each backend's settings, declared here with the backend (models never download: these are local paths), so
the services ask for a backend's options without knowing which backend it is."""


def backend_options(name: str, setting: Callable[[str], Any]) -> dict[str, Any]:
    """The backend's constructor arguments from `setting(NAME)` (a settings lookup, None when unset); a required
    one that is unset is its default here (missing_settings says so before a job starts)."""
    out: dict[str, Any] = {}
    for arg, option in OPTIONS.get((name or DEFAULT_BACKEND).strip().lower(), {}).items():
        value = next((v for v in (setting(n) for n in option.settings) if v not in (None, "")), None)
        out[arg] = option.default if value is None else option.convert(value)
    return out


def missing_settings(name: str, setting: Callable[[str], Any]) -> list[str]:
    """What a backend lacks to run: "SETTING (why)" for each required option that is unset."""
    return [f"{option.settings[0]} ({option.help})" if option.help else option.settings[0]
            for option in OPTIONS.get((name or DEFAULT_BACKEND).strip().lower(), {}).values()
            if option.required and all(setting(n) in (None, "") for n in option.settings)]
_CACHE: dict[tuple, ParserBackend] = {}
_LOCK = threading.Lock()


def available_backends() -> list[str]:
    return sorted(_FACTORIES)


def register_backend(name: str, factory: Callable[..., ParserBackend]) -> None:
    """Add a backend (tests, plug-ins)."""
    _FACTORIES[name] = factory


def get_backend(name: str | None = None, **options: Any) -> ParserBackend:
    """The backend `name` (default: embedded) built with `options` (model_dir, device, ...), cached."""
    name = (name or DEFAULT_BACKEND).strip().lower()
    factory = _FACTORIES.get(name)
    if factory is None:
        raise UnknownBackend(f"unknown parser backend {name!r}; choose one of {', '.join(available_backends())}")
    key = (name, tuple(sorted((k, repr(v)) for k, v in options.items())))
    with _LOCK:
        backend = _CACHE.get(key)
        if backend is None:
            backend = _CACHE[key] = factory(**options)
    return backend


def clear_cache() -> None:
    with _LOCK:
        _CACHE.clear()
