"""Which host name the app answers for: links and redirects never follow a forged Host header.

With BASE_URL set, every request is seen as addressed to it (scheme and host), so url_for, redirects
and invite links always name the real site whatever Host or X-Forwarded-Proto a client sends.
Without it, only the ALLOWED_HOSTS names are answered; any other Host gets a 400.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

UNKNOWN_HOST = (
    b"This server does not answer for that host name. Its operator sets BASE_URL (or ALLOWED_HOSTS) to the "
    b"address people use."
)


def host_name(host_header: str) -> str:
    """The name in a Host header without its port (IPv6 literals keep no brackets)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


class HostGuardMiddleware:
    """Pin requests to BASE_URL, or refuse Host headers that are not allowed."""

    def __init__(self, app: ASGIApp, *, base_url: str, allowed_hosts: list[str]) -> None:
        self.app = app
        self.allowed = {host_name(host) for host in allowed_hosts}
        self.any_host = "*" in allowed_hosts
        self.base = urlsplit(base_url) if base_url else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if self.base is not None:
            await self.app(self._pinned(scope), receive, send)
            return
        headers = dict(scope.get("headers") or [])
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        if self.any_host or host in self.allowed:
            await self.app(scope, receive, send)
            return
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(UNKNOWN_HOST)).encode())]})
        await send({"type": "http.response.body", "body": UNKNOWN_HOST})

    def _pinned(self, scope: Scope) -> Scope:
        assert self.base is not None
        secure = self.base.scheme == "https"
        port = self.base.port or (443 if secure else 80)
        headers = [(key, value) for key, value in scope.get("headers") or [] if key != b"host"]
        headers.append((b"host", self.base.netloc.encode("latin-1")))
        scheme = ("https" if secure else "http") if scope["type"] == "http" else ("wss" if secure else "ws")
        return {**scope, "scheme": scheme, "server": (self.base.hostname or "", port), "headers": headers}
