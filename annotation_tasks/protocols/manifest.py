"""The protocols' manifest: what the element and the dashboard need to know about every registered protocol,
read from the protocols' own declarations (base.AnnotationProtocol) and nowhere else.

Served at GET /api/protocols/ and written by `manage.py protocols --json` (services.manifest adds the upload
formats and the exports). The shape is the contract with the element (docs/protocols.md, "The manifest"):
each protocol's name, mode, title, steps, plan kinds, label levels (labels error-first, display names), keys,
guide and whether it is an expert step (and which levels an expert may adjudicate); every step in canonical order with its protocol; the unit modes.
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.models import Unit
from annotation_tasks.protocols.base import AnnotationProtocol
from annotation_tasks.protocols.registry import all_steps, get_protocol, protocols
from annotation_tasks.protocols.review import review_for


def protocol_entry(protocol: AnnotationProtocol) -> dict[str, Any]:
    """One protocol as the manifest lists it; a level is `adjudicable` when its review companion says so."""
    adjudicable = set(review_for(protocol.mode).adjudication_levels)
    return {
        "name": protocol.mode,
        "mode": protocol.mode,
        "title": protocol.title or protocol.mode,
        "steps": [{"value": s.value, "label": s.label} for s in protocol.steps],
        "default_steps": list(protocol.default_steps or [s.value for s in protocol.steps]),
        "plan_kinds": list(protocol.plan_kinds),
        "label_levels": [{**v.as_dict(), "adjudicable": v.name in adjudicable} for v in protocol.vocabularies()],
        "keys": [{"key": k.key, "command": k.command, "help": k.help} for k in protocol.keys],
        "guide": protocol.guide,
        "expert_step": protocol.expert_step,
        "default_mode": protocol.default_mode,
        "exports": [{"value": e.value, "label": e.label, "help": e.help} for e in protocol.exports],
    }


def protocols_manifest() -> dict[str, Any]:
    """{"protocols", "steps", "modes"}: the part of the manifest the protocols declare."""
    labels = dict(Unit.Mode.choices)
    registered = protocols()
    return {
        "protocols": [protocol_entry(p) for p in registered],
        "steps": [{"value": s.value, "label": s.label, "protocol": mode} for s, mode in all_steps()],
        "modes": [{"value": p.mode, "label": str(labels.get(p.mode, p.title or p.mode)),
                   "expert_step": get_protocol(p.mode).expert_step} for p in registered],
    }
