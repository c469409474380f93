"""A burst larger than the worker threads and the pool is answered, not left to time out.

FastAPI runs the user lookup, the endpoint and the response validation on separate trips to the
worker threads, and a request keeps its connection in between. With a bounded pool, a burst could
leave every worker thread waiting for a connection that only requests queued for a thread hold,
until the pool's timeout (30 s) answered 500s. SQLite's pool opens more connections when needed;
on PostgreSQL (bounded pool) a request takes a slot, one per pooled connection, before its session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import anyio
import anyio.to_thread
import httpx
import pytest
from app_on_engine import app_with_candidate
from services import POSTGRES_URL
from sqlalchemy import Engine, text

from app.core.db import make_engine


def _burst(engine: Engine, monkeypatch: pytest.MonkeyPatch, *, requests: int, worker_threads: int) -> list[int]:
    """`requests` concurrent GET /api/scenarios (a sync endpoint with a typed answer) through the app."""
    app, token = app_with_candidate(engine, monkeypatch, email="burst@example.com")

    async def burst() -> list[int]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = worker_threads
        statuses: list[int] = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=120) as client:

            async def one() -> None:
                response = await client.get("/api/scenarios", headers={"Authorization": f"Bearer {token}"})
                statuses.append(response.status_code)

            async with anyio.create_task_group() as group:
                for _ in range(requests):
                    group.start_soon(one)
        return statuses

    return anyio.run(burst)


def test_a_burst_larger_than_the_pool_and_the_threads_is_answered_on_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'burst.sqlite3'}")  # the app's own engine settings
    try:
        # more than the old bounded pool (5 + 10) and the worker threads together
        statuses = _burst(engine, monkeypatch, requests=60, worker_threads=2)
    finally:
        engine.dispose()
    assert statuses == [200] * 60


@pytest.fixture
def private_schema_url() -> Iterator[str]:
    """The test database with a schema of this test's own first on the search path."""
    schema = f"dojo_burst_{os.getpid()}"
    admin = make_engine(POSTGRES_URL)
    try:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        yield f"{POSTGRES_URL}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        admin.dispose()


@pytest.mark.postgres
def test_a_burst_larger_than_the_pool_and_the_threads_is_answered_on_postgres(
    private_schema_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(private_schema_url)  # the app's own engine settings: a pool of 5 + 10
    try:
        # With FastAPI's 40 worker threads, more than 55 requests could wait out the pool's timeout.
        statuses = _burst(engine, monkeypatch, requests=120, worker_threads=40)
    finally:
        engine.dispose()
    assert statuses == [200] * 120
