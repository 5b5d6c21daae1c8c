"""Other panels by URL parameters: the batch's signed link plus the participant id in the named parameter, units
from our queue, then the panel's completion code or redirect; statuses imported from the panel's CSV."""
from __future__ import annotations

import io
from html import unescape
from urllib.parse import quote, urlparse

import pytest
from django.core.management import call_command

from annotation_tasks.crowd.panel import link_key, panel_link
from annotation_tasks.models import Assignment, QualityDecision
from annotation_tasks.services import publishing
from tests.crowd.conftest import element_attrs
from tests.crowd.test_full_path import label_everything
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db

REDIRECT = "https://sona.example.edu/credit?experiment_id=7&survey_code={participant}&code={code}"


def _panel(settings, name: str, n: int = 3, **options):
    settings.PUBLIC_BASE_URL = "https://factcrowd.example.org"
    units = make_unit(name, n_qas=1, n_responses=1, wanted=1, provider="panel", n_sources=n)
    batch = units[0].batch
    publishing.publish_batch(batch, reward="0.60", assignments_per_unit=1, units_per_place=2, panel_id_param="id",
                             completion_code="C0DE42", completion_redirect=REDIRECT, **options)
    batch.refresh_from_db()
    return batch, units


def _get(client, url: str):
    parsed = urlparse(url)
    return client.get(f"{parsed.path}?{parsed.query}")


def test_a_panel_participant_does_a_place_and_gets_the_code_and_the_redirect(client, settings):
    batch, units = _panel(settings, "SONA pool")
    out = io.StringIO()
    assert batch.provider_ref == f"panel-{batch.pk}" and batch.settings["places"] == 2
    link = panel_link(batch, "S-1001")
    assert "&id=S-1001" in link and "/work/study/" in link
    done = []
    page = _get(client, link)
    while element_attrs(page):
        done.append(Assignment.objects.order_by("-id").first().unit_id)
        label_everything(client, element_attrs(page)["token"])
        page = _get(client, link)
    assert done == [units[0].pk, units[1].pk]
    html = unescape(page.content.decode())
    assert "C0DE42" in html
    assert "https://sona.example.edu/credit?experiment_id=7&survey_code=S-1001&code=C0DE42" in html

    # the panel's verdicts, imported
    path = settings.BASE_DIR / "var" / "panel-statuses-test.csv"
    path.parent.mkdir(exist_ok=True)
    path.write_text("participant_id,status\nS-1001,approved\nNOBODY,approved\n", encoding="utf-8")
    try:
        call_command("place_statuses", "--batch", str(batch.pk), str(path), stdout=out)
    finally:
        path.unlink()
    assert "approved 2, rejected 0, unknown participants 1" in out.getvalue()
    assert set(Assignment.objects.values_list("status", flat=True)) == {"approved"}
    assert QualityDecision.objects.filter(action="approve", status="done").count() == 2


def test_a_link_that_is_not_the_batchs_signed_one_opens_nothing(client, settings):
    batch, _units = _panel(settings, "Panel forged")
    other, _ = _panel(settings, "Panel other")
    good = panel_link(batch, "P1")
    assert _get(client, good.replace("k=", "k=x")).status_code == 400  # tampered key: not a panel entry
    foreign = good.replace(quote(link_key(batch.pk, "id"), safe=""), quote(link_key(other.pk, "id"), safe=""))
    assert foreign != good
    assert _get(client, foreign).status_code == 403  # another batch's key
    assert _get(client, good.replace("&id=P1", "&id=")).status_code == 400  # no participant id
    assert _get(client, good.replace("&id=P1", "&id=%3Cscript%3E")).status_code == 400
    assert _get(client, good.replace("&id=P1", "&participant_id=P1")).status_code == 400  # not the named parameter
    assert not Assignment.objects.exists()
    assert _get(client, good).status_code == 200
