"""The unit payload: what reaches the browser for one unit, and the ids of what it showed.

Texts, tokens, ids, the project's instructions, the items the unit's protocol shows, and the plan of sections
the element renders. Never gold labels, system names, metadata, other workers' labels, or human facts written
in other assignments: each field is named here or in a protocol's response_items.
"""
from __future__ import annotations

from typing import Any

from annotation_tasks.markup import render_markdown
from annotation_tasks.models import Response, Unit
from annotation_tasks.protocols.base import Shown
from annotation_tasks.protocols.registry import UnknownProtocol, get_protocol


def unit_responses(unit: Unit) -> list[Response]:
    """The unit's responses in display order (A, B, ...)."""
    return list(Response.objects.filter(unit_responses__unit=unit).order_by("unit_responses__position", "id"))


def response_label(index: int) -> str:
    return f"Response {chr(ord('A') + index)}"


def _response(response: Response, label: str, items: dict[str, list[dict]]) -> dict[str, Any]:
    return {
        "id": response.pk,
        "label": label,
        "text": response.text,
        "tokens": [list(t)[:3] for t in (response.tokens or [])],
        "sentences": [
            {"start": s.get("start"), "end": s.get("end"), "text": s.get("text", "")} for s in (response.sentences or [])
        ],
        "predicates": [],
        "qas": [],
        "spans": [],
        "facts": [],
        **items,
    }


def build(unit: Unit, assignment_part: dict[str, Any]) -> tuple[dict[str, Any], Shown]:
    """The GET unit answer (without the draft) and what it shows. A unit of a mode no protocol serves (a stray
    row) shows its responses with nothing to judge; submitting it is refused (services.work.submit)."""
    try:
        protocol = get_protocol(unit.mode)
    except UnknownProtocol:
        protocol = None
    shown = Shown()
    responses = []
    for i, response in enumerate(unit_responses(unit)):
        items = protocol.response_items(response, shown) if protocol else {}
        responses.append(_response(response, response_label(i), items))
        shown.responses.append(response.pk)
    project, source = unit.project, unit.source
    data = {
        "assignment": assignment_part,
        "project": {"name": project.name, "instructions": project.instructions,
                    "instructions_html": render_markdown(project.instructions), "protocol": list(project.protocol or [])},
        "source": {"id": source.pk, "text": source.text, "passages": list(source.passages or []), "question": source.question},
        "responses": responses,
        "plan": protocol.plan(unit, responses) if protocol else [],
        "draft": None,
        "draft_saved_at": None,
    }
    return data, shown
