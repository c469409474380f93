"""Coaching tips shown after a graded attempt, stored with where they came from."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow

AI_NOTICE = (
    "AI-generated suggestions, not part of the candidate's original notes. "
    "May be inaccurate — verify before relying on them."
)


class CoachingTip(Base):
    __tablename__ = "coaching_tips"

    id: Mapped[int] = mapped_column(primary_key=True)
    attempt_id: Mapped[int] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"), index=True)
    source: Mapped[str] = mapped_column(String(40))  # "rules" or "llm:<model>"
    component: Mapped[str | None] = mapped_column(String(16))
    framing: Mapped[str] = mapped_column(Text)
    pro_tip: Mapped[str] = mapped_column(Text)
    steps: Mapped[list[Any]]
    notice: Mapped[str] = mapped_column(Text, default=AI_NOTICE)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
