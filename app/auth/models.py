"""Signed-out sessions, kept in the database so every web process (and the next start) refuses them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base


class EndedSession(Base):
    """The digest of a signed-out session's nonce, refused until the cookie would have expired anyway."""

    __tablename__ = "ended_sessions"

    nonce_digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[datetime] = mapped_column(index=True)
