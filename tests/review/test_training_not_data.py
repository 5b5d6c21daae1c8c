"""A training unit's labels are the worker's practice against the expert's: paid and judged (services/training.py),
never data. The frames the analysis reads, the preferences and the exports leave them out (Assignment.data_q),
while the assignments still count for approval."""
from __future__ import annotations

import json

from annotation_tasks.models import Assignment, Unit
from annotation_tasks.services import frames
from annotation_tasks.services.exports import export_lines


def _qa_votes(project) -> int:
    return sum(len(json.loads(line).get("votes") or []) for line in export_lines(project.name, "qa-jsonl"))


def test_labels_of_a_training_unit_leave_frames_preferences_and_exports(qasem_study):
    project = qasem_study.project
    labels, prefs, votes = frames.labels_frame(project), frames.preferences_frame(project), _qa_votes(project)
    assert labels["label"].notna().sum() > 0 and len(prefs) == 3 and votes > 0  # three workers' labels are data
    Unit.objects.filter(pk=qasem_study.unit.pk).update(is_training=True)
    after = frames.labels_frame(project)
    assert after["label"].notna().sum() == 0
    assert len(frames.preferences_frame(project)) == 0 and _qa_votes(project) == 0
    # the work itself still counts: it is paid and approved like any other
    assert Assignment.objects.filter(Assignment.counted_q(), unit=qasem_study.unit).count() == 3


def test_fact_labels_of_a_training_unit_leave_the_fact_frame(factscore_study):
    project = factscore_study.project
    assert frames.facts_frame(project)["label"].notna().sum() > 0
    Unit.objects.filter(pk=factscore_study.unit.pk).update(is_training=True)
    assert frames.facts_frame(project)["label"].notna().sum() == 0
