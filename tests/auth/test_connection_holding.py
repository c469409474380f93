"""A burst larger than the worker threads and the pool is answered, not left to time out.

FastAPI runs the user lookup, the endpoint and the response validation on separate trips to the
worker threads, and a request keeps its connection in between. With a bounded SQLite pool, a burst
could leave every worker thread waiting for a connection that only requests queued behind them hold,
until the pool's timeout (30 s) answered 500s.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest
from sqlalchemy.orm import sessionmaker

from app.auth.tokens import issue_token
from app.core import db as core_db
from app.core.db import make_engine
from app.core.migrate import upgrade_to_head
from app.main import create_app
from app.users.service import create_user

WORKER_THREADS = 2
REQUESTS = 60  # more than the old pool (5 + 10) and the default worker threads (40) together


def test_a_burst_larger_than_the_pool_and_the_threads_is_answered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'burst.sqlite3'}")  # the app's own engine settings
    upgrade_to_head(engine)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    with factory() as session:
        user = create_user(session=session, email="burst@example.com", password="burst-password-123",
                           role="candidate")  # fmt: skip
        token = issue_token(session=session, user=user)
        session.commit()
    monkeypatch.setattr(core_db, "_session_factory", lambda: factory)
    app = create_app()  # no lifespan: nothing but the requests below

    async def burst() -> list[int]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
        statuses: list[int] = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:

            async def one() -> None:
                response = await client.get("/api/scenarios", headers={"Authorization": f"Bearer {token}"})
                statuses.append(response.status_code)

            async with anyio.create_task_group() as group:
                for _ in range(REQUESTS):
                    group.start_soon(one)
        return statuses

    try:
        statuses = anyio.run(burst)
    finally:
        engine.dispose()
    assert statuses == [200] * REQUESTS
