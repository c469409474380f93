"""Refuse oversized form submissions with a clear 413 instead of storing or truncating them."""

from __future__ import annotations

from fastapi import HTTPException, Request
from starlette.datastructures import UploadFile
from starlette.types import ASGIApp, Message, Receive, Scope, Send

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


FORM_TOO_LARGE = "The submitted form is too large."


class FormBodyLimitMiddleware:
    """Refuse a form body beyond any legitimate form: by its declared length before reading it, and
    by counting while it streams when no length is declared (chunked uploads)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        declared = self._declared_length(scope) if scope["type"] == "http" else None
        if declared is None:
            await self.app(scope, receive, send)
            return
        if declared > self.max_bytes:
            body = b'{"detail":"' + FORM_TOO_LARGE.encode() + b'"}'
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
            await send({"type": "http.response.start", "status": 413, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        received = 0

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    # Raised inside the app while it parses the form, so the error pages answer 413.
                    raise HTTPException(413, FORM_TOO_LARGE)
            return message

        await self.app(scope, counting_receive, send)

    @staticmethod
    def _declared_length(scope: Scope) -> int | None:
        """None for requests that are not forms; a form's declared length (0 when undeclared)."""
        headers = dict(scope.get("headers") or [])
        if not headers.get(b"content-type", b"").decode("latin-1").startswith(FORM_TYPES):
            return None
        try:
            return int(headers.get(b"content-length", b"0"))
        except ValueError:
            return 1 << 62  # an unreadable length is treated as too large
