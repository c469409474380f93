"""A small keep-alive HTTP client (stdlib only) for benchmarking a running `dojo serve`."""

from __future__ import annotations

import http.client
import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

_CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


class BenchHTTPError(RuntimeError):
    """The server answered with an unexpected status."""


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Client:
    """One connection (reused across requests) with its own cookies and optional bearer token."""

    host: str
    port: int
    token: str | None = None
    cookies: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0

    def __post_init__(self) -> None:
        self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def request(self, method: str, path: str, *, body: bytes | None = None, content_type: str | None = None,
                expect: tuple[int, ...] = (200,), extra: dict[str, str] | None = None) -> Response:  # fmt: skip
        headers = {"Host": f"{self.host}:{self.port}", "Accept": "*/*", **(extra or {})}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if content_type:
            headers["Content-Type"] = content_type
        started = time.perf_counter()
        try:
            self._conn.request(method, path, body=body, headers=headers)
            raw = self._conn.getresponse()
            data = raw.read()
        except (OSError, http.client.HTTPException):
            self._conn.close()  # reconnect once: the server may have closed an idle connection
            self._conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            self._conn.request(method, path, body=body, headers=headers)
            raw = self._conn.getresponse()
            data = raw.read()
        seconds = time.perf_counter() - started
        for name, value in raw.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]
        response = Response(raw.status, {k.lower(): v for k, v in raw.getheaders()}, data, seconds)
        if raw.status not in expect:
            raise BenchHTTPError(f"{method} {path}: HTTP {raw.status}: {data[:300]!r}")
        return response

    def get(self, path: str, *, expect: tuple[int, ...] = (200,), extra: dict[str, str] | None = None) -> Response:
        return self.request("GET", path, expect=expect, extra=extra)

    def post_json(self, path: str, payload: Any, *, expect: tuple[int, ...] = (200,)) -> Response:
        return self.request("POST", path, body=json.dumps(payload).encode(), content_type="application/json",
                            expect=expect)  # fmt: skip

    def sign_in_api(self, email: str, password: str) -> None:
        """Bearer token from POST /api/auth/token."""
        self.token = self.post_json("/api/auth/token", {"email": email, "password": password}).json()["access_token"]

    def sign_in_page(self, email: str, password: str) -> str:
        """A cookie session through the real sign-in form; returns the dashboard path it leads to."""
        page = self.get("/sign-in").body.decode()
        match = _CSRF.search(page)
        if match is None:
            raise BenchHTTPError("no CSRF token in the sign-in form")
        form = f"email={_quote(email)}&password={_quote(password)}&csrf_token={_quote(match.group(1))}"
        self.request("POST", "/sign-in", body=form.encode(), content_type="application/x-www-form-urlencoded",
                     expect=(303,))  # fmt: skip
        location = self.get("/dashboard", expect=(303,)).headers["location"]
        return "/" + location.split("://", 1)[-1].split("/", 1)[1] if "://" in location else location

    def close(self) -> None:
        self._conn.close()


def _quote(value: str) -> str:
    from urllib.parse import quote_plus

    return quote_plus(value)
