"""Per-request bookkeeping: the request id (X-Request-ID in and out, and in every log line) and the
request's count and latency by route template (so /api/attempts/{attempt_id} is one series)."""

from __future__ import annotations

import logging
import time

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core import logs
from app.ops import metrics

log = logging.getLogger("dojo.access")


def route_template(scope: Scope) -> str:
    """The matched route's path template, or a fixed label for unmatched paths (no unbounded labels)."""
    route = scope.get("route")
    path = getattr(route, "path", None) or getattr(route, "path_format", None)
    return str(path) if path else "unmatched"


class RequestContextMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        offered = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")
        request_id = logs.new_request_id(offered)
        token = logs.request_id_var.set(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                MutableHeaders(scope=message)["X-Request-ID"] = request_id
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = route_template(scope)
            metrics.observe_request(scope["method"], route, status, seconds)
            # The template, never the path: paths can carry secrets (invite tokens).
            log.info("%s %s %s", scope["method"], route, status,
                     extra={"status": status, "duration_ms": round(seconds * 1000, 1)})
            logs.request_id_var.reset(token)
