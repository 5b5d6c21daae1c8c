"""The element half of the protocol contract, run from the server side (docs/protocols.md, "The contract").

For every registered protocol (its harness in test_protocol_contract.py): build a unit, GET its real payload,
let the element label it through its own kind modules (frontend/tests/contract/label_unit.mjs: the first label
key of every item, or the module's sampleValue, then the modules' collect), POST exactly the body the element
would send to the real submit endpoint, and check it is accepted and that exactly the labels sent were written.
A plan kind with no element module makes the script exit 2, so a protocol the element cannot label fails here.

Outside CI the tests skip when node, frontend/node_modules or the script is missing; under CI=true they fail.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment
from annotation_tasks.protocols import available_protocols
from tests.protocols.test_protocol_contract import HARNESSES, _assignment, _submit, _unit

pytestmark = pytest.mark.django_db

FRONTEND = Path(settings.BASE_DIR) / "frontend"
SCRIPT = Path(os.environ.get("FACTCROWD_LABEL_UNIT") or FRONTEND / "tests" / "contract" / "label_unit.mjs")
"""The element's script; FACTCROWD_LABEL_UNIT names another (a stand-in, to check this suite itself)."""


def _node() -> str:
    """The node binary, once the element's script can run; skip (fail under CI) when it cannot."""
    node = shutil.which("node")
    missing = ("node is not installed" if node is None
               else "frontend/node_modules is missing (npm ci in frontend/)" if not (FRONTEND / "node_modules").is_dir()
               else f"{SCRIPT} is missing (the element's half of the contract)"
               if not SCRIPT.is_file() else "")
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"element contract cannot run in CI: {missing}")
        pytest.skip(f"element contract not run: {missing}")
    assert node is not None
    return node


def _label(payload: dict, tmp_path: Path) -> subprocess.CompletedProcess:
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return subprocess.run([_node(), str(SCRIPT), str(path)], cwd=FRONTEND,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(params=available_protocols())
def harness(request):
    mode = request.param
    assert mode in HARNESSES, f"protocol {mode!r} has no harness in the contract suite"
    return HARNESSES[mode]


def test_the_element_labels_each_protocols_unit_and_the_server_accepts_exactly_that(harness, tmp_path) -> None:
    _node()
    client = APIClient()
    unit = harness.unit()
    assignment, token = _assignment(unit, "element")
    payload = _unit(client, token)
    assert payload["plan"], f"{harness.mode}: the harness unit has nothing to label"
    done = _label(payload, tmp_path)
    assert done.returncode == 0, f"{harness.mode}: label_unit.mjs exit {done.returncode}: {done.stderr.strip()}"
    body = json.loads(done.stdout)
    assert isinstance(body, dict) and isinstance(body.get("labels"), dict), body
    r = _submit(client, token, body["labels"], body.get("time_on_task_ms", 1200))
    assert r.status_code == 200, f"{harness.mode}: the server refused the element's submission: {r.json()}"
    assert harness.written(assignment) > 0
    assignment = Assignment.objects.get(pk=assignment.pk)
    assert assignment.submission["labels"] == body["labels"]
    assert harness.frame_rows(assignment) == harness.expected_rows(payload, body["labels"])


def test_a_plan_kind_without_an_element_module_is_refused_by_the_element(tmp_path) -> None:
    _node()
    client = APIClient()
    harness = HARNESSES["qasem"]
    _, token = _assignment(harness.unit(), "element")
    payload = _unit(client, token)
    payload["plan"] = [*payload["plan"], {"kind": "made_up_kind", "response_id": payload["responses"][0]["id"]}]
    done = _label(payload, tmp_path)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "no element module for plan kind made_up_kind" in done.stderr
