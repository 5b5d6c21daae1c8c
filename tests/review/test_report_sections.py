"""The report and the adjudication queue in parts (issue 25 item 2): a summary first (tables cut to a page, their
lengths beside), then pages of each table, all read from one cached build that a change of the data replaces."""
from __future__ import annotations

from unittest import mock

import pytest

from annotation_tasks.models import Assignment
from annotation_tasks.services import adjudication, reports
from tests.review.conftest import client_for, member

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice(qasem_study, people):
    member(qasem_study.project, people["alice"])
    from django.core.cache import cache

    cache.clear()
    return client_for(people["alice"])


def test_summary_then_pages_equal_the_whole_report(qasem_study, alice) -> None:
    url = f"/api/projects/{qasem_study.project.pk}/report/"
    whole = alice.get(url).json()
    summary = alice.get(url, {"section": "details", "page_size": 1}).json()  # the full build's summary
    assert summary["tables"]["workers"] == len(whole["workers"]) > 1
    assert summary["workers"] == whole["workers"][:1] and summary["counts"] == whole["counts"]
    for name in ("workers", "confusion", "agreement"):
        rows, page = [], 1
        while True:
            body = alice.get(url, {"section": name, "page": page, "page_size": 2}).json()
            assert body["count"] == summary["tables"][name]
            rows += body["results"]
            if len(rows) >= body["count"]:
                break
            page += 1
        assert rows == whole[name]


def test_sections_read_one_cached_build_until_the_data_changes(qasem_study, alice) -> None:
    url = f"/api/projects/{qasem_study.project.pk}/report/"
    with mock.patch.object(reports, "build_report", wraps=reports.build_report) as build:
        alice.get(url, {"section": "summary"})  # SQL counts: no build (tests/review/test_report_summary.py)
        assert build.call_count == 0
        alice.get(url, {"section": "details"})
        alice.get(url, {"section": "workers", "page": 1})
        assert build.call_count == 1
        a = qasem_study.assignments["w3"]
        Assignment.objects.filter(pk=a.pk).update(status=Assignment.Status.REJECTED)
        alice.get(url, {"section": "workers"})
        assert build.call_count == 2


@pytest.mark.parametrize("query,field", [
    ({"section": "nope"}, "section"), ({"section": "workers", "page": "0"}, "page"),
    ({"section": "workers", "page_size": "501"}, "page_size"), ({"section": "workers", "page": "99"}, "page"),
])
def test_bad_section_parameters_are_400_naming_the_field(qasem_study, alice, query, field) -> None:
    answer = alice.get(f"/api/projects/{qasem_study.project.pk}/report/", query)
    assert answer.status_code == 400 and field in answer.json()


def test_the_queue_summary_has_no_rows_and_pages_walk_the_whole_queue(qasem_study, alice) -> None:
    url = f"/api/projects/{qasem_study.project.pk}/adjudication/queue/"
    summary = alice.get(url, {"summary": "true", "include_agreed": "true"}).json()
    assert summary["results"] == [] and summary["count"] > 2 and summary["next_offset"] is None
    rows, offset = [], 0
    while offset is not None:
        body = alice.get(url, {"include_agreed": "true", "limit": 2, "offset": offset}).json()
        rows += body["results"]
        offset = body["next_offset"]
    everything = list(adjudication.queue_rows(qasem_study.project, {"include_agreed": "true"}))
    assert [(r["level"], r["item_id"], r["aspect"]) for r in rows] == [
        (r["level"], r["item_id"], r["aspect"]) for r in everything]
    assert len(rows) == summary["count"]
