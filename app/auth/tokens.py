"""Bearer tokens for the JSON API; the token is shown once and only its SHA-256 is stored."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from app.core.db import as_utc, utcnow
from app.core.security import new_token, token_digest
from app.users.models import ApiToken, User

TOKEN_LIFETIME = timedelta(days=30)


def issue_token(*, session: Session, user: User, name: str = "api", lifetime: timedelta = TOKEN_LIFETIME) -> str:
    """Store a new token's digest (flushed, not committed) and return the token itself."""
    token = new_token()
    session.add(ApiToken(user_id=user.id, token_hash=token_digest(token), name=name, expires_at=utcnow() + lifetime))
    session.flush()
    return token


# One query for the token and its owner, built once: every API request runs it.
_TOKEN_AND_OWNER = select(ApiToken, User).join(User, User.id == ApiToken.user_id).where(
    ApiToken.token_hash == bindparam("digest")
)


def token_owner(*, session: Session, token: str) -> tuple[ApiToken, User] | None:
    """The unexpired, unrevoked token row and its user (active or not), or None."""
    found = session.execute(_TOKEN_AND_OWNER, {"digest": token_digest(token)}).first()
    if found is None:
        return None
    row, user = found
    if row.revoked_at is not None:
        return None
    if row.expires_at is not None and as_utc(row.expires_at) <= utcnow():
        return None
    return row, user


def revoke_token(*, session: Session, token_row: ApiToken) -> None:
    """Mark a token revoked (flushed, not committed)."""
    token_row.revoked_at = utcnow()
    session.flush()
