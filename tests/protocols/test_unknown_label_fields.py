"""Issue 23 item 13: unknown keys in submitted labels were stored with the submission; now a submit with a key
no protocol reads is refused with its JSON path, and nothing is written. The element's empty lists for the
sections a unit does not have stay accepted."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment, QALabel, Worker
from annotation_tasks.services import queue, work
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def _labels(payload: dict) -> dict:
    r = payload["responses"][0]
    return {
        "spans": [{"span_id": s["id"], "covered": True} for s in r["spans"]],
        "qas": [{"qa_id": q["id"], "supported": True, "derived_from_span": False, "note": ""} for q in r["qas"]],
        "pairwise": [], "facts": [], "validation": [], "entailment": [],  # what the element sends for other kinds
    }


def _assignment():
    unit = make_unit("Fields", n_qas=2, n_responses=1, protocol=["span_coverage", "qa_support"])
    a = queue.assign(unit, Worker.objects.create(provider="local", external_id="W1"))
    return a, work.unit_payload(a)


@pytest.mark.parametrize(("change", "path"), [
    (lambda labels: labels["qas"][1].update(colour="red"), "labels.qas[1].colour"),
    (lambda labels: labels["spans"][0].update(confidence=0.9), "labels.spans[0].confidence"),
    (lambda labels: labels.update(extra=[{"x": 1}]), "labels.extra"),
    (lambda labels: labels.update(comment="hi"), "labels.comment"),
])
def test_an_unknown_key_is_refused_with_its_path(change, path) -> None:
    a, payload = _assignment()
    labels = _labels(payload)
    change(labels)
    with pytest.raises(work.Invalid) as caught:
        work.submit(a, {"labels": labels})
    assert path in [e["field"] for e in caught.value.errors]
    a.refresh_from_db()
    assert a.status == Assignment.Status.ASSIGNED and not QALabel.objects.exists() and not a.submission


def test_the_elements_own_submission_is_accepted() -> None:
    a, payload = _assignment()
    work.submit(a, {"labels": _labels(payload)})
    a.refresh_from_db()
    assert a.status == Assignment.Status.SUBMITTED and QALabel.objects.count() == 2
