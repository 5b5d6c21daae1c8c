"""Fixtures for the crowd tests: a small project with composed units, and fakes of the platforms on loopback."""
from __future__ import annotations

import pytest

from annotation_tasks.models import Assignment, Batch, Project, Response, Source, Unit, UnitResponse
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


def enter_place(client, fake, batch, participant_id: str) -> tuple[dict, object]:
    """A participant takes a place of the batch's Prolific study and opens its entry URL (as Prolific's link
    would): answers (the submission Prolific made, the Django response of our entry page)."""
    from urllib.parse import urlparse

    started = fake.start_submission(batch.provider_ref, participant_id)
    parsed = urlparse(started["url"])
    return started, client.get(f"{parsed.path}?{parsed.query}")


def element_attrs(response) -> dict[str, str]:
    """The annotator element's attributes on a unit page (empty when the page shows no unit)."""
    import re
    from html import unescape

    found = re.search(r"<factcrowd-annotator([^>]*)>", response.content.decode())
    return {k: unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', found.group(1))} if found else {}


def work_through_place(client, fake, batch, participant_id: str, label) -> tuple[dict, list[int], object]:
    """Enter a place and submit every unit it hands out (label(client, token) labels and submits one), until the
    completion page: answers (the submission, the unit ids done in order, the last page)."""
    from urllib.parse import urlparse

    started, page = enter_place(client, fake, batch, participant_id)
    done: list[int] = []
    for _ in range(200):
        attrs = element_attrs(page)
        if not attrs:
            return started, done, page
        from annotation_tasks.services.tokens import read_assignment_token

        done.append(Assignment.objects.get(pk=read_assignment_token(attrs["token"]).assignment_id).unit_id)
        label(client, attrs["token"])
        nxt = urlparse(started["url"])
        page = client.get(f"{nxt.path}?{nxt.query}")
    raise AssertionError("the place never ended")
