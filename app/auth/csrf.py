"""CSRF protection for every state-changing request.

The token is an HMAC of the session nonce, so it needs no server storage and changes at sign-in.
Forms send it in the hidden field `csrf_token`; htmx sends it in the X-CSRF-Token header (set once
on <body> with hx-headers). Requests to /api that carry `Authorization: Bearer` are exempt because
a browser never attaches that header on its own; cookie-authenticated /api requests are not exempt.
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi import HTTPException, Request

from app.auth.sessions import session_nonce
from app.core.settings import get_settings

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FAILED = "The security token of this form is missing or out of date. Reload the page and try again."
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def csrf_token(request: Request) -> str:
    """The token to embed in this visitor's forms and htmx headers."""
    key = get_settings().effective_secret_key().encode()
    return hmac.new(key, b"csrf|" + session_nonce(request).encode(), hashlib.sha256).hexdigest()


def is_api_path(path: str) -> bool:
    return path == "/api" or path.startswith("/api/")


def is_bearer_request(request: Request) -> bool:
    """True when the request authenticates with `Authorization: Bearer ...` (any case)."""
    return request.headers.get("authorization", "").lower().startswith("bearer")


def _needs_check(request: Request) -> bool:
    if request.method in SAFE_METHODS:
        return False
    if is_api_path(request.url.path):
        # Only an ambient credential (the session cookie) can be abused cross-site.
        return not is_bearer_request(request) and "uid" in request.session
    return True


async def _submitted_token(request: Request) -> str:
    header = request.headers.get(CSRF_HEADER)
    if header:
        return header
    if request.headers.get("content-type", "").startswith(FORM_TYPES):
        value = (await request.form()).get(CSRF_FIELD)
        return value if isinstance(value, str) else ""
    return ""


async def csrf_protect(request: Request) -> None:
    """App-wide dependency: refuse an unsafe request whose token does not match (403)."""
    if not _needs_check(request):
        return
    # The nonce must already exist: a request that arrives without one cannot carry a valid token.
    if "nonce" not in request.session:
        raise HTTPException(status_code=403, detail=CSRF_FAILED)
    submitted = await _submitted_token(request)
    if not submitted or not hmac.compare_digest(submitted.encode(), csrf_token(request).encode()):
        raise HTTPException(status_code=403, detail=CSRF_FAILED)
