"""Engine, sessions and the declarative base shared by every domain's models."""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from functools import lru_cache, partial
from typing import Any, ParamSpec, TypeVar

import anyio
import anyio.to_thread
from sqlalchemy import JSON, DateTime, Engine, MetaData, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from app.core import json_codec
from app.core.settings import get_settings

# A database server runs a process per connection, so its pool stays bounded (SQLAlchemy's defaults).
SERVER_POOL_SIZE = 5
SERVER_POOL_OVERFLOW = 10

P = ParamSpec("P")
T = TypeVar("T")

# Stable constraint names so Alembic migrations are deterministic on SQLite and PostgreSQL.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Timezone-aware now, the only clock models use."""
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every stored moment is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    # JSON columns: precise maps (file name -> text, bug id -> level) where the shape is that simple.
    type_annotation_map = {dict[str, Any]: JSON, dict[str, str]: JSON, dict[str, int]: JSON, list[Any]: JSON,
                           datetime: DateTime(timezone=True)}


def make_engine(url: str, *, sqlite_savepoints: bool = False) -> Engine:
    """An engine with SQLite tuned for a small multi-threaded web app.

    sqlite_savepoints=True makes SQLAlchemy emit BEGIN itself, which SAVEPOINTs (and so rolled-back
    test sessions) need. The app keeps pysqlite's deferred BEGIN: a transaction that read and then
    writes after another connection wrote would otherwise fail at once with "database is locked".
    """
    if url.startswith("sqlite"):
        # Never wait for a connection: a request keeps its connection between FastAPI's trips to the
        # worker threads (user lookup, endpoint, response validation), so with a bounded pool a burst
        # could leave every worker thread waiting for connections that only requests queued behind
        # them hold. SQLite connections are cheap; 20 stay open, more are opened when needed.
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30},
                               pool_size=20, max_overflow=-1, json_deserializer=json_codec.loads)  # fmt: skip

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            if sqlite_savepoints:
                dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            # WAL's recommended durability: a commit is not synced to disk on its own (a checkpoint syncs
            # the log), so it costs a fraction of a millisecond instead of a sync while every other writer
            # waits. The database stays intact after any crash; a power cut or an operating-system crash
            # may lose the last commits before it (an application crash loses nothing).
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        if sqlite_savepoints:

            @event.listens_for(engine, "begin")
            def _sqlite_begin(conn: Any) -> None:
                conn.exec_driver_sql("BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=SERVER_POOL_SIZE, max_overflow=SERVER_POOL_OVERFLOW,
                         json_deserializer=json_codec.loads)  # fmt: skip


@lru_cache
def get_engine() -> Engine:
    """The process-wide engine for the configured DATABASE_URL."""
    settings = get_settings()
    if settings.database_url.startswith("sqlite:///"):
        settings.ensure_data_dir()
    return make_engine(settings.database_url)


@lru_cache
def _session_factory() -> sessionmaker[Session]:
    return sessionmaker(bind=get_engine(), expire_on_commit=False)


def new_session() -> Session:
    """A session outside a request (workers, CLI)."""
    return _session_factory()()


async def get_session() -> AsyncIterator[Session]:
    """FastAPI dependency: one session per request, closed at the end.

    Async, so opening it costs no trip to a worker thread: a Session connects lazily, on its first
    query, in the thread that runs the endpoint. Closing gives the connection back to the pool (a
    round trip on PostgreSQL), so it runs on a worker thread, shielded from cancellation so that a
    client going away never leaks a connection, and outside the thread limit (as FastAPI does for
    its own generator dependencies) so that it never waits behind requests that need a connection.
    On SQLite, closing is a call into a local library, done right here (see run_read).

    On a database server, a request first takes one of as many slots as the pool has connections,
    waiting on the event loop, not on a worker thread. A request keeps its connection from its first
    query to the end, across FastAPI's separate worker-thread trips (endpoint, then response
    validation); without the slots a burst could leave every worker thread waiting for a connection
    that only requests queued for a thread hold, until the pool's timeout answered 500s.
    """
    factory = _session_factory()
    bind = factory.kw.get("bind")
    slots = None if _embedded(bind) else _request_slots(bind)
    slot = object()  # the slot's holder: this request, whichever task ends it
    if slots is not None:
        await slots.acquire_on_behalf_of(slot)
    session = factory()
    try:
        yield session
    finally:
        try:
            if _embedded(bind):
                session.close()
            else:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(session.close, limiter=anyio.CapacityLimiter(1))
        finally:
            if slots is not None:
                slots.release_on_behalf_of(slot)


_SLOTS: weakref.WeakKeyDictionary[Engine, anyio.CapacityLimiter] = weakref.WeakKeyDictionary()


def _request_slots(bind: Any) -> anyio.CapacityLimiter | None:
    """The request slots of a database server's engine (its pool is bounded)."""
    if not isinstance(bind, Engine):
        return None
    if bind not in _SLOTS:
        _SLOTS[bind] = anyio.CapacityLimiter(SERVER_POOL_SIZE + SERVER_POOL_OVERFLOW)
    return _SLOTS[bind]


def _embedded(bind: Any) -> bool:
    """True for the embedded SQLite file: reads run on the loop (run_read), its pool opens more."""
    return bind is not None and bind.dialect.name == "sqlite"


def reads_inline(session: Session) -> bool:
    """True when the session's database is the embedded SQLite file (see run_read)."""
    return _embedded(session.get_bind())


async def run_read(session: Session, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """Run `fn`, a short read through `session` (no writes), for an async endpoint or dependency.

    On the embedded SQLite database it runs right here, on the event loop. A read of the local file
    never waits for a writer (WAL: readers see the last commit while a write is in progress), so it
    cannot stall the loop for long, and a trip to a worker thread costs more than the read itself:
    under load the trips queue for the GIL, and the most requested paths (the dashboard, the polled
    attempt and results panel, every request's user lookup) ran several times slower with them.
    On a database server a read waits for the network, so it runs on a worker thread as FastAPI runs
    a plain endpoint, and the loop keeps serving meanwhile.
    """
    if reads_inline(session):
        return fn(*args, **kwargs)
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
