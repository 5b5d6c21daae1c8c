"""Every endpoint of the OpenAPI schema, fuzzed against a live server on loopback: no 500 anywhere, and every
error under /api/ answers JSON (what the element and scripts can show).

Schemathesis generates valid (positive) and invalid (negative) requests from /api/schema/ for each operation;
researcher endpoints get a researcher's API token, the element's /api/work/<token>/ endpoints a real assignment
token in place of the generated one. Deterministic (derandomized hypothesis) and small (FUZZ_EXAMPLES per
operation and mode), to stay within about a minute of CI time.
"""
from __future__ import annotations

import os
import time

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis import openapi as st_openapi

from annotation_tasks.services.tokens import assignment_token
from tests.api.conftest import users, world  # noqa: F401  (fixtures)

FUZZ_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "6"))
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def content_type(response) -> str:
    value = {k.lower(): v for k, v in response.headers.items()}.get("content-type", "")
    return " ".join(value) if isinstance(value, list) else str(value)


def fuzz_operation(operation, mode: GenerationMode, base_url: str, session: requests.Session,
                   path_values: dict, failures: list[str]) -> None:
    @settings(max_examples=FUZZ_EXAMPLES, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=mode), real_ids=st.booleans())
    def run(case, real_ids: bool) -> None:
        for name in list(case.path_parameters or {}):
            if name == "token" or (real_ids and name in path_values):
                case.path_parameters[name] = path_values[name]
        response = case.call(base_url=base_url, session=session, timeout=30, allow_redirects=False)
        where = f"{case.method} {case.formatted_path} ({mode.value})"
        if response.status_code >= 500:
            failures.append(f"{where}: {response.status_code} {response.text[:300]}")
        elif response.status_code >= 400 and not any(t in content_type(response) for t in ("json", "openapi")):
            failures.append(f"{where}: {response.status_code} not JSON ({content_type(response)})")

    try:
        run()
    except Unsatisfiable:  # no request of this mode fits the operation (e.g. nothing to make invalid)
        pass


def _swap(value, kind: type, new):
    """`value` with every `kind` (booleans are not integers here) replaced by `new`, at any depth."""
    if isinstance(value, bool):
        return value
    if isinstance(value, kind):
        return new
    if isinstance(value, list):
        return [_swap(v, kind, new) for v in value]
    if isinstance(value, dict):
        return {k: _swap(v, kind, new) for k, v in value.items()}
    return value


# values random fuzzing seldom makes: integers past 64 bits (SQLite's driver raises OverflowError; one reached it
# through /api/work/next, another through bulk-validity) and, on PostgreSQL, a string holding a NUL (the members
# lookup raised on it); -1 and a 5,000-character string for ranges and column widths
EDGE_VALUES = [(int, 10**23), (int, -(2**63) - 1), (int, -1), (str, "a\x00b"), (str, "x" * 5000)]


def edge_value_operation(operation, base_url: str, session: requests.Session, path_values: dict,
                         failures: list[str], swapped: list[int]) -> None:
    """Valid requests with every integer, or every string, of the body and query swapped for each edge value."""
    @settings(max_examples=2, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
    def run(case) -> None:
        kind, new = current[0]
        for name in list(case.path_parameters or {}):
            if name in path_values:
                case.path_parameters[name] = path_values[name]
        before = (case.body, dict(case.query or {}))
        if isinstance(case.body, dict | list):
            case.body = _swap(case.body, kind, new)
        if case.query:
            case.query = _swap(dict(case.query), kind, new)
        if (case.body, dict(case.query or {})) == before:
            return  # nothing of this kind to swap
        response = case.call(base_url=base_url, session=session, timeout=30, allow_redirects=False)
        swapped[0] += 1
        if response.status_code >= 500:
            failures.append(f"{case.method} {case.formatted_path} ({kind.__name__}s {new!r}): {response.status_code} "
                            f"{response.text[:300]}")

    current: list = [None]
    for edge in EDGE_VALUES:
        current[0] = edge
        try:
            run()
        except Unsatisfiable:
            pass


def test_edge_values_answer_no_500(live_server, world, users):  # noqa: F811
    base = live_server.url
    session = requests.Session()
    session.headers["Authorization"] = f"Token {Token.objects.create(user=users['alice']).key}"
    raw = session.get(f"{base}/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}, timeout=60)
    schema = st_openapi.from_dict(raw.json())
    path_values = {"token": assignment_token(world.own_assignment), "id": world.a.pk, "pk": world.a.pk,
                   "project_id": world.a.pk, "worker_id": world.own_assignment.worker_id}
    failures: list[str] = []
    swapped = [0]  # requests sent with a value swapped
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path == "/api/schema/" or operation.method.upper() == "DELETE":
            continue
        edge_value_operation(operation, base, session, path_values, failures, swapped)
    print("requests with an edge value:", swapped[0])
    assert swapped[0] > 60
    assert not failures, "\n".join(dict.fromkeys(failures))


def test_no_endpoint_answers_500(live_server, world, users):  # noqa: F811
    base = live_server.url
    session = requests.Session()
    session.headers["Authorization"] = f"Token {Token.objects.create(user=users['alice']).key}"
    raw = session.get(f"{base}/api/schema/", headers={"Accept": "application/vnd.oai.openapi+json"}, timeout=60)
    assert raw.status_code == 200, raw.text[:300]
    schema = st_openapi.from_dict(raw.json())
    path_values = {"token": assignment_token(world.own_assignment), "id": world.a.pk, "pk": world.a.pk,
                   "project_id": world.a.pk, "worker_id": world.own_assignment.worker_id}
    failures: list[str] = []
    operations = 0
    timings: list = []
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        if operation.path == "/api/schema/":  # the schema document itself: read above, slow to render
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            started = time.monotonic()
            fuzz_operation(operation, mode, base, session, path_values, failures)
            timings.append((time.monotonic() - started, f"{operation.label} {mode.value}"))
    print("fuzzed", operations, "operations; slowest:", sorted(timings, reverse=True)[:5])
    assert operations > 40  # the whole schema was read
    assert not failures, "\n".join(dict.fromkeys(failures))
