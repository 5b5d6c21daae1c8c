"""Annotation protocols by Unit.Mode.

Every Unit.Mode value names its package: the mode "qasem" is served by the AnnotationProtocol subclass of
annotation_tasks/protocols/qasem/protocol.py whose `mode` is "qasem" (found, not listed: adding a protocol is its
package and its Unit.Mode value). register_protocol adds one from anywhere else (plug-ins, tests).

Importing this module imports no protocol; each is loaded the first time it is asked for. What the rest of the
system asks about protocols as a whole (which mode a project's steps compose, every label vocabulary, every
step) is read from the protocols' own declarations here.
"""
from __future__ import annotations

import inspect
from collections.abc import Iterable
from functools import cache
from importlib import import_module
from importlib.util import find_spec

from annotation_tasks.models import Unit
from annotation_tasks.protocols.base import AnnotationProtocol, LabelLevel, Step, Vocabulary

PACKAGE = "annotation_tasks.protocols"


def _packaged(mode: str) -> bool:
    """Whether annotation_tasks/protocols/<mode>/protocol.py exists (found without importing it)."""
    return find_spec(f"{PACKAGE}.{mode}") is not None and find_spec(f"{PACKAGE}.{mode}.protocol") is not None


_PROTOCOLS: dict[str, str] = {mode: f"{PACKAGE}.{mode}.protocol" for mode in Unit.Mode.values if _packaged(mode)}
"""mode -> "package.module" (the class is the module's protocol of that mode) or "package.module:Class". A mode
without a folder is served by no protocol (its units show nothing to judge and refuse submissions)."""


class UnknownProtocol(ValueError):
    """The unit's mode names no registered protocol."""


def available_protocols() -> list[str]:
    return list(_PROTOCOLS)


def register_protocol(mode: str, path: str) -> None:
    """Add a protocol ("package.module:Class", or a module holding one protocol of `mode`) (plug-ins, tests)."""
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
    module_name, _, class_name = _PROTOCOLS[mode].partition(":")
    module = import_module(module_name)
    if class_name:
        cls = getattr(module, class_name)
    else:
        found = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if issubclass(c, AnnotationProtocol) and c.__module__ == module_name and getattr(c, "mode", None) == mode]
        if len(found) != 1:
            raise UnknownProtocol(f"{module_name} defines {len(found)} protocols of mode {mode!r} (one expected)")
        cls = found[0]
    protocol: AnnotationProtocol = cls()
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


def vocabulary(name: str) -> Vocabulary:
    """The label level called `name` with its item type and labels, over every protocol (frame or review-only)."""
    for protocol in protocols():
        for level in protocol.vocabularies():
            if level.name == name:
                return level
    raise KeyError(f"no protocol has the label level {name!r}")


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
