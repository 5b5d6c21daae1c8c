"""Issue 23 item 13: `publish --units 5` published 12 units (a source over the unit caps makes several units);
now it publishes exactly 5, from whole sources, and declining its prompt publishes nothing and never says
"published"."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from annotation_tasks.models import Batch, Project, Source, Unit
from annotation_tasks.protocols import get_protocol
from annotation_tasks.services.units import crowd_mode, project_caps, source_units
from tests.work.builders import make_response

pytestmark = pytest.mark.django_db


def _project(sizes: list[int]) -> Project:
    """Sources of 5 QAs each response; caps of 2 QAs split a response into several units."""
    project = Project.objects.create(name="Exact", protocol=["span_coverage", "qa_support"],
                                     unit_caps={"qas": 2, "spans": 2, "facts": 30})
    for i, n_responses in enumerate(sizes):
        source = Source.objects.create(project=project, external_id=f"s{i}",
                                       text="Anna visited Paris . Boris visited Lyon .")
        for j in range(n_responses):
            make_response(project, source, f"s{i}-r{j}", 2)
    return project


def _publish(monkeypatch, answer: str, units: int) -> str:
    monkeypatch.setattr("builtins.input", lambda prompt: answer)
    out = io.StringIO()
    call_command("publish", "--project", "Exact", "--provider", "mturk", "--units", str(units), "--reward", "1.00",
                 stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_units_n_publishes_exactly_n_and_declining_says_not_published(fake_mturk, monkeypatch) -> None:
    project = _project([3, 3, 1, 2, 1, 1])
    per_source = {}
    for source in project.sources.all():
        per_source[source.external_id] = len(source_units(source, get_protocol(crowd_mode(project)),
                                                          project_caps(project), False))
    assert max(per_source.values()) > 1 and sum(per_source.values()) > 5  # the caps split some sources

    declined = _publish(monkeypatch, "n", 5)
    assert ": 5 units x 3 assignments" in declined and "not published" in declined
    assert not any(line.startswith("published") for line in declined.splitlines())
    assert not Batch.objects.exists() and not Unit.objects.exists() and not fake_mturk.hits

    done = _publish(monkeypatch, "y", 5)
    assert "published 5 units" in done
    batch = Batch.objects.get(project=project)
    assert batch.units.count() == 5 and batch.units.exclude(provider_ref="").count() == 5
    # whole sources only: every source in the batch has all its units there
    for source_id in set(batch.units.values_list("source__external_id", flat=True)):
        assert batch.units.filter(source__external_id=source_id).count() == per_source[source_id]
