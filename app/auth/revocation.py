"""Ending credentials for good: every session and API token of an account, or one session.

All of it lives in the database, so it holds in every web process and after a restart:
- a session cookie carries the account's session generation; raising it ends every session;
- API tokens get `revoked_at`, so reactivating an account never brings them back;
- one signed-out session's nonce digest is kept until its cookie would have expired anyway.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, update
from sqlalchemy.orm import Session

from app.core.db import utcnow
from app.core.security import token_digest
from app.users.models import ApiToken, EndedSession, User


def revoke_all(*, session: Session, user: User) -> None:
    """End every session and revoke every API token of the account (flushed, not committed)."""
    session.execute(
        update(User).where(User.id == user.id).values(session_generation=User.session_generation + 1)
        .execution_options(synchronize_session=False)
    )
    session.execute(
        update(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None)).values(revoked_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.flush()
    session.refresh(user)


def end_one_session(*, session: Session, nonce: str, max_age_seconds: int) -> None:
    """Refuse this session's nonce from now on, and forget entries whose cookies have expired."""
    now = utcnow()
    session.execute(delete(EndedSession).where(EndedSession.expires_at < now))
    digest = token_digest(nonce)
    if session.get(EndedSession, digest) is None:
        session.add(EndedSession(nonce_digest=digest, expires_at=now + timedelta(seconds=max_age_seconds)))
    session.flush()
