"""Small keyword-only factories for dispatch tests."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.scenarios.service import get_published, sync_builtin_scenarios
from app.users.service import create_user


def make_attempt(
    *,
    session: Session,
    status: str = "queued",
    tries: int = 0,
    heartbeat_at: datetime | None = None,
    worker_id: str | None = None,
    kind: str = "submit",
    files: dict[str, str] | None = None,
    user_id: int | None = None,
    interview_id: int | None = None,
) -> Attempt:
    """An attempt on warm-up, flushed: of a new user, or of `user_id`."""
    version = get_published(session=session, slug="warm-up")
    if version is None:
        sync_builtin_scenarios(session=session)
        version = get_published(session=session, slug="warm-up")
    assert version is not None
    if user_id is None:
        user_id = make_user(session=session)
    attempt = Attempt(
        user_id=user_id, scenario_version_id=version.id, kind=kind, status=status, tries=tries,
        interview_id=interview_id, heartbeat_at=heartbeat_at, worker_id=worker_id,
        files=files or {"model.py": "x = 1\n"},
    )
    session.add(attempt)
    session.flush()
    return attempt


def make_user(*, session: Session, role: str = "candidate") -> int:
    """A new user's id (flushed)."""
    return create_user(session=session, email=f"d-{uuid.uuid4().hex[:10]}@example.com", password=None, role=role).id
