"""The unit payload: what reaches the browser for one unit, and the ids of what it showed.

Texts (tokenized imports detokenized: protocols/display.py), tokens, ids, the project's instructions, the items the unit's protocol shows, and the plan of sections
the element renders. Never gold labels, system names, metadata, other workers' labels, or human facts written
in other assignments: each field is named here or in a protocol's response_items.
"""
from __future__ import annotations

import functools
from typing import Any

from annotation_tasks.compiled_sql import OrmSql
from annotation_tasks.markup import render_markdown
from annotation_tasks.models import Response, Unit, UnitResponse
from annotation_tasks.protocols.base import PLAN_SHOWN_ATTR, Shown
from annotation_tasks.protocols.display import Display, question
from annotation_tasks.protocols.qasem.protocol import LATER_PART_ATTR
from annotation_tasks.protocols.registry import UnknownProtocol, get_protocol

# the response fields a payload shows (never system, metadata, external ids): read nothing else on the hot path
SHOWN_RESPONSE_FIELDS = ("response__id", "response__text", "response__tokens", "response__sentences")


def _note_parts(unit: Unit, slices: dict[int, dict | None]) -> None:
    """Remember on this Unit instance whether it is a later part of a split response (qasem.pairwise_section reads
    it instead of asking the database again; the instance lives for one request, so it is never stale)."""
    setattr(unit, LATER_PART_ATTR, any(
        isinstance(part, int | float) and part > 0 for part in ((piece or {}).get("part") for piece in slices.values())
    ))


_SUBMIT_RESPONSE_FIELDS = [f.attname for f in Response._meta.concrete_fields
                           if f.name not in ("tokens", "text", "metadata")]


def _unit_responses_query(unit_id: int):
    return (UnitResponse.objects.filter(unit_id=unit_id).order_by("position", "response_id")
            .values_list("items", *(f"response__{n}" for n in _SUBMIT_RESPONSE_FIELDS)))


@functools.cache
def _unit_responses_sql():
    return OrmSql(_unit_responses_query, unit_id=int)


def unit_responses(unit: Unit) -> list[Response]:
    """The unit's responses in display order (A, B, ...) for a submit: its texts and metadata are read only if a
    protocol's validate or write uses them (none does today). From SQL the ORM compiled once (a submit's hot path)."""
    db = Response.objects.db
    rows = _unit_responses_sql().rows(unit_id=unit.pk)
    responses = [Response.from_db(db, _SUBMIT_RESPONSE_FIELDS, row[1:]) for row in rows]
    _note_parts(unit, {r.pk: row[0] for r, row in zip(responses, rows, strict=True)})
    return responses


def shown_responses(unit: Unit) -> tuple[list[Response], dict[int, dict | None]]:
    """(the unit's responses in display order with only the fields a payload shows, {response id: its slice})
    in one query. The slice is what part of the response's items this unit covers, None for all
    (services.units splits a response over the project's unit caps across units)."""
    links = list(UnitResponse.objects.filter(unit=unit).select_related("response")
                 .only("response_id", "items", *SHOWN_RESPONSE_FIELDS).order_by("position", "response_id"))
    slices = {link.response_id: link.items for link in links}
    _note_parts(unit, slices)
    return [link.response for link in links], slices


def unit_slices(unit: Unit) -> dict[int, dict | None]:
    """{response id: the slice of its items this unit covers, or None for all}."""
    return dict(UnitResponse.objects.filter(unit=unit).values_list("response_id", "items"))


def restrict(items: dict[str, list[dict]], shown: Shown, piece: dict | None) -> dict[str, list[dict]]:
    """Only the slice's items (and what they need: a kept span lists only kept QAs, predicates of kept QAs);
    `shown` loses the rest too, so a submission may label only the slice."""
    if piece is None:
        return items
    keep = {kind: set(piece.get(kind) or []) for kind in ("spans", "qas", "facts")}
    out = dict(items)
    if "qas" in items:
        out["qas"] = [q for q in items["qas"] if q["id"] in keep["qas"]]
        predicate_ids = {q["predicate_id"] for q in out["qas"]}
        out["predicates"] = [p for p in items.get("predicates", []) if p["id"] in predicate_ids]
    if "spans" in items:
        out["spans"] = [
            {**s, "qa_ids": [q for q in s.get("qa_ids", []) if q in keep["qas"]]}
            for s in items["spans"] if s["id"] in keep["spans"]
        ]
    if "facts" in items:
        out["facts"] = [f for f in items["facts"] if f["id"] in keep["facts"]]
    if "knowledge" in items:
        named = {p["id"] for f in out.get("facts", []) for p in f.get("passages", [])}
        out["knowledge"] = [p for p in items["knowledge"] if p["id"] in named]
    shown.spans[:] = [i for i in shown.spans if i in keep["spans"]]
    shown.qas[:] = [i for i in shown.qas if i in keep["qas"]]
    shown.facts[:] = [i for i in shown.facts if i in keep["facts"]]
    for fact in [f for f in shown.passages if f not in keep["facts"]]:
        del shown.passages[fact]
    return out


