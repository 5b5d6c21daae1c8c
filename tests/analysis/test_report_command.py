"""End to end: import the published files with the real commands, run `report --json`, check the figures."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.analysis.release import assert_paper_factscore
from tests.conftest import shared_file

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def _report(*args: str) -> dict:
    out = StringIO()
    call_command("report", *args, "--json", stdout=out)
    text = out.getvalue()
    return json.loads(text)  # the whole of stdout must be one JSON object


def _agreement(report: dict) -> dict:
    return {(r["level"], r["group"]): r for r in report["agreement"]}


def test_qasem_release_report_reproduces_published_kappas() -> None:
    call_command("import_qasem_release", str(shared_file("qasem_consistency", "dev.jsonl")), "--project", "qasem",
                 stdout=StringIO())
    overall = _agreement(_report("--project", "qasem"))
    assert round(overall[("qa", None)]["fleiss_kappa"], 3) == 0.739
    assert round(overall[("span", None)]["fleiss_kappa"], 3) == 0.782
    assert overall[("qa", None)]["n_items"] == 1542
    assert overall[("span", None)]["n_items"] == 834

    by_dataset = _report("--project", "qasem", "--by", "dataset")
    rows = _agreement(by_dataset)
    for dataset, qa_kappa, span_kappa in [("cliff", 0.741, 0.771), ("factscore", 0.822, 0.845),
                                          ("verifiability", 0.627, 0.661)]:
        assert round(rows[("qa", dataset)]["fleiss_kappa"], 3) == qa_kappa
        assert round(rows[("span", dataset)]["fleiss_kappa"], 3) == span_kappa
    # consistency rows exist per (dataset, system), each with a bootstrap interval around its mean
    assert by_dataset["consistency"]
    for row in by_dataset["consistency"]:
        assert row["ci95"][0] <= row["consistency"] <= row["ci95"][1]

    by_split = _agreement(_report("--project", "qasem", "--by", "split"))
    dev, test = by_split[("qa", "dev")], by_split[("qa", "test")]
    assert dev["n_items"] + test["n_items"] == 1542 and dev["n_items"] > 0 and test["n_items"] > 0

    by_system = _report("--project", "qasem", "--by", "system")
    systems = {r["system"] for r in by_system["consistency"]}
    assert {"bart", "pegasus", "ChatGPT", "InstructGPT"} <= systems
    assert {r["group"] for r in by_system["agreement"] if r["level"] == "qa"} >= {None, "bart", "pegasus"}

    text = StringIO()
    call_command("report", "--project", "qasem", stdout=text)
    assert "0.739" in text.getvalue() and "0.782" in text.getvalue()


def test_factscore_report_reproduces_the_paper() -> None:
    files = [str(shared_file("factscore_labeled", f"{s}.jsonl")) for s in ("InstructGPT", "ChatGPT")]
    call_command("import_factscore", *files, "--project", "fs", stdout=StringIO())
    assert_paper_factscore({r["system"]: r for r in _report("--project", "fs")["factscore"]})


def test_unknown_project_is_a_command_error() -> None:
    with pytest.raises(CommandError):
        call_command("report", "--project", "nope", "--json", stdout=StringIO())
