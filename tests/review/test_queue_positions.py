"""The queue's summary and pages read the chosen rows as positions into the table (no copy of the chosen rows):
the same count, decided count and rows as cutting them from the chosen frame (_chosen), for every filter, page and
table (kept in the queue's order by build_table, or built unsorted from given tallies)."""
from __future__ import annotations

import pytest

from annotation_tasks.services import adjudication
from tests.crowd.test_worker_page_metrics import random_project
from tests.review.test_report_summary import decide_some

pytestmark = pytest.mark.django_db

FILTERS = [{}, {"include_agreed": "true"}, {"decided": "true", "include_agreed": "true"}, {"decided": "false"},
           {"level": "qa", "include_agreed": "true"}]


def _expected(project, params: dict, offset: int, limit: int) -> tuple[int, int, list[dict]]:
    table, chosen, counted = adjudication._chosen(project, adjudication._filters(params))
    rows = adjudication._rows(chosen.iloc[offset: offset + limit], counted, adjudication._adjudicated(project),
                              project.pk)
    return int(len(chosen)), int(chosen["decided"].sum()), rows


@pytest.mark.parametrize("seed", [1, 2])
def test_queue_pages_and_summaries_equal_the_chosen_frame(seed) -> None:
    from django.core.cache import cache

    cache.clear()
    project, _ = random_project(seed)
    decide_some(project, 4)
    for params in FILTERS:
        count, decided, _ = _expected(project, params, 0, 1)
        summary = adjudication.queue(project, {**params, "summary": "true"})
        assert (summary["count"], summary["decided"], summary["results"]) == (count, decided, [])
        for offset, limit in ((0, 7), (5, 3), (max(count - 2, 0), 5), (count + 3, 5)):
            page = adjudication.queue(project, {**params, "offset": offset, "limit": limit})
            assert (page["count"], page["decided"]) == (count, decided)
            assert page["results"] == _expected(project, params, offset, limit)[2]
            assert page["next_offset"] == (offset + limit if offset + limit < count else None)


def test_unsorted_table_positions_follow_the_queue_order(monkeypatch) -> None:
    """A table built in the request from given tallies (no `rank`: unsorted) gives its rows in the queue's order."""
    project, _ = random_project(3)
    decide_some(project, 2)
    built, counted = adjudication._build_items_table(project, adjudication.tallies(project))
    table = adjudication._mark_decided(built, project)
    monkeypatch.setattr(adjudication, "queue_table", lambda *a, **k: (table, counted))
    for params in FILTERS:
        filters = adjudication._filters(params)
        _t, positions, _c = adjudication._chosen_rows(project, filters)
        expected = adjudication.queue_order(adjudication._ranked(table[adjudication._filter_mask(table, filters)]))
        assert table.take(positions).equals(expected.drop(columns="rank"))
