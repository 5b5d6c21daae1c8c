"""Annotation protocols by Unit.Mode. Protocols register themselves here (like crowd/registry.py).

Importing this module imports no protocol; each is loaded the first time it is asked for. What the rest of the
system asks about protocols as a whole (which mode a project's steps compose, every label vocabulary, every
step) is read from the protocols' own declarations here, so adding one is its package and its line below.
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from importlib import import_module

from annotation_tasks.models import Unit
from annotation_tasks.protocols.base import AnnotationProtocol, LabelLevel, Step

_PROTOCOLS: dict[str, str] = {
    Unit.Mode.QASEM.value: "annotation_tasks.protocols.qasem.protocol:QASemProtocol",
    Unit.Mode.FACTSCORE.value: "annotation_tasks.protocols.factscore.protocol:FactScoreProtocol",
    Unit.Mode.VALIDATION.value: "annotation_tasks.protocols.validation.protocol:ValidationProtocol",
    Unit.Mode.RAGAS.value: "annotation_tasks.protocols.ragas.protocol:RagasProtocol",
}


class UnknownProtocol(ValueError):
    """The unit's mode names no registered protocol."""


def available_protocols() -> list[str]:
    return list(_PROTOCOLS)


def register_protocol(mode: str, path: str) -> None:
    """Add a protocol ("package.module:Class") for `mode` (plug-ins, tests)."""
    _PROTOCOLS[str(mode)] = path
    _load.cache_clear()
    label_order.cache_clear()


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


def protocols() -> list[AnnotationProtocol]:
    """Every registered protocol, in registration order."""
    return [get_protocol(mode) for mode in _PROTOCOLS]


def label_levels() -> list[LabelLevel]:
    """Every protocol's label levels, in registration order (span, qa, fact): the labels frame's levels."""
    return [level for protocol in protocols() for level in protocol.label_levels]


def label_level(name: str) -> LabelLevel:
    """The label level called `name` ("span", "qa", "fact")."""
    for level in label_levels():
        if level.name == name:
            return level
    raise KeyError(f"no protocol has the label level {name!r}")


@cache
def label_order() -> dict[str, tuple[str, ...]]:
    """{level name: its labels, error first} over every protocol's vocabularies: the majority's tie order
    (services pass it to analysis.aggregation) and the adjudicator's choices. A level two protocols share
    (pairwise) must be declared with the same labels."""
    out: dict[str, tuple[str, ...]] = {}
    for protocol in protocols():
        for vocabulary in protocol.vocabularies():
            if out.setdefault(vocabulary.name, vocabulary.labels) != vocabulary.labels:
                raise ValueError(f"level {vocabulary.name!r} is declared with two vocabularies "
                                 f"({out[vocabulary.name]} and {vocabulary.labels})")
    return out


def all_steps() -> list[tuple[Step, str]]:
    """(step, the mode of the protocol that serves it) for every project step, in canonical order: the expert
    pre-steps first, then the crowd protocols' in registration order."""
    ordered = sorted(protocols(), key=lambda p: not p.expert_step)
    return [(step, protocol.mode) for protocol in ordered for step in protocol.steps]


def unknown_steps(steps: Iterable[str]) -> list[str]:
    """The values in `steps` no protocol serves."""
    known = {step.value for step, _ in all_steps()}
    return [s for s in steps if s not in known]


def crowd_modes(steps: Iterable[str]) -> list[str]:
    """The crowd (non-expert) modes whose steps are in `steps`, in the order their first step appears there."""
    owner = {step.value: mode for step, mode in all_steps() if not get_protocol(mode).expert_step}
    out: list[str] = []
    for s in steps:
        mode = owner.get(str(s))
        if mode is not None and mode not in out:
            out.append(mode)
    return out


def mode_for_steps(steps: Iterable[str]) -> str:
    """The mode of a project's crowd units, from the protocols' declared steps: the protocol whose step comes
    first in the project's steps; the default protocol (QASem) when none is named."""
    found = crowd_modes(steps)
    if found:
        return found[0]
    for protocol in protocols():
        if protocol.default_mode:
            return protocol.mode
    raise UnknownProtocol("no protocol is the default mode")
