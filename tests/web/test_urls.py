"""The templates' fast url_for gives exactly the URLs Starlette's resolver gives."""

from __future__ import annotations

import re
from typing import Any

import pytest
from starlette.requests import Request
from starlette.routing import NoMatchFound

from app.core.paths import STATIC_DIR
from app.http.urls import fast_url_for, route_formats
from app.main import create_app


def _request(*, scheme: str = "https", host: bytes = b"dojo.example", root_path: str = "") -> Request:
    app = create_app()
    scope = {"type": "http", "app": app, "scheme": scheme, "server": ("dojo.example", 443), "path": "/",
             "root_path": root_path, "query_string": b"", "headers": [(b"host", host)]}  # fmt: skip
    return Request(scope)


# Behind a proxy at https://dojo.example/, on a port of its own, and under a path prefix.
@pytest.mark.parametrize("place", [{}, {"scheme": "http", "host": b"127.0.0.1:8000"}, {"root_path": "/dojo"}])
def test_every_named_route_is_formatted_as_starlette_resolves_it(place: dict[str, Any]) -> None:
    request = _request(**place)
    formats = route_formats(request.app)
    assert "challenge_page" in formats and "static" in formats
    for name, (template, params, _slashed) in formats.items():
        values = {param: (7 if "id" in param or "number" in param else "leaky-mask") for param in params}
        assert str(fast_url_for(request, name, **values)) == str(request.url_for(name, **values)), template


def test_every_static_file_link_matches_the_mount() -> None:
    request = _request()
    files = [p.relative_to(STATIC_DIR).as_posix() for p in STATIC_DIR.rglob("*") if p.is_file()]
    assert "css/app.css" in files
    for path in files:
        if re.fullmatch(r"[A-Za-z0-9._/-]+", path):  # file names a browser would not escape
            assert str(fast_url_for(request, "static", path=path)) == str(request.url_for("static", path=path))


def test_other_parameters_go_to_the_resolver_which_refuses_them() -> None:
    request = _request()
    with pytest.raises(NoMatchFound):
        fast_url_for(request, "challenge_page", number=3)


def test_the_routes_walked_by_prefix_give_what_fastapis_route_contexts_give(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.http import urls

    walked = route_formats(create_app())

    def other_fastapi(routes: Any, prefix: str) -> Any:
        raise AttributeError("'_IncludedRouter' object has no attribute 'include_context'")

    monkeypatch.setattr(urls, "_walk", other_fastapi)  # the fallback: FastAPI's per-app route contexts
    assert route_formats(create_app()) == walked
    assert "challenge_page" in walked and "static" in walked
