"""Parser backends by name, so settings, the CLI and the API choose one without importing it.

Backends are built lazily and cached per configuration: a T5 model or the spaCy pipeline loads once per process
(a Celery worker parses many jobs), and importing this module costs nothing (no torch, no spaCy).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
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
