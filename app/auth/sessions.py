"""Signed cookie sessions: the cookie carries a user id, a random nonce and a password stamp.

Starlette's SessionMiddleware signs the cookie (itsdangerous, the app's secret key) and sets
HttpOnly, SameSite=Lax and Secure; this module decides what goes into it. What a signed cookie
cannot say by itself (signed out, signed out everywhere) lives in the database: app/auth/revocation.py.
"""

from __future__ import annotations

import hashlib
import secrets
import time

from fastapi import FastAPI, Request
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session
from starlette.middleware.sessions import SessionMiddleware

from app.auth import revocation
from app.core.security import token_digest
from app.core.settings import Settings, get_settings
from app.users.models import EndedSession, User

SESSION_COOKIE = "dojo_session"


# The account and, if this session was signed out, that record: one query, built once, since every
# page request runs it (two lookups would cost the ORM's overhead twice).
_USER_AND_ENDED = (
    select(User, EndedSession.nonce_digest)
    .outerjoin(EndedSession, EndedSession.nonce_digest == bindparam("digest"))
    .where(User.id == bindparam("uid"))
)


def install_session_middleware(app: FastAPI, settings: Settings) -> None:
    """Add the signed-cookie middleware with the configured flags."""
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.effective_secret_key(),
        session_cookie=SESSION_COOKIE,
        max_age=settings.session_max_age_seconds,
        same_site="lax",
        https_only=settings.secure_cookies,
    )


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
        {
            "uid": user.id, "nonce": secrets.token_urlsafe(24), "pw": password_stamp(user),
            "gen": user.session_generation, "iat": int(time.time()),
        }
    )


def forget_session(request: Request) -> None:
    """Empty the cookie (a session that is already invalid needs no record)."""
    request.session.clear()


def end_session(request: Request, db: Session) -> None:
    """Sign out: refuse this session's nonce in every process from now on, and empty the cookie.

    The caller commits; a copy of the cookie taken before sign-out no longer works anywhere.
    """
    nonce = request.session.get("nonce")
    if isinstance(nonce, str) and "uid" in request.session:
        revocation.end_one_session(session=db, nonce=nonce, max_age_seconds=get_settings().session_max_age_seconds)
    request.session.clear()


def session_user_id(request: Request, *, max_age_seconds: int) -> int | None:
    """The signed-in user's id, or None when anonymous or the session is older than the maximum age."""
    uid = request.session.get("uid")
    issued = request.session.get("iat")
    if not isinstance(uid, int) or not isinstance(issued, int):
        return None
    if time.time() - issued > max_age_seconds:
        return None
    return uid


def session_user(request: Request, db: Session, uid: int) -> User | None:
    """The user of this cookie's id (from session_user_id), or None when the account is gone or
    deactivated, the password changed, every session was revoked, or this one was signed out."""
    nonce = request.session.get("nonce")
    if not isinstance(nonce, str):
        return None
    found = db.execute(_USER_AND_ENDED, {"uid": uid, "digest": token_digest(nonce)}).first()
    if found is None:
        return None
    user, ended = found
    if ended is not None or not user.is_active:
        return None
    if request.session.get("pw") != password_stamp(user):
        return None
    if request.session.get("gen", 0) != user.session_generation:
        return None
    return user
