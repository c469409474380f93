"""The Jinja2 environment shared by every page, with the values the base layout needs."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates
from jinja2 import pass_context
from jinja2.runtime import Context
from starlette.datastructures import URL
from starlette.responses import Response

from app.auth.csrf import csrf_token
from app.core.paths import TEMPLATES_DIR
from app.http.urls import fast_url_for

log = logging.getLogger(__name__)


def unsafe_mode() -> bool:
    """True when candidate code would run without the sandbox (the layout shows a warning)."""
    try:
        from app.sandbox import unsafe_mode_active
    except ImportError:  # the sandbox package may not be importable in a partial checkout
        return False
    try:
        return bool(unsafe_mode_active())
    except Exception:  # a broken probe must not take every page down; say so loudly instead
        log.exception("could not determine the sandbox mode")
        return True


class PageContext:
    """A page's context as a dataclass: typed where it is built and read back, its fields the
    template's names (a page's dataclass inherits this and is passed to `render` as it is)."""

    def as_context(self) -> dict[str, object]:
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}  # type: ignore[arg-type]


def _base_context(request: Request) -> dict[str, object]:
    return {
        "csrf_token": csrf_token(request),
        "current_user": getattr(request.state, "user", None),
        # Error pages for unknown addresses run no dependencies, so the user is not loaded there.
        "has_session": "uid" in request.session,
        "unsafe_mode": unsafe_mode(),
    }


templates = Jinja2Templates(directory=str(TEMPLATES_DIR), context_processors=[_base_context])
# Templates ship with the release: checking each file's modification time on every render costs a
# system call per template (a page extends the layout and includes partials) for nothing.
templates.env.auto_reload = False


@pass_context
def _url_for(context: Context, name: str, /, **path_params: Any) -> URL:
    return fast_url_for(context["request"], name, **path_params)


templates.env.globals["url_for"] = _url_for
# Filters, not method calls, for dates in tables: Jinja calls a filter directly, and a method through
# its context's call checks (most of a dashboard row's cost).
templates.env.filters["isoformat"] = lambda moment: moment.isoformat()
templates.env.filters["strftime"] = lambda moment, fmt: moment.strftime(fmt)


def is_htmx(request: Request) -> bool:
    return request.headers.get("HX-Request") == "true"


def render(
    request: Request, name: str, context: Mapping[str, object] | PageContext | None = None, *,
    status_code: int = 200, block: str | None = None,
) -> Response:
    """Render a page, or just one named block of it (an htmx fragment)."""
    if isinstance(context, PageContext):
        context = context.as_context()
    if block is None:
        return templates.TemplateResponse(request, name, dict(context or {}), status_code=status_code)
    template = templates.get_template(name)
    full = {"request": request, **(context or {})}
    for processor in templates.context_processors:
        full.update(processor(request))
    html = "".join(template.blocks[block](template.new_context(full)))
    return Response(html, status_code=status_code, media_type="text/html")
