"""report --aggregation on a collected project: where Dawid-Skene differs from the majority, per level."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.analysis.crowd_models import fit
from annotation_tasks.models import Project
from annotation_tasks.services import frames
from tests.conftest import shared_file

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def test_report_counts_where_dawid_skene_differs_from_the_majority() -> None:
    call_command("import_qasem_release", str(shared_file("qasem_consistency", "dev.jsonl")), "--project", "dev",
                 stdout=StringIO())
    out = StringIO()
    call_command("report", "--project", "dev", "--aggregation", "dawid_skene", "--json", stdout=out)
    report = json.loads(out.getvalue())
    labels = frames.labels_frame(Project.objects.get(name="dev"))
    rows = {r["level"]: r for r in report["aggregation"]["differences"]}
    assert set(rows) == {"qa", "span"}
    for level, row in rows.items():
        level_labels = labels[labels["level"] == level]
        model, majority = fit(level_labels, "dawid_skene", level).labels, fit(level_labels, "majority", level).labels
        assert row["n_items"] == len(majority)
        assert row["n_differ"] == int((model != majority.reindex(model.index)).sum())
        assert row["pct_differ"] == pytest.approx(100 * row["n_differ"] / row["n_items"])
    competence = report["aggregation"]["competence"]
    assert {r["level"] for r in competence} == {"qa", "span"}
    assert all(0.0 <= r["dawid_skene"] <= 1.0 for r in competence)

    text = StringIO()
    call_command("report", "--project", "dev", "--aggregation", "dawid_skene", stdout=text)
    assert "Aggregation models against the majority" in text.getvalue()
    plain = StringIO()
    call_command("report", "--project", "dev", "--json", stdout=plain)
    assert json.loads(plain.getvalue())["aggregation"] is None  # only on request: GLAD and MACE take time
    with pytest.raises(CommandError, match="unknown model"):
        call_command("report", "--project", "dev", "--aggregation", "bayes", stdout=StringIO())
