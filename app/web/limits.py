"""Refuse oversized or unreadable request bodies with a clear 413/422 instead of storing or truncating them,
and count wrong invite tokens per client address (429 once too many)."""

from __future__ import annotations

import json
import logging
import math
import re
import time

from fastapi import HTTPException, Request
from limits import RateLimitItemPerSecond
from limits.storage import Storage
from limits.strategies import MovingWindowRateLimiter
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.auth.csrf import FORM_TYPES, SAFE_METHODS, is_api_path
from app.auth.rate_limit import make_storage
from app.core.settings import Settings, get_settings
from app.web.errors import error_page

log = logging.getLogger(__name__)

# A whole form may hold a few fields at the limit (4 bytes per character in the worst case).
FORM_BODY_FACTOR = 16


def field_too_long(name: str, length: int, limit: int) -> str:
    return f"The field {name} is too long ({length} characters; the limit is {limit}). Shorten it and try again."


# Form fields that carry a whole code file ("file:model.py") are held to the file limit instead.
CODE_FIELD_PREFIX = "file:"


async def limit_form_fields(request: Request) -> None:
    """App-wide dependency: 413 when a form field exceeds settings.max_form_field_chars (code: max_file_bytes)."""
    if request.method in SAFE_METHODS or not request.headers.get("content-type", "").startswith(FORM_TYPES):
        return
    settings = get_settings()
    for name, value in (await request.form()).multi_items():
        if isinstance(value, UploadFile):
            continue
        limit = settings.max_file_bytes if name.startswith(CODE_FIELD_PREFIX) else settings.max_form_field_chars
        if len(value) > limit:
            raise HTTPException(413, field_too_long(name, len(value), limit))


FORM_TOO_LARGE = "The submitted form is too large."
BODY_TOO_LARGE = "The request body is too large (the limit is {limit} bytes)."
LONE_SURROGATE = "The request contains text that is not valid UTF-8 (a lone surrogate such as \\ud800)."
JSON_TYPES = ("application/json",)


