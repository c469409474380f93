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
) -> Attempt:
    """A user and an attempt on warm-up, flushed."""
    version = get_published(session=session, slug="warm-up")
    if version is None:
        sync_builtin_scenarios(session=session)
        version = get_published(session=session, slug="warm-up")
    assert version is not None
    user = create_user(session=session, email=f"d-{uuid.uuid4().hex[:10]}@example.com", password=None, role="candidate")
    attempt = Attempt(
        user_id=user.id, scenario_version_id=version.id, kind=kind, status=status, tries=tries,
        heartbeat_at=heartbeat_at, worker_id=worker_id, files=files or {"model.py": "x = 1\n"},
    )
    session.add(attempt)
    session.flush()
    return attempt
