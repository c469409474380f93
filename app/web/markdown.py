"""Markdown to HTML for briefs, one place for every page: CommonMark with raw HTML disabled.

markdown-it-py escapes any HTML in the source and refuses javascript: and data: links, so a brief
cannot inject markup or scripts into the page (the CSP would block inline scripts anyway).
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from markupsafe import Markup


@lru_cache
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False}).enable("table").enable("strikethrough")


def render_markdown(text: str) -> Markup:
    """Safe HTML for a Markdown text."""
    return Markup(_parser().render(text or ""))  # noqa: S704  (the parser escaped all raw HTML)
