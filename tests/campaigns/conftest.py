from __future__ import annotations

import pytest


@pytest.fixture
def researcher(django_user_model):
    """The one researcher account import_labels falls back to without --owner."""
    return django_user_model.objects.create_user(username="ada", password="x", is_superuser=True)
