"""Drafts (the latest text of a candidate's files and notes), their snapshots, hints and editor events.

A draft belongs to one user, one scenario version and one scope: "practice", or "interview:<id>" for
an attempt inside an interview (a string, so the unique constraint holds on PostgreSQL, where NULLs
would be distinct).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow

PRACTICE = "practice"


def scope_for(interview_id: int | None) -> str:
    """The draft scope of practice (None) or of one interview."""
    return PRACTICE if interview_id is None else f"interview:{interview_id}"


class Draft(Base):
    __tablename__ = "drafts"
    __table_args__ = (UniqueConstraint("user_id", "scenario_version_id", "scope", name="uq_drafts_owner"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id", ondelete="CASCADE"))
    interview_id: Mapped[int | None] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    scope: Mapped[str] = mapped_column(String(40), default=PRACTICE)
    files: Mapped[dict[str, str]] = mapped_column(default=dict)
    notes: Mapped[dict[str, str]] = mapped_column(default=dict)
    # Bumped by every save; a tab that saves with an older revision is told it is behind.
    revision: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class DraftSnapshot(Base):
    """The draft as it was at one moment (for playback); one per workspace per few seconds, capped per user."""

    __tablename__ = "draft_snapshots"
    __table_args__ = (Index("ix_draft_snapshots_draft_taken", "draft_id", "taken_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    draft_id: Mapped[int] = mapped_column(ForeignKey("drafts.id", ondelete="CASCADE"))
    revision: Mapped[int]
    files: Mapped[dict[str, str]]
    notes: Mapped[dict[str, str]]
    taken_at: Mapped[datetime] = mapped_column(default=utcnow)
    # The UTF-8 bytes of its files' and notes' text: the per-user cap adds these up without reading the text.
    size_bytes: Mapped[int] = mapped_column(default=0, server_default="0")


class HintReveal(Base):
    """One hint level of one planted bug, revealed to a candidate at a moment (it costs score)."""

    __tablename__ = "hint_reveals"
    __table_args__ = (
        UniqueConstraint("user_id", "scenario_version_id", "scope", "bug_id", "level", name="uq_hint_reveals_once"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id", ondelete="CASCADE"))
    interview_id: Mapped[int | None] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    scope: Mapped[str] = mapped_column(String(40), default=PRACTICE)
    bug_id: Mapped[str] = mapped_column(String(80))
    level: Mapped[int]
    revealed_at: Mapped[datetime] = mapped_column(default=utcnow)


class WorkspaceEvent(Base):
    """Something the editor reported (a large paste, focus lost and back): evidence, never a verdict."""

    __tablename__ = "workspace_events"
    __table_args__ = (Index("ix_workspace_events_owner", "user_id", "scenario_version_id", "scope"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id", ondelete="CASCADE"))
    interview_id: Mapped[int | None] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    scope: Mapped[str] = mapped_column(String(40), default=PRACTICE)
    kind: Mapped[str] = mapped_column(String(20))  # paste | focus_lost | reset_file
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
    at: Mapped[datetime] = mapped_column(default=utcnow)
