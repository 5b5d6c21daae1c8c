"""The report's item-difficulty and worker-ability tables on the shared QASem dev release (report --json)."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import shared_file

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


def _report(*args: str) -> dict:
    out = StringIO()
    call_command("report", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_report_lists_least_certain_items_and_worker_accuracy_with_se() -> None:
    call_command("import_qasem_release", str(shared_file("qasem_consistency", "dev.jsonl")), "--project", "qu",
                 stdout=StringIO())
    section = _report("--project", "qu")["uncertainty"]
    assert section["model"] == "majority"
    levels = {r["level"]: r for r in section["levels"]}
    assert levels["qa"]["items"] == 1542 and levels["span"]["items"] == 834
    posteriors = [r["posterior"] for r in section["items"]]
    assert posteriors == sorted(posteriors) and posteriors[0] == pytest.approx(0.6)  # a 2-1 item: Beta(3, 2) mean
    for r in section["items"]:
        assert r["ci_low"] <= r["posterior"] <= r["ci_high"] and r["n_votes"] == 3
    workers = section["workers"]
    assert {w["level"] for w in workers} == {"qa", "span"}
    assert all(0 < w["se"] < 0.5 and 0 <= w["accuracy"] <= 1 and w["worker"] for w in workers)
    text = StringIO()
    call_command("report", "--project", "qu", stdout=text)
    assert "Item difficulty" in text.getvalue() and "Worker ability" in text.getvalue()
