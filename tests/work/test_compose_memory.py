"""Composing keeps no source alive (issue 25 item 4): the units compose_units returns hold their source's id, not
the source with its prefetched responses and tokens, so composing 30k units no longer leaves GBs behind."""
from __future__ import annotations

import gc
import tracemalloc

import pytest

from annotation_tasks.models import Batch, Project, Response, Source
from annotation_tasks.services.units import compose_units

pytestmark = pytest.mark.django_db


def test_the_composed_units_do_not_hold_their_sources():
    project = Project.objects.create(name="Memory", protocol=["span_coverage", "qa_support"])
    words = [f"w{i}" for i in range(3000)]
    text = " ".join(words)
    tokens, pos = [], 0
    for w in words:
        tokens.append([w, pos, pos + len(w)])
        pos += len(w) + 1
    for i in range(120):
        source = Source.objects.create(project=project, external_id=f"s{i}", text=text)
        Response.objects.create(project=project, source=source, external_id=f"r{i}", system="x", text=text,
                                tokens=tokens, sentences=[{"start": 0, "end": len(words), "text": text}])
    batch = Batch.objects.create(project=project, name="b")
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        units = compose_units(batch)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(units) == 120
    assert all("source" not in u._state.fields_cache for u in units)
    # each response's tokens are ~60 KB as Python lists: holding them would keep > 7 MB here
    assert kept < 120 * 8_000, kept
    assert units[0].source.external_id == "s0"  # still reachable, read when asked
