"""Small keyword-only factories for coaching's database tests."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from app.attempts.models import Attempt
from app.grading.result import GradeResult
from app.scenarios.models import ScenarioVersion
from app.scenarios.service import get_published, sync_builtin_scenarios
from app.users.models import User
from app.users.service import create_user


def builtin_version(db: Session, slug: str) -> ScenarioVersion:
    version = get_published(session=db, slug=slug)
    if version is None:
        sync_builtin_scenarios(session=db)
        db.flush()
        version = get_published(session=db, slug=slug)
    assert version is not None
    return version


def user(db: Session, role: str = "candidate") -> User:
    return create_user(session=db, email=f"{role}-{uuid.uuid4().hex[:10]}@example.com", password=None, role=role)


def attempt(db: Session, *, owner: User, version: ScenarioVersion, kind: str = "submit", status: str = "failed",
            result: GradeResult | None = None, notes: dict[str, str] | None = None,
            created_at: datetime | None = None, interview_id: int | None = None,
            error: dict[str, Any] | None = None) -> Attempt:
    row = Attempt(user_id=owner.id, scenario_version_id=version.id, kind=kind, status=status, files={},
                  notes=notes or {}, result=result.to_dict() if result else None, error=error,
                  interview_id=interview_id)
    if created_at is not None:
        row.created_at = created_at
    db.add(row)
    db.flush()
    return row
