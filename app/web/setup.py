"""Wire the web layer into an app: error pages, form size limit and browser security headers."""

from __future__ import annotations

from fastapi import FastAPI
from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.core.settings import Settings
from app.ops.middleware import RequestContextMiddleware
from app.web import errors
from app.web.hosts import HostGuardMiddleware
from app.web.limits import (
    FORM_BODY_FACTOR,
    BodyLimitMiddleware,
    InviteTokenLimiter,
    InviteTokenLimitMiddleware,
    upload_max_bytes,
)

# Pages load only their own scripts and styles. /docs sets its own policy: this one plus the hash of
# Swagger UI's inline bootstrap script (app/web/system.py).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)


class SecurityHeadersMiddleware:
    """Headers every response gets; a route that set its own CSP (/docs) keeps it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("X-Frame-Options", "DENY")
                # Invite links carry a secret in the path; never send it to another site.
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                if not scope["path"].startswith("/static/"):
                    # Pages carry CSRF tokens, invite links and personal data: never keep them in a cache.
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)


def install(app: FastAPI, settings: Settings) -> None:
    """Called once by create_app."""
    errors.install(app)
    form_max_bytes = settings.max_form_field_chars * FORM_BODY_FACTOR
    app.add_middleware(
        BodyLimitMiddleware,
        form_max_bytes=form_max_bytes,
        upload_max_bytes=upload_max_bytes(form_max_bytes=form_max_bytes,
                                          file_max_bytes=settings.scenario_zip_max_bytes),
        body_max_bytes=settings.max_request_body_bytes,
    )
    # One limiter per app, so each test app starts with clean counts (as the login limiter).
    app.add_middleware(InviteTokenLimitMiddleware, limiter=InviteTokenLimiter(settings))
    app.add_middleware(SecurityHeadersMiddleware)
    app.add_middleware(HostGuardMiddleware, base_url=settings.base_url, allowed_hosts=settings.host_list())
    # Outermost of these: every answer (a refused host too) gets a request id, a log line and a count.
    app.add_middleware(RequestContextMiddleware)
