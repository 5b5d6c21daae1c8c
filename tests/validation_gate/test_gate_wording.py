"""Issue 23 item 13: the publish gate speaks the researcher's words (a reason for skipping validation, the
dashboard's "Publish anyway, because" field, the CLI's option), never the API field override_validation_reason."""
from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation_tasks.services.batches import publish_blockers
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db


def test_the_qa_gate_message_names_no_api_field(researcher, client):
    _, batch = make_project(researcher)
    (blocker,) = [b for b in publish_blockers(batch) if b.code == "undecided_qas"]
    assert "override_validation_reason" not in blocker.message
    assert "reason" in blocker.message and "Publish anyway" in blocker.message
    api = client.post(f"/api/batches/{batch.pk}/publish/", {"reward": "0.50", "confirm": True}, format="json")
    assert api.status_code == 400 and "override_validation_reason" not in api.json()["validation"]


def test_the_cli_says_which_option_to_use(researcher):
    project, batch = make_project(researcher)
    with pytest.raises(CommandError) as caught:
        call_command("publish", "--project", project.name, "--batch", batch.name, "--provider", "local",
                     "--reward", "0", "--yes", stdout=io.StringIO())
    assert "override_validation_reason" not in str(caught.value) and "--override-validation-reason" in str(caught.value)
