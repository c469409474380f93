"""API fixtures: the app on the rolled-back session, users with bearer tokens, built-in scenarios."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.auth.tokens import issue_token
from app.core.db import get_session
from app.dispatch import dispatcher
from app.dispatch.registry import Job
from app.main import create_app
from app.users.models import User
from app.users.service import create_user


@dataclass
class ApiUser:
    user: User
    headers: dict[str, str]


@pytest.fixture
def builtin_slugs(db: Session) -> list[str]:
    from app.scenarios.service import slug_of, sync_builtin_scenarios

    versions = sync_builtin_scenarios(session=db)
    db.commit()
    return [slug_of(session=db, version=v) for v in versions]


@pytest.fixture
def client(db: Session) -> Iterator[TestClient]:
    """The real app (no lifespan: no pool) answering from the test's session."""
    app = create_app()

    def _session() -> Iterator[Session]:
        yield db

    app.dependency_overrides[get_session] = _session
    yield TestClient(app)


@pytest.fixture
def make_user(db: Session) -> Callable[..., ApiUser]:
    def _make(role: str = "candidate") -> ApiUser:
        # Unique emails: the SQLite `db` fixture does not always roll back (pysqlite savepoints).
        user = create_user(session=db, email=f"{role}-{uuid.uuid4().hex[:10]}@example.com", password=None, role=role)
        token = issue_token(session=db, user=user)
        db.commit()
        return ApiUser(user=user, headers={"Authorization": f"Bearer {token}"})

    return _make


class RecordingDispatcher:
    """Stands in for the pool: remembers what was enqueued, grades nothing."""

    def __init__(self) -> None:
        self.enqueued: list[int] = []

    def enqueue(self, job: Job) -> None:
        self.enqueued.append(job.id)

    def stop(self, timeout: float = 10.0) -> None:
        return None


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> RecordingDispatcher:
    rec = RecordingDispatcher()
    monkeypatch.setattr(dispatcher, "_active", rec)
    return rec