def _json_error(status: int, message: str) -> tuple[dict[str, object], bytes]:
    body = json.dumps({"detail": message}).encode()
    start = {"type": "http.response.start", "status": status,
             "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]}
    return start, body


# A multipart upload carries one file and a few small fields besides it: their headers and boundaries.
UPLOAD_OVERHEAD_BYTES = 64 * 1024
MULTIPART = "multipart/form-data"


def upload_max_bytes(*, form_max_bytes: int, file_max_bytes: int) -> int:
    """The ceiling of a multipart body: the largest file a form takes (a scenario zip) with room for the form."""
    return max(form_max_bytes, file_max_bytes + UPLOAD_OVERHEAD_BYTES)


class BodyLimitMiddleware:
    """Every request body has a ceiling: urlencoded forms `form_max_bytes`, multipart forms (file uploads)
    `upload_max_bytes`, anything else (JSON) `body_max_bytes`.

    A declared length above the ceiling is refused before anything is read; an undeclared
    (chunked) body is counted while it streams. JSON bodies are also read whole here and refused
    with a 422 when they hold a lone surrogate escape, which Python accepts but no database,
    template or JSON encoder can store or print.
    """

    def __init__(self, app: ASGIApp, *, form_max_bytes: int, upload_max_bytes: int, body_max_bytes: int) -> None:
        self.app = app
        self.form_max_bytes = form_max_bytes
        self.upload_max_bytes = upload_max_bytes
        self.body_max_bytes = body_max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        content_type = headers.get(b"content-type", b"").decode("latin-1").lower()
        is_form = content_type.startswith(FORM_TYPES)
        if not is_form:
            limit = self.body_max_bytes
        else:
            limit = self.upload_max_bytes if content_type.startswith(MULTIPART) else self.form_max_bytes
        message = FORM_TOO_LARGE if is_form else BODY_TOO_LARGE.format(limit=limit)
        if _declared_length(headers) > limit:
            await _send_json(send, 413, message)
            return
        if content_type.startswith(JSON_TYPES):
            await self._check_json(scope, receive, send, limit, message)
            return
        await self.app(scope, _counting(receive, limit, message), send)

    async def _check_json(self, scope: Scope, receive: Receive, send: Send, limit: int, message: str) -> None:
        chunks: list[bytes] = []
        size = 0
        while True:
            part = await receive()
            if part["type"] != "http.request":
                break
            chunks.append(part.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                await _send_json(send, 413, message)
                return
            if not part.get("more_body", False):
                break
        body = b"".join(chunks)
        if _has_lone_surrogate(body):
            await _send_json(send, 422, LONE_SURROGATE)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _has_lone_surrogate(body: bytes) -> bool:
    """True when the JSON decodes to text that cannot be encoded as UTF-8 (invalid JSON is the app's to refuse)."""
    # Only an escape (\\udXXX) or a raw UTF-8 surrogate (lead byte 0xED; json.loads passes them) can be one.
    if b"\\u" not in body and b"\xed" not in body:
        return False
    try:
        value = json.loads(body)
    except ValueError:
        return False
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


async def _send_json(send: Send, status: int, message: str) -> None:
    start, body = _json_error(status, message)
    await send(start)
    await send({"type": "http.response.body", "body": body})


def _counting(receive: Receive, limit: int, message: str) -> Receive:
    received = 0

    async def counting_receive() -> Message:
        nonlocal received
        part = await receive()
        if part["type"] == "http.request":
            received += len(part.get("body", b""))
            if received > limit:
                # Raised inside the app while it reads the body, so the error pages answer 413.
                raise HTTPException(413, message)
        return part

    return counting_receive


def _declared_length(headers: dict[bytes, bytes]) -> int:
    """The declared Content-Length (0 when undeclared); an unreadable one counts as too large."""
    try:
        return int(headers.get(b"content-length", b"0"))
    except ValueError:
        return 1 << 62


# Paths that look an interview up by its invite token: the invite page, its form and the API's redeem.
# /invite/interviews/{id} (a signed-in candidate's pending invite) carries no token.
INVITE_TOKEN_PATH = re.compile(r"^/(?:invite/(?!interviews/)|api/invites/)[^/]+/?$")
INVITE_TOKENS_THROTTLED = ("Too many invite links that do not exist were tried from your address. "
                           "Wait {minutes} minute(s), then open the link from your invitation email again.")


class InviteTokenLimiter:
    """Wrong invite tokens, counted per client address in a moving window (the sign-in limiter's storage:
    this process's memory, or Redis shared by every web process).

    Tokens are 256-bit, so guessing is hopeless anyway; the count keeps a client that sprays links from
    costing a database lookup each, and says so (429) instead of answering 404 forever.
    """

    NAMESPACE = "dojo-invite"

    def __init__(self, settings: Settings, storage: Storage | None = None) -> None:
        self.limiter = MovingWindowRateLimiter(storage or make_storage(settings.limits_storage_uri()))
        self.item = RateLimitItemPerSecond(settings.invite_token_failures_per_ip, settings.login_window_seconds,
                                           namespace=self.NAMESPACE)

    def wait_seconds(self, ip: str) -> int:
        """0 while this address may try a token; otherwise the seconds until its window has room again.
        A storage that is down refuses nobody (logged by the limiter's caller)."""
        try:
            if self.limiter.test(self.item, "ip", ip):
                return 0
            reset = self.limiter.get_window_stats(self.item, "ip", ip).reset_time
        except Exception:
            log.exception("invite limiter storage unavailable; the link is not counted")
            return 0
        return max(1, math.ceil(reset - time.time()))

    def failed(self, ip: str) -> None:
        try:
            self.limiter.hit(self.item, "ip", ip)
        except Exception:
            log.exception("invite limiter storage unavailable; the wrong link is not counted")


class InviteTokenLimitMiddleware:
    """Counts the invite-token requests answered 404 (no such token) per client address, and answers 429
    with Retry-After to that address's invite-token requests once its window is full: the page as the
    error page, the API as JSON, like every other refusal. A right token from a throttled address waits
    too, as a right password does after too many wrong ones."""

    def __init__(self, app: ASGIApp, *, limiter: InviteTokenLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not INVITE_TOKEN_PATH.match(scope["path"]):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        ip = client[0] if client else "unknown"
        wait = await run_in_threadpool(self.limiter.wait_seconds, ip)
        if wait:
            await self._refuse(scope, receive, send, wait)
            return
        status = 0

        async def watching(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        await self.app(scope, receive, watching)
        if status == 404:
            await run_in_threadpool(self.limiter.failed, ip)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, wait: int) -> None:
        message = INVITE_TOKENS_THROTTLED.format(minutes=max(1, math.ceil(wait / 60)))
        headers = {"Retry-After": str(wait)}
        if is_api_path(scope["path"]):
            response: Response = JSONResponse({"detail": message}, status_code=429, headers=headers)
        else:
            response = error_page(Request(scope, receive), 429, message, headers)
        await response(scope, receive, send)
