"""A fast `url_for` for templates: each route's path template is looked up once per app, not per link.

FastAPI's router resolves a name by walking every route (about 2 ms each on this app); a workspace
page builds dozens of links, so rendering spent most of its time there. Routes whose parameters all
use the plain str or int convertors are formatted from the cached template; anything else (mounts
such as /static, path convertors) falls back to Starlette's resolver.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.routing import iter_route_contexts
from starlette.convertors import IntegerConvertor, StringConvertor
from starlette.datastructures import URL, URLPath

_PARAM = re.compile(r"{([^}:]+)}")
RouteFormats = dict[str, tuple[str, frozenset[str]]]


def route_formats(app: FastAPI) -> RouteFormats:
    """name -> (path template, its parameter names), for routes with only str/int parameters."""
    cached: RouteFormats | None = getattr(app.state, "route_formats", None)
    if cached is not None:
        return cached
    formats: RouteFormats = {}
    for context in iter_route_contexts(app.routes):
        route = context.route
        convertors = getattr(route, "param_convertors", None)
        template = context.path_format
        if not context.name or template is None or convertors is None or context.name in formats:
            continue
        if all(isinstance(c, StringConvertor | IntegerConvertor) for c in convertors.values()):
            formats[context.name] = (template, frozenset(_PARAM.findall(template)))
    app.state.route_formats = formats
    return formats


def fast_url_for(request: Request, name: str, **params: Any) -> URL:
    """The absolute URL of a named route, as request.url_for gives it."""
    found = route_formats(request.app).get(name)
    if found is None or frozenset(params) != found[1]:
        return request.url_for(name, **params)
    path = found[0].format(**{key: quote(str(value), safe="") for key, value in params.items()})
    return URLPath(path).make_absolute_url(base_url=request.base_url)
