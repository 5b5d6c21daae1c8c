"""The adjudication reason is optional (issue 23 item 12): a decision without one, or with a blank one, is kept with
its votes, majority and decider; a reason that is given must still be text (located 400 otherwise)."""
from __future__ import annotations

import pytest

from annotation_tasks.models import AdjudicatedLabel
from tests.review.conftest import client_for, member

pytestmark = pytest.mark.django_db


def test_a_decision_needs_no_reason(qasem_study, people) -> None:
    project = qasem_study.project
    member(project, people["alice"])
    client = client_for(people["alice"])
    first, second = qasem_study.assignments["w3"].shown["qas"][:2]
    url = f"/api/projects/{project.pk}/adjudications/"
    r = client.post(url, {"level": "qa", "item_id": first, "label": "supported"}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["reason"] == "" and r.json()["decided_by"] == "alice"
    r = client.post(url, {"level": "qa", "item_id": second, "label": "not_supported", "reason": "   "}, format="json")
    assert r.status_code == 201, r.content
    assert list(AdjudicatedLabel.objects.order_by("id").values_list("value", "reason")) == [
        ("supported", ""), ("not_supported", "")]
    r = client.post(url, {"level": "qa", "item_id": first, "label": "supported", "reason": 5}, format="json")
    assert r.status_code == 400 and "reason" in r.json()
