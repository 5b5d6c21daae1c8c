"""The shared QASem dev votes written in long form come back through import_labels + report with the figures the
release import gives (QA Fleiss 0.739, span 0.782), overall, per dataset and per worker."""
from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import call_command

from annotation_tasks.models import CampaignLabel, ProjectMembership
from tests.campaigns.helpers import LONG_COLUMNS, qasem_long_rows, write_csv, write_jsonl
from tests.conftest import dev_release_committed

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


@pytest.fixture(scope="module")
def dev_release(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The release import both parametrizations compare with: imported once for the module."""
    with dev_release_committed(django_db_blocker, "dev-release") as project:
        yield project


@pytest.fixture(scope="module")
def release_reports(dev_release) -> dict[tuple[str, ...], dict]:
    """The release's reports, computed once for both parametrizations (the module's release is read-only)."""
    return {}


def _report(*args: str) -> dict:
    out = StringIO()
    call_command("report", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def _rows(report: dict) -> dict:
    return {(r["level"], r["group"]): r for r in report["agreement"]}


def _worker_figures(report: dict) -> dict[str, list]:
    out: dict[str, list] = {}
    for r in report["workers"]:
        out.setdefault(r["level"], []).append((r["n_labels"], r["n_compared"], r["agreement"]))
    return {level: sorted(v) for level, v in out.items()}


@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_long_form_votes_give_the_release_figures(tmp_path, researcher, dev_release, release_reports,
                                                  suffix) -> None:
    rows = qasem_long_rows()
    path = tmp_path / f"qasem_dev_votes.{suffix}"
    write_csv(path, rows, LONG_COLUMNS) if suffix == "csv" else write_jsonl(path, rows)
    call_command("import_labels", str(path), "--project", "dev-campaign", stdout=StringIO())
    assert CampaignLabel.objects.count() == len(rows)
    assert ProjectMembership.objects.get(project__name="dev-campaign").user == researcher

    campaign_reports = {}
    for by in (None, "dataset", "system"):
        extra = ("--by", by) if by else ()
        campaign_reports[extra] = _report("--project", "dev-campaign", *extra)
        if extra not in release_reports:
            release_reports[extra] = _report("--project", "dev-release", *extra)
        campaign, release = _rows(campaign_reports[extra]), _rows(release_reports[extra])
        assert set(campaign) == set(release)
        for key, expected in release.items():
            got = campaign[key]
            assert (got["n_items"], got["n_labels"]) == (expected["n_items"], expected["n_labels"]), key
            for figure in ("fleiss_kappa", "krippendorff_alpha", "percent_unanimous"):
                assert got[figure] == pytest.approx(expected[figure], abs=1e-12), (key, figure)
            assert got["majority_share"] == pytest.approx(expected["majority_share"]), key
            assert got["fleiss_kappa_absent"] is None  # three votes on every item: Fleiss applies
    overall = _rows(campaign_reports[()])
    assert round(overall[("qa", None)]["fleiss_kappa"], 3) == 0.739
    assert round(overall[("span", None)]["fleiss_kappa"], 3) == 0.782
    assert _worker_figures(campaign_reports[()]) == _worker_figures(release_reports[()])

    text = StringIO()
    call_command("report", "--project", "dev-campaign", "--by", "dataset", stdout=text)
    assert "0.739" in text.getvalue() and "0.782" in text.getvalue() and "verifiability" in text.getvalue()

    out = StringIO()  # importing the same file again changes nothing
    call_command("import_labels", str(path), "--project", "dev-campaign", stdout=out)
    assert "0 imported" in out.getvalue() and CampaignLabel.objects.count() == len(rows)
