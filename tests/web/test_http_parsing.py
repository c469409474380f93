"""A real `dojo serve` refuses malformed requests and oversized headers with 400, and keeps serving."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from app.cli import uvicorn_options
from app.core.settings import Settings
from web.live_server import LiveServer, live_server

pytestmark = pytest.mark.processes  # scripts/test.sh --fast leaves them out

REFUSED = {
    "no request line": b"GARBAGE\r\n\r\n",
    "two Content-Length headers": b"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n"
                                  b"Content-Length: 5\r\n\r\nabcde",
    "a space in a header name": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n",
    "200 KB of headers": b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"a" * 200_000 + b"\r\n\r\n",
}  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with live_server(tmp_path_factory.mktemp("http") / "data") as running:
        yield running


def _exchange(server: LiveServer, raw: bytes) -> bytes:
    """Send raw bytes, read until the server closes or the response head is in."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=30) as sock:
        sock.sendall(raw)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    return received


def test_the_server_parses_with_h11() -> None:
    assert uvicorn_options(Settings(_env_file=None))["http"] == "h11"


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_malformed_request_gets_400_and_the_server_keeps_serving(server: LiveServer, name: str) -> None:
    answer = _exchange(server, REFUSED[name])
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:120]
    assert _exchange(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").startswith(b"HTTP/1.1 200 ")
