"""Shared fixtures for page and auth tests: the app on the rolled-back session, users, sign-in helpers.

Test folders that need them import the fixtures in their conftest.py (`from web.support import ...`).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core.db import get_session
from app.main import create_app
from app.scenarios.models import ScenarioVersion
from app.users.models import User
from app.users.service import create_user

PASSWORD = "correct horse battery"
CSRF_RE = re.compile(r'name="csrf_token" value="([^"]+)"')


@dataclass
class Account:
    user: User
    email: str
    password: str


def unique_email(prefix: str) -> str:
    # Unique emails: on SQLite the rolled-back fixture does not undo every commit (pysqlite savepoints).
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def csrf_from(html: str) -> str:
    """The CSRF token embedded in a rendered form."""
    match = CSRF_RE.search(html)
    assert match, "no csrf_token field in the page"
    return match.group(1)


def page_csrf(client: TestClient, path: str = "/sign-in") -> str:
    """Open a page (which gives the client its session nonce) and return its form token."""
    response = client.get(path)
    assert response.status_code == 200, response.text[:300]
    return csrf_from(response.text)


def sign_in(client: TestClient, email: str, password: str = PASSWORD) -> None:
    """Sign in through the real form, CSRF token and all."""
    token = page_csrf(client)
    response = client.post(
        "/sign-in", data={"email": email, "password": password, "csrf_token": token}, follow_redirects=False
    )
    assert response.status_code == 303, f"sign-in failed: {response.status_code} {response.text[:300]}"


@pytest.fixture(autouse=True)
def fast_password_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap Argon2 parameters in page tests: the real ones cost about half a second per hash here."""
    from argon2 import PasswordHasher

    from app.core import security

    cheap = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    monkeypatch.setattr(security, "_hasher", cheap)
    # An unknown email is verified against the dummy hash, whose own (real) parameters set the cost.
    monkeypatch.setattr(security, "_DUMMY_HASH", cheap.hash("not-a-real-password"))


@pytest.fixture
def web_app(db: Session) -> FastAPI:
    """The real app (no lifespan) answering from the test's rolled-back session."""
    app = create_app()

    def _session() -> Iterator[Session]:
        yield db

    app.dependency_overrides[get_session] = _session
    return app


@pytest.fixture
def web_client(web_app: FastAPI) -> TestClient:
    return TestClient(web_app)


@pytest.fixture
def make_account(db: Session) -> Callable[..., Account]:
    """Create a committed user with a known password."""

    def _make(role: str = "candidate", *, password: str | None = PASSWORD, active: bool = True) -> Account:
        email = unique_email(role)
        user = create_user(session=db, email=email, password=password, role=role)
        user.is_active = active
        db.commit()
        return Account(user=user, email=email, password=password or "")

    return _make


PUBLISHED_SLUG = "attention-zoo"


@pytest.fixture
def published_version(db: Session) -> ScenarioVersion:
    """A real published scenario version: the built-ins, loaded idempotently.

    A made-up version would leak into other tests' scenario lists on SQLite (see unique_email).
    """
    from app.scenarios.service import sync_builtin_scenarios

    versions = sync_builtin_scenarios(session=db)
    db.commit()
    assert versions, "no built-in scenarios to test with"
    # A gpt-v1 built-in by name (the first by slug is now a training-pipeline one, whose files differ)
    return next(v for v in versions if v.content["slug"] == PUBLISHED_SLUG)
