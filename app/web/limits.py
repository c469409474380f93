"""Refuse oversized form submissions with a clear 413 instead of storing or truncating them."""

from __future__ import annotations

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile
from starlette.types import ASGIApp, Receive, Scope, Send

from app.auth.csrf import FORM_TYPES, SAFE_METHODS
from app.core.settings import get_settings

# A whole form may hold a few fields at the limit (4 bytes per character in the worst case).
FORM_BODY_FACTOR = 16


def field_too_long(name: str, length: int, limit: int) -> str:
    return f"The field {name} is too long ({length} characters; the limit is {limit}). Shorten it and try again."


async def limit_form_fields(request: Request) -> None:
    """App-wide dependency: 413 when any form field exceeds settings.max_form_field_chars."""
    if request.method in SAFE_METHODS or not request.headers.get("content-type", "").startswith(FORM_TYPES):
        return
    limit = get_settings().max_form_field_chars
    for name, value in (await request.form()).multi_items():
        if isinstance(value, UploadFile):
            continue
        if len(value) > limit:
            raise HTTPException(413, field_too_long(name, len(value), limit))


class FormBodyLimitMiddleware:
    """Refuse a form body whose declared length is beyond any legitimate form, before reading it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._too_big(scope):
            body = b'{"detail":"The submitted form is too large."}'
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 413, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _too_big(self, scope: Scope) -> bool:
        headers = dict(scope.get("headers") or [])
        content_type = headers.get(b"content-type", b"").decode("latin-1")
        if not content_type.startswith(FORM_TYPES):
            return False
        try:
            return int(headers.get(b"content-length", b"0")) > self.max_bytes
        except ValueError:
            return True
