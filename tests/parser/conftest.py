"""Parser test fixtures: spaCy loads once per session (it is the slow part)."""
from __future__ import annotations

import pytest

from parser.embedded import EmbeddedParser


@pytest.fixture(scope="session")
def embedded() -> EmbeddedParser:
    parser = EmbeddedParser()
    parser.nlp  # noqa: B018 - load now, once
    return parser
