"""Ragas' human protocol (WikiEval): for one question, two answers compared on faithfulness and on answer
relevance, and two retrieved contexts compared on context relevance, each on the 1–5 pairwise scale.

Which two things each aspect compares is decided here, once (`comparisons`), and sent in the plan; the element
renders it and validate checks the same list. Answers imported from the WikiEval layout keep their column as
system name, so the pairs are Ragas' own: faithfulness sets the grounded `answer` against the
`ungrounded_answer` (written without the context), answer relevance sets it against the `poor_answer`. A unit
of any two answers compares those two on both aspects. Context relevance compares the source's first two
passages (WikiEval's context_v1 and context_v2) when it has two. The system names never leave the server: the
plan names responses by id and contexts by their index in `source.passages`.

Sides are drawn per assignment and aspect: the grounded answer and context_v1 would otherwise always sit on one
side and give the reference away. Whether a pair is shown swapped is a keyed hash of the assignment and the aspect
(stable on reload and at submit, not guessable from the assignment id), recorded in the assignment's `shown`
("sides"); validate reads the recorded sides, so a score is always about the pair as it was shown.

Labels are PairwisePreference rows (one per aspect): answers in response_a / response_b and contexts in context_a /
context_b as shown (A left); services.frames.preferences_frame reads both, and analysis.pairwise orients every
judgment by system name (context_v1, context_v2 for contexts), so a swapped side maps back to the same result.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from django.conf import settings

from annotation_tasks.models import Assignment, PairwisePreference, Response, Unit
from annotation_tasks.models.projects import Protocol
from annotation_tasks.protocols.base import PLAN_SHOWN_ATTR, AnnotationProtocol, Errors, Shown, Step, Submission
from annotation_tasks.protocols.fields import PAIRWISE_KEYS, PAIRWISE_LEVEL, check_fields, pairwise_scores

Aspect = PairwisePreference.Aspect
ANSWER_ASPECTS = (Aspect.FAITHFULNESS.value, Aspect.ANSWER_RELEVANCE.value)
CONTEXT_ASPECT = Aspect.CONTEXT_RELEVANCE.value
ASPECTS = (*ANSWER_ASPECTS, CONTEXT_ASPECT)
GROUNDED = "answer"
"""WikiEval's answer grounded on context_v1 (its column name, kept as the response's system)."""
FOILS = {Aspect.FAITHFULNESS.value: "ungrounded_answer", Aspect.ANSWER_RELEVANCE.value: "poor_answer"}
"""The WikiEval answer each answer aspect sets against the grounded one (Ragas, section 5)."""
RESPONSES, CONTEXTS = "responses", "contexts"


def comparisons(unit: Unit, response_ids: list[int]) -> list[dict[str, Any]]:
    """[{aspect, compares: "responses" | "contexts", a, b}] in ASPECTS order; a and b in display order.

    An answer aspect compares the WikiEval pair when both answers are in the unit, else the unit's two
    responses when it has exactly two; context relevance compares passages 0 and 1 when there are two."""
    systems = dict(Response.objects.filter(pk__in=response_ids).values_list("id", "system"))
    by_system: dict[str, int] = {}
    for rid in response_ids:  # the first response of each system, in display order
        by_system.setdefault(systems.get(rid, ""), rid)
    out: list[dict[str, Any]] = []
    for aspect in ANSWER_ASPECTS:
        grounded, foil = by_system.get(GROUNDED), by_system.get(FOILS[aspect])
        if grounded is not None and foil is not None:
            pair = sorted((grounded, foil), key=response_ids.index)
        elif len(response_ids) == 2:
            pair = list(response_ids)
        else:
            continue
        out.append({"aspect": aspect, "compares": RESPONSES, "a": pair[0], "b": pair[1]})
    if len(unit.source.passages or []) >= 2:
        out.append({"aspect": CONTEXT_ASPECT, "compares": CONTEXTS, "a": 0, "b": 1})
    return out


def swapped(assignment_id: int | None, aspect: str) -> bool:
    """Whether the assignment sees the aspect's pair swapped: a keyed hash (stable for the assignment, unknown to
    the worker), or a fresh draw for a preview."""
    if assignment_id is None:
        return secrets.randbelow(2) == 1
    digest = hmac.new(settings.SECRET_KEY.encode(), f"ragas-sides:{assignment_id}:{aspect}".encode(), hashlib.sha256)
    return digest.digest()[0] & 1 == 1


def with_sides(compared: list[dict[str, Any]], sides: dict[str, bool]) -> list[dict[str, Any]]:
    """The comparisons as shown: a and b exchanged where `sides` says the aspect was swapped."""
    return [{**c, "a": c["b"], "b": c["a"]} if sides.get(c["aspect"]) else c for c in compared]


def _ids(responses: list[Any]) -> list[int]:
    return [r["id"] if isinstance(r, dict) else r.pk for r in responses]


GUIDE = """\
**Compare answers and contexts (Ragas).** For the question, each comparison shows two things side by side and asks
one thing about them; 1 = the left one much better, 3 = about equal, 5 = the right one much better. Faithfulness:
which answer makes only claims the contexts support. Answer relevance: which answer addresses the question directly
and completely (correctness does not count here). Context relevance: which context holds what the question needs
with the least that it does not.
"""


LABEL_FIELDS = {"pairwise": ("aspect", "score")}

class RagasProtocol(AnnotationProtocol):
    mode = Unit.Mode.RAGAS.value
    title = "Ragas (WikiEval): answers and contexts compared"
    steps = (Step(Protocol.RAGAS_PAIRWISE.value, Protocol.RAGAS_PAIRWISE.label),)
    plan_kinds = (Protocol.RAGAS_PAIRWISE.value,)
    review_levels = (PAIRWISE_LEVEL,)
    keys = PAIRWISE_KEYS
    guide = GUIDE
    review = "annotation_tasks.protocols.ragas.review:RagasReview"

    def response_items(self, response: Response, shown: Shown) -> dict[str, list[dict]]:
        """Nothing inside a response is judged: the answers are compared whole (the payload has their text)."""
        return {}

    def plan(self, unit: Unit, responses: list[dict]) -> list[dict]:
        """One ragas_pairwise section: every response of the unit and what each aspect compares."""
        ids = _ids(responses)
        compared = comparisons(unit, ids)
        if not compared:
            return []
        shown: Shown | None = getattr(unit, PLAN_SHOWN_ATTR, None)
        if shown is not None:  # draw each aspect's side once per assignment; a recorded draw stands
            for c in compared:
                shown.sides.setdefault(c["aspect"], swapped(shown.assignment_id, c["aspect"]))
            compared = with_sides(compared, shown.sides)
        return [{"kind": Protocol.RAGAS_PAIRWISE.value, "response_ids": ids,
                 "aspects": [c["aspect"] for c in compared], "comparisons": compared}]

    def validate(self, submission: Submission, errors: Errors) -> dict[str, Any]:
        check_fields(submission.labels, LABEL_FIELDS, errors)
        recorded: Any = submission.shown.get("sides") or {}  # the pairs as this assignment saw them
        sides = {str(k): bool(v) for k, v in recorded.items()} if isinstance(recorded, dict) else {}
        compared = {c["aspect"]: c for c in with_sides(comparisons(submission.unit, _ids(submission.responses)), sides)}
        if not compared:
            errors.add("labels.pairwise", "this unit has nothing to compare")
            return {}
        scores = pairwise_scores(submission.labels, list(compared), errors)
        return {aspect: {**compared[aspect], "score": score} for aspect, score in scores.items()}

    def write(self, assignment: Assignment, submission: Submission, clean: dict[str, Any]) -> None:
        rows = []
        for aspect in ASPECTS:  # answers first: a pair of responses is the unit's first preference row
            c = clean.get(aspect)
            if c is None:
                continue
            pair = ({"response_a_id": c["a"], "response_b_id": c["b"]} if c["compares"] == RESPONSES
                    else {"context_a": c["a"], "context_b": c["b"]})
            rows.append(PairwisePreference(assignment=assignment, unit=submission.unit, aspect=aspect,
                                           score=c["score"], **pair))
        PairwisePreference.objects.bulk_create(rows)
