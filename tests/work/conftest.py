"""Fixtures for the work API: a qasem unit with gold and secrets, workers, assignments and their tokens."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import Assignment, Worker
from annotation_tasks.services.tokens import assignment_token
from tests.work.builders import make_unit


@pytest.fixture
def client_api() -> APIClient:
    return APIClient()


@pytest.fixture
def unit(db):
    return make_unit(n_qas=2)


def new_assignment(unit, external_id: str, provider: str = "local") -> tuple[Assignment, str]:
    worker, _ = Worker.objects.get_or_create(provider=provider, external_id=external_id)
    a = Assignment.objects.create(unit=unit, worker=worker)
    return a, assignment_token(a)


@pytest.fixture
def assignment(unit) -> tuple[Assignment, str]:
    return new_assignment(unit, "w1")
