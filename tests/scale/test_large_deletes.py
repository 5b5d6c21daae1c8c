"""Deleting what holds more rows than a statement may carry parameters (psycopg: 65,535): a project's cascade
asks `project_id IN (...)` / `source_id IN (...)` of every child, and Django leaves PostgreSQL's batches unbounded
(backend/postgresql/base.py caps them). On SQLite Django batches by its own limit already."""
from __future__ import annotations

import pytest
from django.db import connection

from annotation_tasks.models import Project, Response, Source

pytestmark = pytest.mark.django_db

ROWS = 70_000  # more than 65,535


def test_a_project_with_more_sources_than_parameters_deletes(django_user_model) -> None:
    project = Project.objects.create(name="big")
    Source.objects.bulk_create([Source(project=project, external_id=f"s{i}", text="t") for i in range(ROWS)])
    first = Source.objects.filter(project=project).order_by("pk").first()
    Response.objects.create(project=project, source=first, external_id="r0", text="t", system="sys")
    assert connection.ops.bulk_batch_size(["source_id"], list(range(ROWS))) <= 65_535
    Project.objects.filter(pk=project.pk).delete()
    assert not Source.objects.filter(project_id=project.pk).exists()
    assert not Response.objects.filter(project_id=project.pk).exists()
