"""The web app reading through an engine of the test's own, with one candidate and their bearer token."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine
from sqlalchemy.orm import sessionmaker

from app.auth.tokens import issue_token
from app.core import db as core_db
from app.core.migrate import upgrade_to_head
from app.main import create_app
from app.users.service import create_user


def app_with_candidate(engine: Engine, monkeypatch: pytest.MonkeyPatch, *, email: str) -> tuple[FastAPI, str]:
    """Migrate `engine`, add a candidate, point every request's session at it; (app, token).

    The app is built without its lifespan: nothing runs but the requests a test sends.
    """
    upgrade_to_head(engine)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    with factory() as session:
        user = create_user(session=session, email=email, password="candidate-password-123", role="candidate")
        token = issue_token(session=session, user=user)
        session.commit()
    monkeypatch.setattr(core_db, "_session_factory", lambda: factory)
    return create_app(), token
