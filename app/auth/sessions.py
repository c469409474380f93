"""Signed cookie sessions: the cookie carries a user id, a random nonce and a password stamp.

Starlette's SessionMiddleware signs the cookie (itsdangerous, the app's secret key) and sets
HttpOnly, SameSite=Lax and Secure; this module decides what goes into it.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time

from fastapi import FastAPI, Request
from starlette.middleware.sessions import SessionMiddleware

from app.core.settings import Settings
from app.users.models import User

SESSION_COOKIE = "dojo_session"


def install_session_middleware(app: FastAPI, settings: Settings) -> None:
    """Add the signed-cookie middleware with the configured flags."""
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.effective_secret_key(),
        session_cookie=SESSION_COOKIE,
        max_age=settings.session_max_age_seconds,
        same_site="lax",
        https_only=settings.cookie_secure,
    )


class EndedSessions:
    """Nonces of sessions signed out in this process, refused until their cookie would expire anyway.

    A signed cookie stays valid until it expires, so without this list a copy of the cookie taken
    before sign-out would still work. The list lives in process memory: several web processes or a
    restart forget it (the password stamp and deactivation checks still apply everywhere).
    """

    def __init__(self, max_age_seconds: int) -> None:
        self.max_age = max_age_seconds
        self._ended: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, nonce: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._ended = {key: until for key, until in self._ended.items() if until > now}
            self._ended[nonce] = now + self.max_age

    def __contains__(self, nonce: object) -> bool:
        with self._lock:
            until = self._ended.get(nonce) if isinstance(nonce, str) else None
        return until is not None and until > time.monotonic()


def password_stamp(user: User) -> str:
    """Changes whenever the password changes, so a new password ends every older session."""
    return hashlib.sha256((user.password_hash or "").encode()).hexdigest()[:16]


def session_nonce(request: Request) -> str:
    """The visitor's random nonce (created on first use; CSRF tokens are derived from it)."""
    nonce = request.session.get("nonce")
    if not isinstance(nonce, str) or len(nonce) < 16:
        nonce = secrets.token_urlsafe(24)
        request.session["nonce"] = nonce
    return nonce


def start_session(request: Request, user: User) -> None:
    """Sign the user in with a fresh nonce (a nonce planted before sign-in is never reused)."""
    request.session.clear()
    request.session.update(
        {"uid": user.id, "nonce": secrets.token_urlsafe(24), "pw": password_stamp(user), "iat": int(time.time())}
    )


def end_session(request: Request) -> None:
    """Forget everything in the cookie and refuse this session's nonce from now on."""
    nonce = request.session.get("nonce")
    ended: EndedSessions | None = getattr(request.app.state, "ended_sessions", None)
    if ended is not None and isinstance(nonce, str) and "uid" in request.session:
        ended.add(nonce)
    request.session.clear()


def session_user_id(request: Request, *, max_age_seconds: int) -> int | None:
    """The signed-in user's id, or None when anonymous or the session is older than the maximum age."""
    uid = request.session.get("uid")
    issued = request.session.get("iat")
    if not isinstance(uid, int) or not isinstance(issued, int):
        return None
    if time.time() - issued > max_age_seconds:
        return None
    ended: EndedSessions | None = getattr(request.app.state, "ended_sessions", None)
    if ended is not None and request.session.get("nonce") in ended:
        return None
    return uid


def session_matches(request: Request, user: User) -> bool:
    """False when the password changed after this session started."""
    return request.session.get("pw") == password_stamp(user)
