"""Exporting a project in another format than it was imported in (the dashboard offers every format): the
imported line's keys belong to its own format and must not leak into the other one (a FActScore export of
the QASem demo was one line of nulls per response)."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from annotation_tasks.models import Project
from annotation_tasks.services.exports import export_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    call_command("load_demo", stdout=io.StringIO())
    return Project.objects.get(name="Demo"), Project.objects.get(name="Demo FActScore")


def _lines(project, fmt) -> list[dict]:
    return [json.loads(line) for line in export_lines(project.name, fmt)]


def test_factscore_export_of_a_qasem_release_project(demo):
    qasem, _ = demo
    rows = _lines(qasem, "factscore")
    texts = sorted(qasem.responses.values_list("text", flat=True))
    assert sorted(r["output"] for r in rows) == texts
    # the demo's two systems: each line names its own (`system`), so the export imports back
    assert all(set(r) == {"input", "output", "topic", "cat", "annotations", "system"} for r in rows)
    assert all(isinstance(r["annotations"], list) and r["annotations"] for r in rows)


def test_qasem_release_export_of_a_factscore_project(demo):
    _, facts = demo
    rows = _lines(facts, "qasem-release")
    assert len(rows) == facts.responses.count()
    assert all({"source_id", "source", "summary", "model"} <= set(r) and "output" not in r for r in rows)
    assert {r["model"] for r in rows} == {"demo-llm"}


def test_each_format_still_round_trips_its_own_import(demo):
    qasem, facts = demo
    assert all("summary" in r and "output" not in r for r in _lines(qasem, "qasem-release"))
    assert all("output" in r and "summary" not in r for r in _lines(facts, "factscore"))
