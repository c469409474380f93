"""Scenarios and their immutable, numbered versions."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint, event, inspect
from sqlalchemy.orm import Mapped, mapped_column

from app.core.db import Base, utcnow


class Scenario(Base):
    __tablename__ = "scenarios"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(80), unique=True, index=True)
    title: Mapped[str] = mapped_column(String(200))
    is_builtin: Mapped[bool] = mapped_column(default=False)
    archived: Mapped[bool] = mapped_column(default=False)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ScenarioVersion(Base):
    """One frozen copy of a scenario package; content never changes once written."""

    __tablename__ = "scenario_versions"
    __table_args__ = (UniqueConstraint("scenario_id", "version", name="uq_scenario_versions_number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    scenario_id: Mapped[int] = mapped_column(ForeignKey("scenarios.id", ondelete="CASCADE"), index=True)
    version: Mapped[int]
    title: Mapped[str] = mapped_column(String(200))
    difficulty: Mapped[str] = mapped_column(String(16))
    summary: Mapped[str] = mapped_column(Text, default="")
    content: Mapped[dict[str, Any]]
    content_hash: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), default="draft")  # draft | published | retired
    validation: Mapped[dict[str, Any] | None]
    reference: Mapped[dict[str, Any] | None]
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    published_at: Mapped[datetime | None]


# A published version's package is what stored attempts were graded against; changing it would
# silently change their meaning. Drafts (no attempts yet) are edited in place until they publish;
# status, validation and reference may still be filled in later.
FROZEN_VERSION_FIELDS = ("scenario_id", "version", "content", "content_hash")


class ImmutableVersionError(ValueError):
    """Something tried to change a scenario version's frozen fields."""


@event.listens_for(ScenarioVersion, "before_update")
def _refuse_changed_package(_mapper: Any, _connection: Any, target: ScenarioVersion) -> None:
    state = inspect(target)
    status = state.attrs["status"].history
    if (status.deleted or status.unchanged or [target.status])[0] == "draft":
        return
    changed = [name for name in FROZEN_VERSION_FIELDS if state.attrs[name].history.has_changes()]
    if changed:
        raise ImmutableVersionError(
            f"scenario version {target.id} is immutable: {', '.join(changed)} cannot change; publish a new version"
        )
