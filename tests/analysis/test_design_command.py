"""manage.py design and GET /api/projects/<id>/design on the shared QASem dev release as the pilot."""
from __future__ import annotations

import json
from collections.abc import Iterator
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.models import Project, ProjectMembership
from tests.conftest import dev_release_committed
from tests.review.conftest import client_for

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]


@pytest.fixture(scope="module")
def _imported_dev(django_db_setup, django_db_blocker) -> Iterator[str]:
    with dev_release_committed(django_db_blocker, "designed") as project:
        yield project


def _design(*args: str) -> dict:
    out = StringIO()
    call_command("design", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_command_json_has_the_design_and_its_simulated_coverage(_imported_dev, db) -> None:
    out = _design("--project", _imported_dev, "--target-ci", "0.15", "--budget", "1000")
    assert {"annotators_per_item", "items", "labels", "cost", "simulated_coverage", "hours"} <= set(out)
    assert out["simulated_coverage"] >= 0.9 and out["level"] == "qa" and out["within_budget"] is True
    assert out["labels"] == out["annotators_per_item"] * out["items"]
    text = StringIO()
    call_command("design", "--project", _imported_dev, "--target-ci", "0.15", "--metric", "alpha", stdout=text)
    assert "simulated coverage" in text.getvalue() and "annotators per item" in text.getvalue()
    for bad in (["--target-ci", "wide"], ["--target-ci", "-1"], ["--target-ci", "0.1", "--budget", "x"]):
        with pytest.raises(CommandError, match="--target-ci|--budget"):
            _design("--project", _imported_dev, *bad)
    with pytest.raises(CommandError, match="no project"):
        _design("--project", "nope", "--target-ci", "0.1")


def test_endpoint_answers_the_researcher_and_names_bad_parameters(_imported_dev, db) -> None:
    project = Project.objects.get(name=_imported_dev)
    alice = get_user_model().objects.create_user("alice", password="pw")
    ProjectMembership.objects.create(project=project, user=alice, role=ProjectMembership.Role.RESEARCHER)
    client = client_for(alice)
    url = f"/api/projects/{project.pk}/design"
    body = client.get(url, {"target_ci": "0.15"}).json()
    assert body["simulated_coverage"] >= 0.9 and body["annotators_per_item"] >= 2
    bad = client.get(url, {"target_ci": "0.1", "metric": "f1"})
    assert bad.status_code == 400 and "metric" in bad.json()
    assert client.get(url).status_code == 400 and "target_ci" in client.get(url).json()
    assert client.get(url, {"target_ci": "0.1", "prior_kappa": "2"}).status_code == 400
    stranger = client_for(get_user_model().objects.create_user("bob", password="pw"))
    assert stranger.get(url, {"target_ci": "0.15"}).status_code == 404
