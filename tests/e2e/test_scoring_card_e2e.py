"""Scoring and a knowledge source from the dashboard's Data view, in Chromium (issue 23 item 12): choose a configured
scorer, start, follow the score Job to its result; upload a knowledge file and follow its import Job."""
from __future__ import annotations

import json

import pytest

from annotation_tasks.models import AtomicFact, ItemScore, KnowledgeSource, ProjectMembership
from tests.e2e.helpers import AXE_JS, axe_violations, researcher_page
from tests.work.builders import make_unit

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_score_and_upload_a_knowledge_source_from_the_data_view(live_server, new_page, dashboard_js, shot, tmp_path,
                                                                 settings, django_user_model):
    settings.VAR_DIR = tmp_path
    researcher = django_user_model.objects.create_user("res", password="pw")
    project = make_unit("Scoring card", protocol=["fact_labeling"], with_facts=True, n_qas=2, n_responses=1).project
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    page = researcher_page(new_page, live_server.url, "res", bypass_csp=True)  # bypass_csp: for axe-core only
    page.goto(f"{live_server.url}/#/p/{project.pk}/data")
    card = page.get_by_test_id("scoring-card")
    card.get_by_test_id("scorer").select_option("overlap")
    card.get_by_test_id("start-score").click()
    page.locator("[data-testid=score-job][data-job-status=done]").wait_for()
    result = card.get_by_test_id("score-result").inner_text()
    assert "with overlap" in result and ItemScore.objects.filter(scorer="overlap").exists()
    card.get_by_test_id("scores-present").wait_for()

    wiki = tmp_path / "wiki.jsonl"
    wiki.write_text(json.dumps({"title": "s0", "text": "Anna visited Oslo. The city is Oslo."}) + "\n", encoding="utf-8")
    card.get_by_test_id("knowledge-file").set_input_files(str(wiki))
    page.locator("[data-testid=knowledge-job][data-job-status=done]").wait_for()
    facts = AtomicFact.objects.filter(response__project=project).count()
    assert card.get_by_test_id("facts-with-passages").inner_text() == f"{facts} facts have passages."
    assert KnowledgeSource.objects.filter(project=project, name="wiki").exists()
    shot(page, "scoring-card")
    if AXE_JS.exists():
        assert axe_violations(page) == []
    assert page.errors == []
