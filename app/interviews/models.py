"""Interviews (an invite to one scenario version) and the reviews written about them."""

from __future__ import annotations

import enum
from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Decision(enum.StrEnum):
    undecided = "undecided"
    strong_no_hire = "strong_no_hire"
    no_hire = "no_hire"
    hire = "hire"
    strong_hire = "strong_hire"


class Interview(Base):
    __tablename__ = "interviews"

    id: Mapped[int] = mapped_column(primary_key=True)
    interviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    candidate_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    candidate_email: Mapped[str] = mapped_column(String(254))
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id"))
    time_limit_minutes: Mapped[int] = mapped_column(default=60)
    # Only a hash of the invite token is stored; the link itself is shown once.
    invite_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    invite_expires_at: Mapped[datetime]
    invite_used_at: Mapped[datetime | None]
    # Set by the workspace when the candidate first opens it; the time limit runs from here.
    started_at: Mapped[datetime | None]
    # The candidate pressed "End interview" (or the interviewer closed it); nothing more is taken.
    submitted_at: Mapped[datetime | None]
    # Revoked by the interviewer: the invite and the workspace refuse from then on.
    revoked_at: Mapped[datetime | None]
    # The last invite email and the one reminder before the invite expires (None: never sent).
    invite_sent_at: Mapped[datetime | None]
    reminder_sent_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class InterviewReviewer(Base):
    """Another interviewer the owner shared the interview with: they may read it and review it."""

    __tablename__ = "interview_reviewers"

    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True, index=True)
    added_at: Mapped[datetime] = mapped_column(default=utcnow)


class Review(Base):
    """One interviewer's rubric scores, private notes and decision on one interview (never shown to candidates)."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("interview_id", "reviewer_id", name="uq_reviews_one_per_reviewer"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    attempt_id: Mapped[int | None] = mapped_column(ForeignKey("attempts.id", ondelete="SET NULL"))
    reviewer_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    rubric_scores: Mapped[dict[str, int]] = mapped_column(default=dict)  # criterion id -> 1..4
    notes: Mapped[str] = mapped_column(Text, default="")
    decision: Mapped[str] = mapped_column(String(20), default=Decision.undecided.value)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
