"""page_metrics (the workers list's per-page figures, computed in SQL) equals worker_metrics (the frame-based
reference, over every worker of the project) for any page of workers: gold, agreement with ties, units, times."""
from __future__ import annotations

import random

import pytest
from django.utils import timezone

from annotation_tasks.models import QA, AnswerSpan, Assignment, GoldLabel, QALabel, SpanLabel, Worker
from annotation_tasks.services import quality
from annotation_tasks.services.quality.metrics import page_metrics
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def random_project(seed: int, n_workers: int = 7, n_units: int = 5):
    rng = random.Random(seed)
    units = make_unit(f"P{seed}", n_qas=3, n_responses=1, wanted=n_workers, n_sources=n_units)
    workers = [Worker.objects.create(external_id=f"w{seed}-{i}") for i in range(n_workers)]
    for unit in units:
        spans = list(AnswerSpan.objects.filter(response__unit_responses__unit=unit))
        qas = list(QA.objects.filter(response__unit_responses__unit=unit))
        for worker in workers:
            if rng.random() < 0.25:
                continue  # not everyone labels every unit: items with one label, ties, majorities
            status = rng.choice(["submitted", "submitted", "approved", "assigned"])
            a = Assignment.objects.create(unit=unit, worker=worker, status=status, submitted_at=timezone.now(),
                                          time_on_task_ms=rng.choice([0, 1000, 2500, 4000]))
            for span in spans:
                SpanLabel.objects.create(assignment=a, span=span, covered=rng.random() < 0.6)
            for qa in qas:
                QALabel.objects.create(assignment=a, qa=qa, supported=rng.random() < 0.5)
    qa = QA.objects.filter(response__project=units[0].project).first()
    GoldLabel.objects.get_or_create(qa=qa, defaults={"value": "supported"})
    if len(qas) > 1:
        QA.objects.filter(pk=qas[1].pk).update(validity=QA.Validity.INVALID)  # left out of the frame and the SQL
    return units[0].project, workers


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_page_metrics_equal_the_frame_metrics(seed):
    project, workers = random_project(seed)
    reference = quality.worker_metrics(project)
    assert any(m.agreement_compared for m in reference.values())
    assert any(m.gold_total for m in reference.values())
    page = [w.pk for w in workers[2:5]]
    got = page_metrics(project, page)
    assert set(got) == set(page)
    for worker_id in page:
        expected = reference.get(worker_id)
        if expected is None:  # the worker never got an assignment: the reference does not list them
            assert got[worker_id].units_done == 0
            continue
        a, b = got[worker_id].as_dict(), expected.as_dict()
        for key in ("agreement", "gold_accuracy"):
            assert (a.pop(key) is None) == (b[key] is None)
            assert a_val_close(got[worker_id], expected, key)
            b.pop(key)
        assert a == b


def a_val_close(got, expected, key: str) -> bool:
    x, y = getattr(got, key), getattr(expected, key)
    return x is None and y is None or x == pytest.approx(y)


def test_page_metrics_of_no_workers_is_empty():
    project, _ = random_project(9, n_workers=2, n_units=2)
    assert page_metrics(project, []) == {}


def test_cached_metrics_are_every_workers_and_follow_a_change(settings):
    from django.core.cache import cache

    from annotation_tasks.services.quality import metrics

    cache.clear()
    project, workers = random_project(4)
    got = metrics.cached_metrics(project)
    reference = quality.worker_metrics(project)
    assert set(got) == set(reference)
    for worker_id, m in reference.items():
        assert got[worker_id]["units_done"] == m.units_done
        assert a_val_close(metrics.WorkerMetrics(**got[worker_id]), m, "agreement")
    # a change of the data is seen once the kept figures are older than METRICS_FRESH_SECONDS
    a = Assignment.objects.filter(unit__project=project, status="submitted").first()
    Assignment.objects.filter(pk=a.pk).update(status="rejected")
    assert metrics.cached_metrics(project)[a.worker_id]["units_done"] == got[a.worker_id]["units_done"]
    settings.DEBUG = False
    original = metrics.METRICS_FRESH_SECONDS
    metrics.METRICS_FRESH_SECONDS = 0
    try:
        assert metrics.cached_metrics(project)[a.worker_id]["units_done"] == got[a.worker_id]["units_done"] - 1
    finally:
        metrics.METRICS_FRESH_SECONDS = original