@functools.lru_cache(maxsize=256)
def _instructions_html(instructions: str | None) -> str:
    """render_markdown (pure) remembered per instructions text: every unit GET of a project shows the same ones,
    and an edited text is a new key."""
    return render_markdown(instructions)


def response_label(index: int) -> str:
    return f"Response {chr(ord('A') + index)}"


def _shown_items(items: dict[str, list[dict]], display: Display) -> dict[str, list[dict]]:
    """Answers, spans and questions of a detokenized response in the shown text (protocols/display.py)."""
    if not display.changed:
        return items
    out = dict(items)
    if "qas" in items:
        out["qas"] = [{**q, "question": question(q.get("question", "")),
                       "answer": display.span(q.get("answer_start"), q.get("answer_end"), q.get("answer", ""))}
                      for q in items["qas"]]
    if "spans" in items:
        out["spans"] = [{**sp, "text": display.span(sp.get("start"), sp.get("end"), sp.get("text", ""))}
                        for sp in items["spans"]]
    return out


def _response(response: Response, label: str, items: dict[str, list[dict]]) -> dict[str, Any]:
    display = Display(response.text, response.tokens or [])
    return {
        "id": response.pk,
        "label": label,
        "text": display.text,
        "tokens": display.token_rows() if display.changed else [list(t)[:3] for t in (response.tokens or [])],
        "sentences": [
            {"start": s.get("start"), "end": s.get("end"), "text": display.sentence(s)} for s in (response.sentences or [])
        ],
        "predicates": [],
        "qas": [],
        "spans": [],
        "facts": [],
        **_shown_items(items, display),
    }


def build(unit: Unit, assignment_part: dict[str, Any], recorded: dict[str, Any] | None = None
          ) -> tuple[dict[str, Any], Shown]:
    """The GET unit answer (without the draft) and what it shows. A unit of a mode no protocol serves (a stray
    row) shows its responses with nothing to judge; submitting it is refused (services.work.submit). `recorded`:
    what the assignment's first payload showed (Assignment.shown): drawn choices (ragas' sides) stay as shown."""
    try:
        protocol = get_protocol(unit.mode)
    except UnknownProtocol:
        protocol = None
    shown = Shown(assignment_id=assignment_part.get("id"), sides=dict((recorded or {}).get("sides") or {}))
    setattr(unit, PLAN_SHOWN_ATTR, shown)
    responses = []
    rows, slices = shown_responses(unit)
    per_response = {r.pk: Shown() for r in rows}
    all_items = protocol.responses_items(rows, per_response) if protocol else {}
    for i, response in enumerate(rows):
        mine = per_response[response.pk]
        items = restrict(all_items[response.pk], mine, slices.get(response.pk)) if protocol else {}
        responses.append(_response(response, response_label(i), items))
        shown.spans.extend(mine.spans)
        shown.qas.extend(mine.qas)
        shown.facts.extend(mine.facts)
        shown.passages.update(mine.passages)
        shown.responses.append(response.pk)
    project, source = unit.project, unit.source
    data = {
        "assignment": assignment_part,
        "project": {"name": project.name, "instructions": project.instructions,
                    "instructions_html": _instructions_html(project.instructions),
                    "protocol": list(project.protocol or [])},
        "source": {"id": source.pk, "text": Display(source.text, source.tokens or []).text,
                   "passages": list(source.passages or []), "question": source.question},
        "responses": responses,
        "plan": protocol.plan(unit, responses) if protocol else [],
        "draft": None,
        "draft_saved_at": None,
    }
    return data, shown
