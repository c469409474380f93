"""Coaching tips shown after a graded attempt, stored with where they came from, and their ratings."""

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
    source: Mapped[str] = mapped_column(String(80))  # "rules" or "llm:<model>"
    # The question id of the note this tip answers; None for tips about the grading or the history.
    note: Mapped[str | None] = mapped_column(String(80))
    component: Mapped[str | None] = mapped_column(String(16))
    framing: Mapped[str] = mapped_column(Text)
    pro_tip: Mapped[str] = mapped_column(Text)
    steps: Mapped[list[Any]]
    notice: Mapped[str] = mapped_column(Text, default=AI_NOTICE)
    # Ids of app.coaching.rules.RULES that produced the tip, and what triggered each (for reviewers).
    rules: Mapped[list[Any]] = mapped_column(default=list)
    why: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class TipRating(Base):
    """A candidate's verdict on one tip of their own attempt (one per tip; rating again replaces it).

    The tip's rules and source are copied so the per-rule aggregate survives a re-grading that
    replaces the tips (the rating then keeps tip_id NULL).
    """

    __tablename__ = "tip_ratings"

    id: Mapped[int] = mapped_column(primary_key=True)
    tip_id: Mapped[int | None] = mapped_column(ForeignKey("coaching_tips.id", ondelete="SET NULL"), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    helpful: Mapped[bool]
    rules: Mapped[list[Any]] = mapped_column(default=list)
    source: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
