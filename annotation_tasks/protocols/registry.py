"""Annotation protocols by Unit.Mode. Protocols register themselves here (like crowd/registry.py).

Importing this module imports no protocol; each is loaded the first time a unit of its mode is served.
"""
from __future__ import annotations

from functools import cache
from importlib import import_module

from annotation_tasks.models import Unit
from annotation_tasks.protocols.base import AnnotationProtocol, LabelLevel

_PROTOCOLS: dict[str, str] = {
    Unit.Mode.QASEM.value: "annotation_tasks.protocols.qasem:QASemProtocol",
    Unit.Mode.FACTSCORE.value: "annotation_tasks.protocols.factscore:FactScoreProtocol",
    Unit.Mode.VALIDATION.value: "annotation_tasks.protocols.validation:ValidationProtocol",
    Unit.Mode.RAGAS.value: "annotation_tasks.protocols.ragas:RagasProtocol",
}


class UnknownProtocol(ValueError):
    """The unit's mode names no registered protocol."""


def available_protocols() -> list[str]:
    return list(_PROTOCOLS)


def register_protocol(mode: str, path: str) -> None:
    """Add a protocol ("package.module:Class") for `mode` (plug-ins, tests)."""
    _PROTOCOLS[str(mode)] = path
    _load.cache_clear()


def get_protocol(mode: str) -> AnnotationProtocol:
    """The protocol that serves units of `mode`; UnknownProtocol when none does."""
    if str(mode) not in _PROTOCOLS:
        raise UnknownProtocol(f"unknown unit mode {mode!r}")
    return _load(str(mode))


@cache
def _load(mode: str) -> AnnotationProtocol:
    """One instance per mode and process: protocols hold no state."""
    module_name, class_name = _PROTOCOLS[mode].split(":")
    protocol: AnnotationProtocol = getattr(import_module(module_name), class_name)()
    return protocol


def label_levels() -> list[LabelLevel]:
    """Every protocol's label levels, in registration order (span, qa, fact): the labels frame's levels."""
    return [level for mode in _PROTOCOLS for level in get_protocol(mode).label_levels]


def label_level(name: str) -> LabelLevel:
    """The label level called `name` ("span", "qa", "fact")."""
    for level in label_levels():
        if level.name == name:
            return level
    raise KeyError(f"no protocol has the label level {name!r}")
