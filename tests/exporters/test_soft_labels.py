"""Gold exports carry soft labels beside the label (exporters.certainty): posterior, its 95% interval, soft_label;
the majority's from the votes, Dawid-Skene's from the fitted model; the HF dataset card describes them."""
from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation_tasks.analysis.uncertainty import estimate
from annotation_tasks.models import QA, Project
from annotation_tasks.services import frames
from tests.conftest import dev_release_committed

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


@pytest.fixture(scope="module")
def _imported_dev(django_db_setup, django_db_blocker) -> Iterator[str]:
    with dev_release_committed(django_db_blocker, "soft") as project:
        yield project


def _lines(project: str, out: Path, *args: str) -> list[dict]:
    call_command("export", "--project", project, "-o", str(out), *args, stdout=StringIO(), stderr=StringIO())
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_majority_soft_labels_follow_the_votes(_imported_dev, db, tmp_path) -> None:
    rows = _lines(_imported_dev, tmp_path / "qa.jsonl", "--format", "qa-jsonl")
    assert len(rows) == 1542
    for r in rows:
        agree = r["votes"].count(r["label"])
        assert r["posterior"] == pytest.approx((agree + 1) / 5, abs=1e-4)  # Dirichlet(1): 3-0 -> 0.8, 2-1 -> 0.6
        low, high = r["posterior_ci95"]
        assert low < r["posterior"] < high
        assert r["soft_label"][r["label"]] == r["posterior"] and sum(r["soft_label"].values()) == pytest.approx(1)


def test_dawid_skene_soft_labels_are_the_models_and_the_card_names_them(_imported_dev, db, tmp_path) -> None:
    rows = _lines(_imported_dev, tmp_path / "ds.jsonl", "--format", "qa-jsonl", "--aggregation", "dawid_skene")
    labels = frames.labels_frame(Project.objects.get(name=_imported_dev))
    items = estimate(labels[labels["level"] == "qa"][["level", "item_id", "worker_id", "label"]],
                     "dawid_skene").items.set_index("item_id")
    qa_ids = list(QA.objects.filter(response__project__name=_imported_dev).exclude(validity=QA.Validity.INVALID)
                  .order_by("response_id", "order", "id").values_list("pk", flat=True))
    assert [r["label"] for r in rows] == items.loc[qa_ids, "label"].tolist()
    assert [r["posterior"] for r in rows] == pytest.approx(items.loc[qa_ids, "posterior"].tolist(), abs=1e-4)
    assert any(r["posterior"] > 0.99 for r in rows) and any(r["posterior"] < 0.9 for r in rows)
    out = tmp_path / "hf"
    call_command("export", "--project", _imported_dev, "--format", "hf-dataset", "-o", str(out),
                 stdout=StringIO(), stderr=StringIO())
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "`posterior_ci95`" in card and "`soft_label`" in card
    first = json.loads((out / "qa" / "dev.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert {"posterior", "posterior_ci95", "soft_label"} <= set(first)


def test_exporters_majority_posterior_is_the_analysis_one_to_the_bit() -> None:
    """exporters.certainty computes the majority's posterior without scipy.stats (betaincinv: the Boost routine
    beta.ppf calls); on every count matrix of up to 3 labels and 12 votes it equals analysis.uncertainty's, bit for
    bit, and its constants are the analysis's."""
    import itertools

    import numpy as np

    from annotation_tasks.analysis import uncertainty
    from annotation_tasks.exporters import certainty

    assert (certainty.PRIOR, certainty.LEVEL) == (uncertainty.PRIOR, uncertainty.LEVEL)
    for k in (2, 3):
        counts = np.array([c for c in itertools.product(range(13), repeat=k) if 0 < sum(c) <= 12], dtype=np.int64)
        for winner in (counts.argmax(axis=1), np.zeros(len(counts), dtype=np.int64)):
            ours, theirs = certainty.majority_posterior(counts, winner), uncertainty.majority_posterior(counts, winner)
            for key in ("posterior", "ci_low", "ci_high", "soft"):
                assert np.array_equal(ours[key], theirs[key]), key


def test_the_export_path_does_not_import_scipy_stats() -> None:
    """A Celery worker running an export (majority labels) never loads scipy.stats (~45 MB): services.exports and
    the exporters import analysis.uncertainty and services.reports only where a model or a campaign needs them."""
    import subprocess
    import sys

    code = ("import django, os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'backend.settings'); "
            "django.setup(); import annotation_tasks.services.export_jobs, annotation_tasks.exporters.qa_jsonl; "
            "print('scipy.stats' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          env={**__import__("os").environ, "DEBUG": "true"})
    assert done.stdout.strip().splitlines()[-1:] == ["False"], done.stderr[-2000:]
