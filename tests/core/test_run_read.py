"""run_read: reads run on the event loop on SQLite (no worker-thread trip), on a thread elsewhere.

The premise that makes the SQLite case safe is tested too: under WAL a read never waits for a writer,
so a read on the loop cannot stall every other request behind a write transaction.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import pytest
from app_on_engine import app_with_candidate
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session

from app.core.db import make_engine, reads_inline, run_read


def _thread_of_read(session: Session) -> int:
    async def read() -> int:
        return await run_read(session, lambda: (session.execute(text("select 1")), threading.get_ident())[1])

    return anyio.run(read)


def test_on_sqlite_a_read_runs_in_the_calling_thread(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'inline.sqlite3'}")
    try:
        with Session(bind=engine) as session:
            assert reads_inline(session)
            assert _thread_of_read(session) == threading.get_ident()
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_on_postgres_a_read_runs_on_a_worker_thread(postgres_engine: Engine) -> None:
    with Session(bind=postgres_engine) as session:
        assert not reads_inline(session)
        assert _thread_of_read(session) != threading.get_ident()


def test_a_sqlite_read_does_not_wait_for_a_writer_holding_its_transaction(tmp_path: Path) -> None:
    path = tmp_path / "wal.sqlite3"
    engine = make_engine(f"sqlite:///{path}")  # WAL and a 30 s busy timeout, as the app runs
    with engine.begin() as conn:
        conn.execute(text("create table notes (body text)"))
        conn.execute(text("insert into notes values ('committed')"))
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")  # holds the write lock until the end of the test
        writer.execute("insert into notes values ('in progress')")
        with Session(bind=engine) as session:
            # No waiting allowed: were the read blocked by the writer, it would fail at once.
            session.execute(text("PRAGMA busy_timeout=0"))

            async def read() -> list[str]:
                return await run_read(session, lambda: list(session.scalars(text("select body from notes"))))

            assert anyio.run(read) == ["committed"]
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        engine.dispose()


def test_the_polled_reads_make_no_worker_thread_trip_on_sqlite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user lookup, the dashboard and the attempt API answer without anyio.to_thread on SQLite."""
    engine = make_engine(f"sqlite:///{tmp_path / 'trips.sqlite3'}")
    app, token = app_with_candidate(engine, monkeypatch, email="trips@example.com")
    trips: list[Any] = []
    real_run_sync = anyio.to_thread.run_sync

    async def counting_run_sync(func: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(func)
        return await real_run_sync(func, *args, **kwargs)

    monkeypatch.setattr(anyio.to_thread, "run_sync", counting_run_sync)

    async def requests() -> dict[str, tuple[int, int]]:
        """Each path's status and the number of worker-thread trips it made."""
        headers = {"Authorization": f"Bearer {token}"}
        seen: dict[str, tuple[int, int]] = {}
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client:
            for path in ("/candidate", "/api/attempts/999", "/api/auth/me"):
                before = len(trips)
                status = (await client.get(path, headers=headers)).status_code
                seen[path] = (status, len(trips) - before)
        return seen

    try:
        seen = anyio.run(requests)
    finally:
        engine.dispose()
    assert seen["/candidate"] == (200, 0)
    assert seen["/api/attempts/999"] == (404, 0)
    # A plain (sync) endpoint still goes to a worker thread: the counter does see trips.
    status, trips_of_me = seen["/api/auth/me"]
    assert status == 200 and trips_of_me >= 1


def test_the_embedded_database_runs_wal_with_commits_synced_at_checkpoints(tmp_path: Path) -> None:
    """Every pooled SQLite connection: WAL, foreign keys, a 30 s busy wait, and synchronous=NORMAL (1), so a
    commit does not sync the disk while the writers behind it wait (db.py says what that trades)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'p.db'}")
    connections = [engine.connect() for _ in range(3)]
    try:
        for conn in connections:
            pragmas = {name: conn.execute(text(f"PRAGMA {name}")).scalar()
                       for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout")}
            assert pragmas == {"journal_mode": "wal", "synchronous": 1, "foreign_keys": 1, "busy_timeout": 30000}
    finally:
        for conn in connections:
            conn.close()
        engine.dispose()
