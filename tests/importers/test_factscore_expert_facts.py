"""Imported expert facts stay the expert's (issue 23, item 1), on the shared FActScore files.

Before: a unit of an imported FActScore response showed the workers the expert's ("human", origin imported)
facts beside the model's; after two workers labelled everything S, expert labels in the export differed from the
imported file. Now workers (and the anonymous preview) see only the model's facts, worker votes never change an
imported expert label, and the export of an imported file with no crowd work is the file, byte for byte; with
crowd work every line is the file's (JSON-equal) plus the crowd's labels under `crowd-atomic-facts`.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotation_tasks.exporters.factscore import export_lines
from annotation_tasks.importers.factscore import CROWD_KEY
from annotation_tasks.models import Assignment, AtomicFact, Batch, FactLabel, Project, Unit, Worker
from annotation_tasks.services import work
from annotation_tasks.services.imports import import_factscore
from annotation_tasks.services.units import compose_units
from tests.conftest import shared_file

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]
N_LINES = 6


@pytest.fixture
def lines(tmp_path) -> tuple[Path, list[str]]:
    """The first lines of the shared InstructGPT file that have expert facts (a small, real file)."""
    kept = []
    for raw in shared_file("factscore_labeled", "InstructGPT.jsonl").read_text(encoding="utf-8").split("\n"):
        if raw and any(s.get("human-atomic-facts") for s in json.loads(raw)["annotations"] or []):
            kept.append(raw)
        if len(kept) == N_LINES:
            break
    path = tmp_path / "InstructGPT.jsonl"
    path.write_text("".join(x + "\n" for x in kept), encoding="utf-8")
    return path, kept


def _crowd(project: Project) -> list[Unit]:
    batch = Batch.objects.create(project=project, name="crowd")
    units = compose_units(batch, mode="factscore", assignments_wanted=2)
    for unit in units:
        for name in ("w1", "w2"):
            worker, _ = Worker.objects.get_or_create(external_id=f"crowd-{name}")
            assignment = Assignment.objects.create(unit=unit, worker=worker)
            payload = work.unit_payload(assignment)
            assignment.refresh_from_db()
            facts = [{"fact_id": f["id"], "label": "S"} for r in payload["responses"] for f in r["facts"]]
            assert work.submit(assignment, {"labels": {"facts": facts}}).status == "submitted"
    return units


def test_workers_see_only_the_models_facts(lines) -> None:
    path, _ = lines
    import_factscore([path], "fs")
    project = Project.objects.get(name="fs")
    assert AtomicFact.objects.filter(response__project=project, kind="human").exists()
    batch = Batch.objects.create(project=project, name="crowd")
    seen: set[int] = set()
    for unit in compose_units(batch, mode="factscore", assignments_wanted=2):
        worker, _ = Worker.objects.get_or_create(external_id="crowd-look")
        assignment = Assignment.objects.create(unit=unit, worker=worker)
        for payload in (work.unit_payload(assignment), work.preview_payload(unit)):
            shown = [f["id"] for r in payload["responses"] for f in r["facts"]]
            kinds = set(AtomicFact.objects.filter(pk__in=shown).values_list("kind", flat=True))
            assert shown and kinds == {"model"}
            seen.update(shown)
    assert seen == set(AtomicFact.objects.filter(response__project=project, kind="model").values_list("pk", flat=True))


def test_the_export_of_an_imported_file_is_the_file_and_crowd_votes_never_change_expert_labels(lines) -> None:
    path, original = lines
    import_factscore([path], "fs")
    project = Project.objects.get(name="fs")
    assert list(export_lines(project)) == original  # no crowd work: the file, byte for byte
    experts_before = sorted(FactLabel.objects.filter(fact__kind="human").values_list("fact_id", "label"))
    _crowd(project)
    assert sorted(FactLabel.objects.filter(fact__kind="human").values_list("fact_id", "label")) == experts_before
    exported = [json.loads(x) for x in export_lines(project)]
    crowd_labels = 0
    for want, got in zip((json.loads(x) for x in original), exported, strict=True):
        for sentence in got["annotations"] or []:
            crowd = sentence.pop(CROWD_KEY, [])
            crowd_labels += len(crowd)
            assert all(c["label"] == "S" for c in crowd)
        assert got == want  # every expert fact and label as the file has it
    assert crowd_labels == AtomicFact.objects.filter(response__project=project, kind="model",
                                                     labels__isnull=False).distinct().count()
