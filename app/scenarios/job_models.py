"""Background jobs about a scenario version (validation, rejudge), split into tasks any worker can run."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class ScenarioJob(Base):
    """One validation or rejudge of a version; `done` of `total` tasks is its live progress."""

    __tablename__ = "scenario_jobs"

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # validate | rejudge
    scenario_version_id: Mapped[int] = mapped_column(ForeignKey("scenario_versions.id", ondelete="CASCADE"),
                                                     index=True)
    # The package as it was when the job started: a draft edited meanwhile does not mix into it.
    package: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued | running | done | failed
    phase: Mapped[int] = mapped_column(default=0)  # validation: 0 solution/starter/mutants, 1 masking pairs
    total: Mapped[int] = mapped_column(default=0)
    done: Mapped[int] = mapped_column(default=0)
    current: Mapped[str] = mapped_column(String(200), default="")
    summary: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]


class JobTask(Base):
    """One sandboxed run of a job, claimed, heart-beaten and finished like an attempt."""

    __tablename__ = "job_tasks"
    __table_args__ = (Index("ix_job_tasks_status_heartbeat", "status", "heartbeat_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("scenario_jobs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))  # solution | starter | bug:<id> | pair:<a>+<b> | attempt:<id>
    phase: Mapped[int] = mapped_column(default=0)
    attempt_id: Mapped[int | None] = mapped_column(ForeignKey("attempts.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="queued")  # queued | running | done
    outcome: Mapped[dict[str, Any] | None]
    # Rejudge: the attempt's status, score, error and result before it was graded again.
    previous: Mapped[dict[str, Any] | None]
    tries: Mapped[int] = mapped_column(default=0)
    worker_id: Mapped[str | None] = mapped_column(String(120))
    heartbeat_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
