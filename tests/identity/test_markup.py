"""Project instructions in Markdown reach the element as sanitised HTML (one sanitiser on the server)."""
from __future__ import annotations

import pytest

from annotation_tasks.markup import render_markdown
from annotation_tasks.services import work
from tests.work.builders import make_unit


def test_markdown_is_rendered_and_anything_active_is_removed():
    html = render_markdown(
        "# Guide\n**Supported** means stated. <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n"
        "[bad](javascript:alert(1)) [good](https://example.org)\n\n| label | key |\n|---|---|\n| Supported | s |\n"
    )
    assert "<strong>Supported</strong>" in html and "<h2>Guide</h2>" in html and "<td>Supported</td>" in html
    assert "<script" not in html and "<img" not in html and "javascript:" not in html.replace("(javascript:", "")
    assert '<a href="https://example.org" target="_blank" rel="noopener noreferrer nofollow">good</a>' in html
    assert 'href="javascript' not in html
    assert render_markdown("") == "" and render_markdown(None) == ""
    # raw HTML written by a researcher is shown as text, not interpreted
    assert "&lt;b onclick" in render_markdown('<b onclick="x()">hi</b>')


@pytest.mark.django_db
def test_the_unit_payload_carries_the_rendered_instructions():
    unit = make_unit("Markdown", n_qas=1, n_responses=1)
    unit.project.instructions = "Mark **Supported** only if the reference says so."
    unit.project.save()
    project = work.preview_payload(unit)["project"]
    assert project["instructions"].startswith("Mark **Supported**")  # the source stays for other clients
    assert project["instructions_html"] == "<p>Mark <strong>Supported</strong> only if the reference says so.</p>"
