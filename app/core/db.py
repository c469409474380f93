"""Engine, sessions and the declarative base shared by every domain's models."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import JSON, DateTime, Engine, MetaData, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from app.core.settings import get_settings

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
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON, datetime: DateTime(timezone=True)}


def make_engine(url: str, *, sqlite_savepoints: bool = False) -> Engine:
    """An engine with SQLite tuned for a small multi-threaded web app.

    sqlite_savepoints=True makes SQLAlchemy emit BEGIN itself, which SAVEPOINTs (and so rolled-back
    test sessions) need. The app keeps pysqlite's deferred BEGIN: a transaction that read and then
    writes after another connection wrote would otherwise fail at once with "database is locked".
    """
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            if sqlite_savepoints:
                dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        if sqlite_savepoints:

            @event.listens_for(engine, "begin")
            def _sqlite_begin(conn: Any) -> None:
                conn.exec_driver_sql("BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True)


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


def get_session() -> Iterator[Session]:
    """FastAPI dependency: one session per request, closed at the end."""
    with new_session() as session:
        yield session
