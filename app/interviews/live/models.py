"""Tables of the live interview: private notes, messages to the candidate, the event log, keystroke batches."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class InterviewNote(Base):
    """An interviewer's private note, stamped with the interview clock; never shown to the candidate."""

    __tablename__ = "interview_notes"

    id: Mapped[int] = mapped_column(primary_key=True)
    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    text: Mapped[str] = mapped_column(Text)
    seconds: Mapped[int]  # on the interview clock (0 before the candidate started)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class InterviewMessage(Base):
    """A short message from an interviewer to the candidate, shown in the workspace and the timeline."""

    __tablename__ = "interview_messages"

    id: Mapped[int] = mapped_column(primary_key=True)
    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"), index=True)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    text: Mapped[str] = mapped_column(Text)
    seconds: Mapped[int]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LiveEvent(Base):
    """One event of an interview's live stream; its id is the stream's event id (Last-Event-ID).

    Writers lock the interview's row first, so one interview's ids are committed in increasing order
    and a reader that saw id n has seen every earlier one. `key` makes an event written by several
    followers at once (an attempt's new status) exist once. Bounded per interview (app/interviews/live/log.py).
    """

    __tablename__ = "live_events"
    __table_args__ = (
        UniqueConstraint("interview_id", "key", name="uq_live_events_key"),
        Index("ix_live_events_interview_id_id", "interview_id", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(20))  # draft | presence | attempt | message | ended
    key: Mapped[str | None] = mapped_column(String(80))
    data: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class KeystrokeBatch(Base):
    """The editor's changes to one file between two autosaves: CodeMirror change sets with their times.

    `changes` is a list of [milliseconds after `at`, ChangeSet JSON, user event]; when the recording
    lost track of the file (a reset, a restore, another tab), the batch holds the file's whole `text`
    instead, so playback never applies a change to the wrong text.
    """

    __tablename__ = "keystroke_batches"
    __table_args__ = (Index("ix_keystroke_batches_interview_file", "interview_id", "file", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    interview_id: Mapped[int] = mapped_column(ForeignKey("interviews.id", ondelete="CASCADE"))
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    file: Mapped[str] = mapped_column(String(80))
    at: Mapped[datetime] = mapped_column(default=utcnow)  # server time of the first change
    changes: Mapped[list[Any]] = mapped_column(default=list)
    text: Mapped[str | None] = mapped_column(Text)
    after_hash: Mapped[str] = mapped_column(String(16))  # of the file's text after the batch
    size_bytes: Mapped[int] = mapped_column(default=0)
