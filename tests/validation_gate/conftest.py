"""A QA-validation project with one composed local batch, and a researcher's API client."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from annotation_tasks.models import Batch, Predicate, Project, ProjectMembership, Source
from annotation_tasks.services.units import compose_units
from tests.work.builders import make_response

PROTOCOL = ["qa_validation", "span_coverage", "qa_support"]


@pytest.fixture
def researcher(django_user_model):
    return django_user_model.objects.create_user("expert", password="pw")


@pytest.fixture
def client(researcher) -> APIClient:
    c = APIClient()
    c.force_authenticate(researcher)
    return c


def make_project(researcher, protocol=PROTOCOL, n_qas=6, name="Gate") -> tuple[Project, Batch]:
    """Two sources, one response of n_qas one-QA sentences each; QAs alternate verbal / nominal with confidence
    k/10 so filters have something to tell apart."""
    project = Project.objects.create(name=name, protocol=protocol)
    ProjectMembership.objects.create(project=project, user=researcher, role=ProjectMembership.Role.RESEARCHER)
    for i in range(2):
        source = Source.objects.create(project=project, external_id=f"s{i}", text="ref")
        response = make_response(project, source, f"r{i}", n_qas=n_qas, gold=False)
        for k, qa in enumerate(response.qas.order_by("order")):
            qa.confidence = k / 10
            qa.save(update_fields=["confidence"])
            if k % 2:
                Predicate.objects.filter(pk=qa.predicate_id).update(kind=Predicate.Kind.NOMINAL)
    batch = Batch.objects.create(project=project, name="b1", provider="local")
    compose_units(batch)
    return project, batch
