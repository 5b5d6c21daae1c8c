"""Every page a worker or a researcher can open lays out at the device's width: without a viewport meta a phone
renders it at 980 px and shrinks it (an audit read a completion code and the training feedback at 38%)."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

TEMPLATES = Path(__file__).resolve().parents[2] / "annotation_tasks" / "templates" / "annotation_tasks"
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def _whole_pages() -> list[Path]:
    return sorted(p for p in TEMPLATES.rglob("*.html") if "<html" in p.read_text(encoding="utf-8").lower())


@pytest.mark.parametrize("template", _whole_pages(), ids=lambda p: p.name)
def test_every_whole_page_template_sets_the_viewport(template):
    assert VIEWPORT in template.read_text(encoding="utf-8")


def test_the_pages_found_include_the_worker_facing_ones():
    names = {p.name for p in _whole_pages()}
    assert {"place_done.html", "message.html", "training_feedback.html", "annotate.html", "unit.html"} <= names


@pytest.mark.django_db
def test_the_login_page_as_served_sets_the_viewport():
    assert VIEWPORT.encode() in Client().get("/accounts/login/").content
