"""A real `dojo serve`: forwarded headers from a client are not believed unless TRUSTED_PROXIES says so.

uvicorn on its own trusts X-Forwarded-For/-Proto from loopback, which let anyone on the machine (or
behind a proxy that passes them through) choose their address and scheme.
"""

from __future__ import annotations

import http.client
import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from web.live_server import LiveServer, live_server

pytestmark = pytest.mark.processes  # scripts/test.sh --fast leaves them out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    os.environ.pop("TRUSTED_PROXIES", None)
    with live_server(tmp_path_factory.mktemp("proxy") / "data") as running:
        yield running


def _request(
    server: LiveServer, method: str, path: str, headers: dict[str, str], body: str = ""
) -> http.client.HTTPResponse:
    parts = urlsplit(server.url)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    connection.request(method, path, body=body or None, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response


def test_x_forwarded_proto_does_not_change_the_scheme_of_redirects(server: LiveServer) -> None:
    response = _request(server, "GET", "/", {"X-Forwarded-Proto": "https"})
    assert response.status == 303
    assert response.getheader("location", "").startswith("http://127.0.0.1:")


def test_x_forwarded_for_does_not_bypass_the_login_limit_per_address(server: LiveServer) -> None:
    limit = 20  # login_attempts_per_ip default; the server runs with default settings
    codes = []
    for n in range(limit + 1):
        response = _request(server, "POST", "/api/auth/token",
                            {"Content-Type": "application/json", "X-Forwarded-For": f"198.51.100.{n}"},
                            f'{{"email": "nobody-{n}@example.com", "password": "whatever-pass"}}')
        codes.append(response.status)
    assert codes[:limit] == [401] * limit
    assert codes[limit] == 429
