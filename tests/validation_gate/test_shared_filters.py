"""QA and fact validation read their filters through one reader (decision_input.apply_filters; duplicates D5).

Before: services.validation.filter_qas and services.fact_validation.filter_facts each wrote the loop out, and they
had drifted: filter_facts took a spec that is no object (a JSON list from a script) and crashed (AttributeError,
a 500 behind any caller) where filter_qas answered a located error. Now both run the same reader, so every
contract below holds for both.
"""
from __future__ import annotations

import pytest

from annotation_tasks.models import QA, AtomicFact
from annotation_tasks.services import fact_validation, validation
from annotation_tasks.services.decision_input import ValidationInputError
from tests.validation_gate.conftest import make_project

pytestmark = pytest.mark.django_db

READERS = {
    "qas": (validation.filter_qas, lambda: QA.objects.all(), validation.FILTER_KEYS),
    "facts": (fact_validation.filter_facts, lambda: AtomicFact.objects.all(), fact_validation.FILTER_KEYS),
}


@pytest.fixture(params=sorted(READERS))
def reader(request):
    return READERS[request.param]


@pytest.mark.parametrize("spec", [["project"], "project=1", 7])
def test_a_spec_that_is_no_object_is_a_located_error(reader, spec) -> None:
    read, base, _keys = reader
    with pytest.raises(ValidationInputError) as exc:
        read(base(), spec, "filter")
    assert exc.value.field == "filter" and "object" in exc.value.message


def test_an_unknown_key_names_its_path_and_the_known_keys(reader) -> None:
    read, base, keys = reader
    with pytest.raises(ValidationInputError) as exc:
        read(base(), {"colour": "red"}, "filter")
    assert exc.value.field == "filter.colour" and all(k in exc.value.message for k in keys)


def test_bad_values_are_located_and_empty_values_filter_nothing(reader, researcher) -> None:
    read, base, _keys = reader
    project, _batch = make_project(researcher)
    for key, bad in (("project", "x"), ("response", True), ("confidence_lt", "2")):
        with pytest.raises(ValidationInputError) as exc:
            read(base(), {key: bad}, "filter")
        assert exc.value.field == f"filter.{key}"
    assert list(read(base(), {"project": "", "batch": None}, "filter")) == list(base())
    assert set(read(base(), {"project": project.pk}, "")) == set(base().filter(response__project=project))
