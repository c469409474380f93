"""A fast `url_for` for templates: each route's path template is looked up once per app, not per link.

FastAPI's router resolves a name by walking every route (about 2 ms each on this app); a workspace
page builds dozens of links, so rendering spent most of its time there. Routes whose parameters all
use the str, int or path convertors (the /static mount's `path`) are formatted from the cached
template; anything else falls back to Starlette's resolver.

The templates are read off the routes themselves and the prefixes they are included under, not off
FastAPI's per-app route state: building that state analyses every route's dependencies (about 0.1 s of
each app's first page, and the page tests build an app for every test).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any
from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.routing import iter_route_contexts
from starlette.convertors import Convertor, IntegerConvertor, PathConvertor, StringConvertor
from starlette.datastructures import URL
from starlette.routing import BaseRoute, compile_path

_PARAM = re.compile(r"{([^}:]+)}")
_ORIGIN_KEY = "dojo.url_origin"
RouteFormats = dict[str, tuple[str, frozenset[str], frozenset[str]]]


def _formattable(convertor: Convertor[Any]) -> bool:
    return isinstance(convertor, StringConvertor | IntegerConvertor | PathConvertor)


def route_formats(app: FastAPI) -> RouteFormats:
    """name -> (path template, its parameter names, those that may hold "/"), for routes whose
    parameters are all str, int or path."""
    cached: RouteFormats | None = getattr(app.state, "route_formats", None)
    if cached is not None:
        return cached
    formats: RouteFormats = {}
    for name, template, convertors in _named_templates(app.routes):
        if not name or template is None or convertors is None or name in formats:
            continue
        if all(_formattable(c) for c in convertors.values()):
            paths = frozenset(name for name, c in convertors.items() if isinstance(c, PathConvertor))
            formats[name] = (template, frozenset(_PARAM.findall(template)), paths)
    app.state.route_formats = formats
    return formats


RouteTemplate = tuple[str | None, str | None, dict[str, Convertor[Any]] | None]


def _named_templates(routes: Sequence[BaseRoute]) -> Iterator[RouteTemplate]:
    """(name, path template, convertors) of every route in matching order, included routers walked by
    their prefixes; FastAPI's own route contexts if its included routers are not as expected."""
    try:
        yield from list(_walk(routes, ""))
    except AttributeError:  # another FastAPI's internals: its resolver-side state, slower but the same
        for context in iter_route_contexts(routes):
            yield context.name, context.path_format, getattr(context.route, "param_convertors", None)


def _walk(routes: Sequence[BaseRoute], prefix: str) -> Iterator[RouteTemplate]:
    for route in routes:
        router = getattr(route, "original_router", None)
        if router is not None:  # an included router: its routes under its prefix
            yield from _walk(router.routes, prefix + route.include_context.prefix)  # type: ignore[attr-defined]
        elif prefix:
            _regex, template, convertors = compile_path(prefix + route.path)  # type: ignore[attr-defined]
            yield getattr(route, "name", None), template, convertors
        else:
            yield getattr(route, "name", None), getattr(route, "path_format", None), \
                getattr(route, "param_convertors", None)


def fast_url_for(request: Request, name: str, **params: Any) -> URL:
    """The absolute URL of a named route, as request.url_for gives it."""
    found = route_formats(request.app).get(name)
    if found is None or frozenset(params) != found[1]:
        return request.url_for(name, **params)
    template, _names, slashed = found
    path = template.format(**{key: quote(str(value), safe="/" if key in slashed else "")
                              for key, value in params.items()})
    return URL(_origin(request) + path)


def _origin(request: Request) -> str:
    """What URLPath.make_absolute_url puts before a path ("http://host:port" and the root path),
    worked out once per request: building it per link cost a URL parse each."""
    origin: str | None = request.scope.get(_ORIGIN_KEY)
    if origin is None:
        origin = request.scope[_ORIGIN_KEY] = str(request.base_url).rstrip("/")
    return origin
