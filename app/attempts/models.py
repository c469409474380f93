"""Attempts: the single source of truth for every grading job."""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class AttemptKind(enum.StrEnum):
    run = "run"  # public checks and the tiny training run
    submit = "submit"  # the full hidden grading
    scratch = "scratch"  # the candidate's scratch.py; stored, never graded or scored


class AttemptStatus(enum.StrEnum):
    queued = "queued"
    running = "running"
    passed = "passed"
    failed = "failed"
    error = "error"
    cancelled = "cancelled"  # withdrawn by the candidate while still queued


FINISHED_STATUSES = frozenset(
    {AttemptStatus.passed, AttemptStatus.failed, AttemptStatus.error, AttemptStatus.cancelled}
)


class Attempt(Base):
    __tablename__ = "attempts"
    __table_args__ = (Index("ix_attempts_status_heartbeat", "status", "heartbeat_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id"), index=True)
    interview_id: Mapped[int | None] = mapped_column(
        ForeignKey("interviews.id", ondelete="SET NULL"), index=True
    )
    kind: Mapped[str] = mapped_column(String(8), default=AttemptKind.submit.value)
    status: Mapped[str] = mapped_column(String(16), default=AttemptStatus.queued.value)
    files: Mapped[dict[str, str]]  # file name -> text
    notes: Mapped[dict[str, str]] = mapped_column(default=dict)  # question id -> answer
    hints_used: Mapped[dict[str, int]] = mapped_column(default=dict)  # bug id -> highest hint level taken
    result: Mapped[dict[str, Any] | None]
    error: Mapped[dict[str, Any] | None]
    score: Mapped[float | None]
    # Where the grading is (stage, k of n), written by the worker for display only; never trusted.
    progress: Mapped[dict[str, Any] | None]
    tries: Mapped[int] = mapped_column(default=0)
    worker_id: Mapped[str | None] = mapped_column(String(120))
    heartbeat_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
