"""Dispatch fixtures: the process-wide database (what jobs and pools use), migrated, with built-ins."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from app.core.db import get_engine, new_session
from app.core.migrate import upgrade_to_head
from app.scenarios.service import sync_builtin_scenarios
from app.startup import register_jobs

from .factories import make_attempt


@pytest.fixture(scope="session", autouse=True)
def job_kinds() -> None:
    """The job kinds registered, as `dojo serve` does, for the pools and dispatchers these tests start."""
    register_jobs()


@pytest.fixture(scope="session")
def app_db() -> None:
    """The global DATABASE_URL database at head with the built-in scenarios loaded."""
    upgrade_to_head(get_engine())
    with new_session() as session:
        sync_builtin_scenarios(session=session)
        session.commit()


@pytest.fixture
def committed_attempt(app_db: None) -> Iterator[Callable[..., int]]:
    """Create an attempt in the global database and commit it; returns its id."""

    def _make(**kwargs: object) -> int:
        with new_session() as session:
            attempt = make_attempt(session=session, **kwargs)  # type: ignore[arg-type]
            session.commit()
            return attempt.id

    yield _make
