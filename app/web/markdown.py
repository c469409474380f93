"""Markdown to HTML for briefs, one place for every page: CommonMark with raw HTML disabled.

markdown-it-py escapes any HTML in the source and refuses javascript: and data: links, so a brief
cannot inject markup or scripts into the page (the CSP would block inline scripts anyway).
"""

from __future__ import annotations

import re
from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup


@lru_cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")


# Only the renderer's own tags can match: raw HTML in the source was escaped to &lt;h1&gt;.
_HEADING_TAG = re.compile(r"<(/?)h([1-6])>")


@lru_cache(maxsize=256)  # briefs are rendered on every workspace page and change only with a new version
def render_markdown(text: str, *, top_level: int = 1) -> Markup:
    """Safe HTML for a Markdown text; `top_level` is the heading level a `#` heading becomes, so a brief
    shown under the page's own h2 keeps one h1 per page and headings in order."""
    html = _parser().render(text or "")
    if top_level > 1:
        shift = top_level - 1
        html = _HEADING_TAG.sub(lambda m: f"<{m[1]}h{min(6, int(m[2]) + shift)}>", html)
    return Markup(html)  # noqa: S704  (the parser escaped all raw HTML)
