"""The crowd commands only translate: these check the translation (prompts, errors, output)."""
from __future__ import annotations

import io
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command

from annotation_tasks.models import Batch, Project, Response, Source, Unit
from tests.work.builders import make_unit

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def add_sources(project: Project, n: int) -> None:
    for i in range(n):
        src = Source.objects.create(project=project, external_id=f"new-{i}", text="S.")
        Response.objects.create(project=project, source=src, external_id=f"new-r{i}", system="x", text="R .")


def test_publish_asks_before_spending_and_a_no_spends_nothing(fake_mturk, monkeypatch):
    project = Project.objects.create(name="CLI")
    add_sources(project, 3)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    out = run("publish", "--project", "CLI", "--provider", "mturk", "--units", "2", "--assignments", "3",
              "--reward", "1.50")
    assert "2 units x 3 assignments x 1.50 USD = 9.00 + fees 1.80 (20%) = 10.80 USD" in out
    assert "balance: 10000.00 USD" in out and "not published" in out and "no batch was kept" in out
    assert not fake_mturk.hits and not Batch.objects.exists() and not Unit.objects.exists()  # declining leaves nothing
    monkeypatch.setattr("builtins.input", lambda prompt: "y")  # the same sources are still there to publish
    assert "published 2 units" in run("publish", "--project", "CLI", "--provider", "mturk", "--units", "2",
                                      "--assignments", "3", "--reward", "1.50")


def test_publish_on_a_project_without_sources_says_to_import_first():
    Project.objects.create(name="EMPTY")
    with pytest.raises(CommandError, match="has no sources yet"):
        run("publish", "--project", "EMPTY", "--provider", "local", "--units", "1", "--reward", "0", "--yes")
    assert not Batch.objects.exists()


def test_publish_previews_name_the_public_base_url(settings):
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:8001"
    project = Project.objects.create(name="LOCAL")
    add_sources(project, 1)
    out = run("publish", "--project", "LOCAL", "--provider", "local", "--units", "1", "--reward", "0", "--yes")
    assert "preview: http://127.0.0.1:8001/work/unit/" in out and "PUBLIC_BASE_URL=http://127.0.0.1:8001" in out
    from django.test import Client

    path = out.split("preview: http://127.0.0.1:8001", 1)[1].split()[0]
    page = Client().get(path)  # the printed link opens the unit in preview mode
    assert page.status_code == 200 and b'preview="true"' in page.content


def test_publish_composes_units_from_unused_sources(fake_mturk, monkeypatch):
    first = make_unit("CLI2", n_sources=2, provider="mturk")[0]  # a batch with 2 units exists already
    add_sources(first.project, 4)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    out = run("publish", "--project", "CLI2", "--provider", "mturk", "--units", "3", "--assignments", "10",
              "--reward", "0.10")
    assert "fees 1.20 (40%)" in out and "published 3 units" in out and "preview: https://workersandbox" in out
    batch = Batch.objects.get(project=first.project, status="published")
    assert sorted(Unit.objects.filter(batch=batch).values_list("source__external_id", flat=True)) == [
        "new-0", "new-1", "new-2"]
    assert len(fake_mturk.hits) == 3


def test_publish_refuses_without_funds(fake_mturk):
    fake_mturk.balance = Decimal("1.00")
    unit = make_unit("CLI3", provider="mturk")
    with pytest.raises(CommandError, match="does not cover"):
        run("publish", "--project", "CLI3", "--provider", "mturk", "--batch", unit.batch.name, "--reward", "1",
            "--yes")
    assert not fake_mturk.hits


def test_workers_table_and_errors():
    make_unit("CLI4")
    assert "no workers yet" in run("workers", "--project", "CLI4")
    with pytest.raises(CommandError, match="no project"):
        run("workers", "--project", "nope")
    with pytest.raises(CommandError, match="--reason"):
        run("workers", "--project", "CLI4", "--reverse", "1")
