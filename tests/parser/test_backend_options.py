"""Backend options live with the backends (parser.registry.OPTIONS, scoring.registry.OPTIONS): the services read
them without naming a backend, so a plug-in backend with settings of its own needs no service change."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from annotation_tasks.scoring import registry as scorers
from annotation_tasks.services import parsing
from parser import registry

pytestmark = pytest.mark.django_db


@pytest.fixture
def plugin(monkeypatch):
    built: list[dict] = []

    class Fake:
        name = "fake"

    def factory(**options):
        built.append(options)
        return Fake()

    monkeypatch.setitem(registry._FACTORIES, "fake", factory)
    monkeypatch.setitem(registry.OPTIONS, "fake", {
        "model_dir": registry.Option(("FAKE_PARSER_DIR",), "", required=True, help="where its model lies"),
        "batch": registry.Option(("FAKE_PARSER_BATCH",), 8, convert=int),
    })
    yield built
    registry.clear_cache()


def test_a_plugin_backend_gets_its_settings_and_says_what_it_lacks(plugin, settings) -> None:
    from annotation_tasks.models import Project

    project = Project.objects.create(name="p")
    with pytest.raises(ValueError, match=r"FAKE_PARSER_DIR \(where its model lies\)"):
        parsing.start_parse_job(project, backend="fake", queue=False)
    settings.FAKE_PARSER_DIR = "/models/fake"
    settings.FAKE_PARSER_BATCH = "32"
    parsing.get_parser("fake")
    assert plugin == [{"model_dir": "/models/fake", "batch": 32}]
    assert parsing.start_parse_job(project, backend="fake", queue=False).params["backend"] == "fake"


def test_no_service_names_a_parser_backend_or_a_scorer() -> None:
    names = set(registry.available_backends()) | set(scorers.available_scorers())
    alternatives = "|".join(sorted(names))
    compared = re.compile(rf"""(==|!=)\s*["']({alternatives})["']|["']({alternatives})["']\s*(==|!=)""")
    services = Path(django_settings.BASE_DIR) / "annotation_tasks" / "services"
    found = [f"{p.name}:{i}" for p in services.rglob("*.py")
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if compared.search(line)]
    assert found == []
