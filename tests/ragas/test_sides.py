"""Ragas units randomise sides (issue 23, item 10).

Before: the grounded answer was the one in both answer comparisons and context_v1 was always A, so position gave the
reference away. Now each assignment sees each pair on sides drawn for it (recorded in `shown`, stable on reload),
and the analysis of the randomised judgments equals the analysis of the same preferences shown unrandomised.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from annotation_tasks.analysis.pairwise import pairwise_summary
from annotation_tasks.models import Assignment, Batch, Project, Response, Worker
from annotation_tasks.protocols.ragas.protocol import comparisons
from annotation_tasks.services import frames, work
from annotation_tasks.services.imports import import_wikieval
from annotation_tasks.services.units import compose_units
from tests.ragas.test_wikieval_import import wikieval_row, write_jsonl

pytestmark = pytest.mark.django_db
WORKERS = 8


def _name(c: dict, side: str, systems: dict[int, str]) -> str:
    return systems[c[side]] if c["compares"] == "responses" else f"context_v{c[side] + 1}"


def _score(c: dict, systems: dict[int, str]) -> int:
    """A careful worker: the grounded answer and context_v1 much better, whichever side they are on."""
    return 1 if _name(c, "a", systems) in ("answer", "context_v1") else 5


def test_sides_are_drawn_per_assignment_and_the_analysis_maps_them_back(tmp_path: Path) -> None:
    import_wikieval(write_jsonl(tmp_path / "w.jsonl", [wikieval_row(k) for k in range(3)]), "sides")
    project = Project.objects.get(name="sides")
    units = compose_units(Batch.objects.create(project=project, name="b"), assignments_wanted=WORKERS)
    systems = dict(Response.objects.filter(project=project).values_list("id", "system"))
    truth = []  # the same judgments as an unrandomised interface would have recorded them
    drawn: list[bool] = []
    for unit in units:
        canonical = {c["aspect"]: c for c in comparisons(unit, list(unit.responses.order_by("id").values_list(
            "id", flat=True)))}
        for k in range(WORKERS):
            worker, _ = Worker.objects.get_or_create(external_id=f"w{k}")
            assignment = Assignment.objects.create(unit=unit, worker=worker)
            payload = work.unit_payload(assignment)
            assignment.refresh_from_db()
            (section,) = payload["plan"]
            assert work.unit_payload(assignment)["plan"] == payload["plan"]  # stable on reload
            sides = assignment.shown["sides"]
            for c in section["comparisons"]:
                straight = canonical[c["aspect"]]
                assert (c["a"], c["b"]) == ((straight["b"], straight["a"]) if sides[c["aspect"]] else
                                            (straight["a"], straight["b"]))
                drawn.append(sides[c["aspect"]])
                truth.append({"unit_id": unit.pk, "aspect": c["aspect"], "worker_id": worker.pk,
                              "system_a": _name(straight, "a", systems), "system_b": _name(straight, "b", systems),
                              "score": _score(straight, systems)})
            scores = [{"aspect": c["aspect"], "score": _score(c, systems)} for c in section["comparisons"]]
            assert work.submit(assignment, {"labels": {"pairwise": scores}}).status == "submitted"
    assert any(drawn) and not all(drawn)  # both sides occur
    randomised = pairwise_summary(frames.preferences_frame(project))
    assert randomised == pairwise_summary(pd.DataFrame(truth))
    wins = {r["aspect"]: r for r in randomised}
    assert wins and all(r["n_judgments"] == len(units) * WORKERS for r in wins.values())


def test_two_workers_who_saw_a_pair_either_way_round_agree_in_review_and_adjudication(tmp_path: Path) -> None:
    """The review's majority and the adjudication queue compare scores oriented to one side of each pair: two
    workers who both prefer the grounded answer, shown on opposite sides, are unanimous (not 1 against 5)."""
    from annotation_tasks.services import adjudication, review

    import_wikieval(write_jsonl(tmp_path / "w.jsonl", [wikieval_row(0)]), "either way")
    project = Project.objects.get(name="either way")
    (unit,) = compose_units(Batch.objects.create(project=project, name="b"), assignments_wanted=2)
    systems = dict(Response.objects.filter(project=project).values_list("id", "system"))
    done = []
    for k, swap in enumerate((False, True)):
        worker, _ = Worker.objects.get_or_create(external_id=f"w{k}")
        aspects = ("faithfulness", "answer_relevance", "context_relevance")
        assignment = Assignment.objects.create(unit=unit, worker=worker, shown={"sides": dict.fromkeys(aspects, swap)})
        (section,) = work.unit_payload(assignment)["plan"]
        scores = [{"aspect": c["aspect"], "score": _score(c, systems)} for c in section["comparisons"]]
        assert work.submit(assignment, {"labels": {"pairwise": scores}}).status == "submitted"
        done.append(assignment)
    raw = {(p.assignment_id, p.aspect): p.score for p in unit.preferences.all()}
    assert {raw[(done[0].pk, a)] for a in ("faithfulness", "context_relevance")} != \
        {raw[(done[1].pk, a)] for a in ("faithfulness", "context_relevance")}  # opposite sides, opposite raw scores
    rows = review.assignment_review(done[1])["items"]
    assert rows and all(r["agrees"] is True for r in rows)
    assert adjudication.queue(project)["results"] == []  # unanimous: nothing to adjudicate
