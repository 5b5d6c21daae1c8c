"""Fixtures for the crowd tests: a small project with composed units, and fakes of the platforms on loopback."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Batch, Project, Response, Source, Unit, UnitResponse
from tests.crowd.fakes.fake_mturk import FakeMTurk


def make_units(n: int = 3, *, batch_name: str = "b1", provider: str = "local", project: Project | None = None):
    """A batch with n units, one source and one response each (no parse needed: providers never read labels)."""
    project = project or Project.objects.create(name=f"crowd-{batch_name}")
    batch = Batch.objects.create(project=project, name=batch_name, provider=provider)
    units = []
    for i in range(n):
        src = Source.objects.create(project=project, external_id=f"{batch_name}-s{i}", text=f"Source {i}.")
        resp = Response.objects.create(
            project=project, source=src, external_id=f"{batch_name}-r{i}", system="sys", text=f"Response {i} ."
        )
        unit = Unit.objects.create(project=project, batch=batch, source=src, assignments_wanted=3)
        UnitResponse.objects.create(unit=unit, response=resp, position=0)
        units.append(unit)
    return batch, units


@pytest.fixture
def fake_mturk(settings):
    fake = FakeMTurk().start()
    settings.MTURK_ENDPOINT_URL = fake.url
    settings.MTURK_SUBMIT_TEST_ORIGIN = fake.url  # the fake's worker site is the turkSubmitTo of its links
    settings.AWS_ACCESS_KEY_ID = "AKIAFAKEFAKEFAKE"
    settings.AWS_SECRET_ACCESS_KEY = "fake-secret"
    settings.PUBLIC_BASE_URL = "https://factcrowd.example.org"
    yield fake
    fake.stop()


@pytest.fixture
def fake_prolific(settings):
    from tests.crowd.fakes.fake_prolific import FakeProlific

    fake = FakeProlific().start()
    settings.PROLIFIC_API_URL = fake.api_url
    settings.PROLIFIC_API_TOKEN = fake.token
    settings.PROLIFIC_WORKSPACE_ID = "ws-1"
    settings.PROLIFIC_APP_URL = fake.url
    settings.PUBLIC_BASE_URL = "https://factcrowd.example.org"
    yield fake
    fake.stop()
