"""Researchers' Markdown (project instructions) as safe HTML, rendered once on the server for every page.

markdown-it-py (CommonMark, tables, strikethrough; raw HTML in the source is escaped, not passed through) renders;
nh3 (the Rust ammonia sanitiser) then keeps only a short list of text tags and http(s)/mailto links, so
instructions cannot run script, load images or restyle the element. One sanitiser for all: the annotator
element shows `instructions_html` as is. Pure: no Django.
"""
from __future__ import annotations

from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "u", "s", "del", "code", "pre", "kbd", "mark", "blockquote", "hr",
    "ul", "ol", "li", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "a",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
MAX_SOURCE = 50_000


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"]
    )


def _demote(html: str) -> str:
    """Headings start at h2 inside the page (h1 is the page's own title)."""
    return html.replace("<h1>", "<h2>").replace("</h1>", "</h2>")


def render_markdown(source: str | None) -> str:
    """Sanitised HTML of a Markdown text; "" for empty input. Links open in a new tab, without a referrer."""
    text = (source or "")[:MAX_SOURCE]
    if not text.strip():
        return ""
    html = _demote(_markdown().render(text))
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        set_tag_attribute_values={"a": {"target": "_blank"}},
    ).strip()


__all__ = ["render_markdown"]
